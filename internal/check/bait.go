package check

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// The sandbox's bait is the checker's business, but a planted secret comes
// back "asked for" only when the request pointed at it. canary-returned, a
// note, is a canary in the answer to a tools/call, prompts/get or
// resources/read whose own arguments named the canary: a string (at any
// depth) that is its file, a directory holding it from the sandbox's run
// directory down (the fake HOME, ~), a file:// URI of either, or a glob
// that matches one; or, for an environment canary, a call of a tool whose
// description as listed says it returns environment variables
// (server-everything's get-env), or an argument that names the variable.
// Arguments count only where the checker chose them: a call the policy
// file names (the user wrote them), the probe's own prompt arguments, the
// uri of a resource read. The warm-up planner's arguments never point at a
// canary of their own (its paths lie in the sandbox's tmp directory, which
// holds none): one that does came from the tool's schema (an example, an
// enum, a default), that is from the server, and does not count.
//
// The same secret anywhere else (a definition, the instructions, a
// notification or request of the server's own, stdout or stderr, the
// answer of a call that did not point at it, whatever the tool is called)
// is canary-leak, an error: the server read credentials nothing asked for.
// A tool's name is no test: a read_note that answers with ~/.ssh/id_rsa
// was asked for a note.

// leakLog collects the canaries seen in a server's output while it is
// probed (the probe's tap runs on its reader goroutine); findings turns
// them into findings once the probe is over.
type leakLog struct {
	mu     sync.Mutex
	events []leakEvent
}

type leakEvent struct {
	where   string // the canary's place: "~/.ssh/id_rsa", "env:GITHUB_TOKEN"
	phase   string
	method  string // the method answered or sent, "stderr", "stdout"
	subject string // for an answer: the tool, prompt or uri asked for
	asked   bool   // the request pointed at this canary (see above)
}

// add records canaries seen in one payload; asked, when not nil, says
// which of them the request pointed at.
func (l *leakLog) add(cs []sandbox.Canary, phase, method, subject string, asked func(sandbox.Canary) bool) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cs {
		l.events = append(l.events, leakEvent{where: c.Where, phase: phase, method: method, subject: subject, asked: asked != nil && asked(c)})
	}
}

// addForeign records canaries planted for other servers (sandboxes.foreign):
// nothing this server was asked points at another's secrets.
func (l *leakLog) addForeign(cs []sandbox.Canary, phase, method, subject string) {
	l.add(cs, phase, method, subject, nil)
}

// bait judges whether a request pointed at a canary of one server's
// sandbox: see the comment at the top of this file.
type bait struct {
	sb    *sandbox.Run
	cwd   string       // the server's working directory
	named []probe.Call // the calls the policy file names

	mu    sync.Mutex
	descs map[string]string // tool name: its description as last listed
}

func newBait(sb *sandbox.Run, cwd string, named []probe.Call) *bait {
	if cwd == "" {
		cwd = sb.WorkDir()
	}
	return &bait{sb: sb, cwd: cwd, named: named, descs: map[string]string{}}
}

// listed remembers the descriptions of a tools/list answer.
func (b *bait) listed(payload []byte) {
	var page struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
	}
	if json.Unmarshal(payload, &page) != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range page.Tools {
		b.descs[t.Name] = t.Description
	}
}

// asked returns the judge of one answer: which canaries the request it
// answers pointed at. nil when it answers no read of the checker's.
func (b *bait) asked(method, subject string, request json.RawMessage) func(sandbox.Canary) bool {
	var params struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(request, &params)
	var args []string
	envTool := false
	desc := ""
	switch method {
	case "tools/call":
		if b.isNamed(subject, params.Arguments) {
			args = stringsIn(params.Arguments)
		}
		b.mu.Lock()
		desc = b.descs[subject]
		b.mu.Unlock()
		envTool = returnsEnv(desc)
	case "prompts/get":
		args = stringsIn(params.Arguments)
	case "resources/read":
		args = []string{subject}
	default:
		return nil
	}
	return func(c sandbox.Canary) bool {
		if name, ok := strings.CutPrefix(c.Where, "env:"); ok {
			if envTool {
				return true
			}
			for _, a := range args {
				if a = strings.TrimSpace(a); a == name || a == "$"+name || a == "${"+name+"}" {
					return true
				}
			}
			return false
		}
		file := b.sb.CanaryPath(c.Where)
		if file == "" {
			return false
		}
		if returnsFile(desc, c.Where) {
			return true
		}
		for _, a := range args {
			if b.pointsAt(a, file) {
				return true
			}
		}
		return false
	}
}

// isNamed reports whether a tools/call is one the policy file names, with
// the same arguments.
func (b *bait) isNamed(tool string, args json.RawMessage) bool {
	for _, c := range b.named {
		if c.Tool != tool {
			continue
		}
		want := c.Arguments
		if len(want) == 0 {
			want = json.RawMessage("{}")
		}
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		var x, y any
		if json.Unmarshal(want, &x) == nil && json.Unmarshal(args, &y) == nil && reflect.DeepEqual(x, y) {
			return true
		}
	}
	return false
}

// maxArgStrings bounds the strings read out of one request's arguments.
const maxArgStrings = 256

// stringsIn is every string in a JSON value, keys aside, to a bounded
// depth and count.
func stringsIn(raw json.RawMessage) []string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 32 || len(out) >= maxArgStrings {
			return
		}
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x, depth+1)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k], depth+1)
			}
		}
	}
	walk(v, 0)
	return out
}

// pointsAt reports whether arg, a path, a file:// URI or a glob as a
// server would read it (~ and $HOME its HOME, relative to its working
// directory), names file or a directory holding it at or below the
// sandbox's run directory. A directory higher up ("/", /tmp) is not
// pointing: it holds the user's world, not the bait.
func (b *bait) pointsAt(arg, file string) bool {
	p := strings.TrimSpace(arg)
	if len(p) == 0 || len(p) > 4096 {
		return false
	}
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		u, err := url.Parse("file://" + rest)
		if err != nil {
			return false
		}
		p = u.Path
	}
	home := b.sb.Home()
	switch {
	case p == "~" || p == "$HOME" || p == "${HOME}":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	case strings.HasPrefix(p, "$HOME/"):
		p = home + p[5:]
	case strings.HasPrefix(p, "${HOME}/"):
		p = home + p[7:]
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.cwd, p)
	}
	// The file and the directories that hold it, up to the run dir.
	run := b.sb.Dir()
	targets := []string{file}
	for d := filepath.Dir(file); within(d, run); d = filepath.Dir(d) {
		targets = append(targets, d)
		if d == run {
			break
		}
	}
	if strings.ContainsAny(p, "*?[") {
		re, err := globRegexp(p)
		if err != nil {
			return false
		}
		for _, t := range targets {
			if re.MatchString(t) {
				return true
			}
		}
		return false
	}
	p = filepath.Clean(p)
	return slices.Contains(targets, p)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// globRegexp reads a glob as shells and glob libraries do: ** any path,
// * and ? within one name, [...] a class.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
				if i+1 < len(glob) && glob[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?") // **/ also matches no directory
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(glob[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := glob[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// envVerbs before "environment variables" (a few words apart at most) say
// a tool returns them: "Returns all environment variables", "Print the
// env vars". A tool that merely needs one ("requires the API_KEY
// environment variable") does not say so.
var envVerbs = regexp.MustCompile(`(?i)\b(?:return|returns|returning|print|prints|list|lists|show|shows|dump|dumps|get|gets|output|outputs|display|displays|expose|exposes|read|reads|echo|echoes)(?:\s+[\w'-]+){0,3}?\s+(?:environment|env)(?:\s+|-)?(?:variables?|vars?)?\b`)

// fileWords name what a canary file holds, as a tool's description says
// it: a kubernetes server's "Show the current kubeconfig" is asked for
// ~/.kube/config by being called at all.
var fileWords = map[string]*regexp.Regexp{
	"~/.kube/config":         returnsWords(`kube-?config|kube config|kubernetes (?:config(?:uration)?|credentials)|cluster (?:config(?:uration)?|credentials)`),
	"~/.aws/credentials":     returnsWords(`aws (?:credentials|config(?:uration)?|profiles?)`),
	"~/.aws/config":          returnsWords(`aws (?:config(?:uration)?|profiles?)`),
	"~/.netrc":               returnsWords(`netrc`),
	"~/.config/gh/hosts.yml": returnsWords(`gh (?:config(?:uration)?|hosts)|github cli (?:config(?:uration)?|credentials|auth)`),
}

// returnsWords is a verb that returns or shows, a few words, then what.
func returnsWords(what string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:return|returns|returning|print|prints|list|lists|show|shows|view|views|dump|dumps|get|gets|output|outputs|display|displays|expose|exposes|read|reads|echo|echoes|fetch|fetches|retrieve|retrieves)(?:\s+[\w'-]+){0,3}?\s+(?:` + what + `)\b`)
}

// returnsFile reports whether a tool's description says it returns the
// file a canary was planted as: the tool's job is to show it, so its
// answer carrying the canary is canary-returned, a note for a reviewer, not
// a leak.
func returnsFile(desc, where string) bool {
	re := fileWords[where]
	if re == nil || desc == "" {
		return false
	}
	if len(desc) > 64<<10 {
		desc = desc[:64<<10]
	}
	return re.MatchString(desc)
}

// returnsEnv reports whether a tool's description says it returns
// environment variables.
func returnsEnv(desc string) bool {
	if len(desc) > 64<<10 {
		desc = desc[:64<<10]
	}
	return envVerbs.MatchString(desc)
}

// findings is one canary-leak error per canary seen unasked (at the first
// place it was seen), and one canary-returned note per tool, prompt or
// resource whose asked-for answer carried canaries, naming them.
func (l *leakLog) findings(server string) []finding.Finding {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []finding.Finding
	leaked := map[string]bool{}
	type read struct{ method, subject string }
	returned := map[read][]string{}
	firstPhase := map[read]string{}
	var order []read
	for _, e := range l.events {
		if !e.asked {
			if !leaked[e.where] {
				leaked[e.where] = true
				out = append(out, leakFinding(server, e.where, e.phase, methodOf(e), "the server sent back the canary secret planted as %s (in %s)"))
			}
			continue
		}
		k := read{e.method, e.subject}
		if _, ok := returned[k]; !ok {
			order = append(order, k)
			firstPhase[k] = e.phase
		}
		if !contains(returned[k], e.where) {
			returned[k] = append(returned[k], e.where)
		}
	}
	for _, k := range order {
		wheres := returned[k]
		sort.Strings(wheres)
		f := finding.New(finding.CanaryReturned, server)
		f.Phase = firstPhase[k]
		switch k.method {
		case "tools/call":
			f.Kind = finding.KindTool
		case "prompts/get":
			f.Kind = finding.KindPrompt
		default:
			f.Kind = finding.KindResource
		}
		f.Subject = k.subject
		f.Message = fmt.Sprintf("returned planted secrets when asked: the answer to the checker's %s %q held the canaries planted as %s; in a real session it hands the model what sits there", k.method, k.subject, strings.Join(wheres, ", "))
		out = append(out, f)
	}
	return out
}

func methodOf(e leakEvent) string {
	if e.method == "tools/call" && e.subject != "" {
		return fmt.Sprintf("tools/call %q", e.subject)
	}
	return e.method
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// sandboxes are the sandboxes of one run's servers, so that each server's
// output is also searched for the canaries planted for the others: in basic
// mode servers run as the same user, concurrently, and a server that reads
// another's run directory (or its environment) and sends back what it
// found read credentials nothing asked it for. That is canary-leak, an
// error, wherever it appears.
type sandboxes struct {
	mu   sync.Mutex
	runs map[string]*sandbox.Run
}

func (s *sandboxes) add(server string, sb *sandbox.Run) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[string]*sandbox.Run{}
	}
	s.runs[server] = sb
}

// foreign reports the canaries of servers other than server found in b,
// as "WHERE of server NAME".
func (s *sandboxes) foreign(server string, b []byte) []sandbox.Canary {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	others := make([]string, 0, len(s.runs))
	for name := range s.runs {
		if name != server {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	runs := make([]*sandbox.Run, len(others))
	for i, name := range others {
		runs[i] = s.runs[name]
	}
	s.mu.Unlock()
	var out []sandbox.Canary
	for i, sb := range runs {
		for _, c := range sb.Leaks(b) {
			out = append(out, sandbox.Canary{Where: c.Where + " of server " + others[i]})
		}
	}
	return out
}

// leakFinding is a canary-leak finding about the secret named where, seen
// in the answer to method; format gets where and the method.
func leakFinding(server, where, phase, method, format string) finding.Finding {
	f := finding.New(finding.CanaryLeak, server)
	f.Kind, f.Subject, f.Phase = finding.KindServer, where, phase
	via := method
	if via == "" {
		via = "a response"
	}
	f.Message = fmt.Sprintf(format, where, via)
	return f
}
