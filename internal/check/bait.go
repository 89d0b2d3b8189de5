package check

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/synth"
)

// The sandbox's bait is the checker's business. A planted secret that comes
// back in the answer to a read the checker itself asked for (a warm-up
// tools/call of a tool that reads or lists, a prompts/get, a resources/read)
// says what the tool does with what it is given: server-everything's
// get-env prints its environment, a file tool lists the fake HOME. That is
// canary-returned, a note. The same secret anywhere else (a definition, the
// instructions, a notification or request of the server's own, stdout or
// stderr, the answer of a tool that has no business returning it) is
// canary-leak, an error: the server read credentials nothing asked for.

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
	foreign bool   // the canary was planted for another server
}

func (l *leakLog) add(cs []sandbox.Canary, phase, method, subject string) {
	l.addEvents(cs, phase, method, subject, false)
}

// addForeign records canaries planted for other servers (sandboxes.foreign).
func (l *leakLog) addForeign(cs []sandbox.Canary, phase, method, subject string) {
	l.addEvents(cs, phase, method, subject, true)
}

func (l *leakLog) addEvents(cs []sandbox.Canary, phase, method, subject string, foreign bool) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cs {
		l.events = append(l.events, leakEvent{where: c.Where, phase: phase, method: method, subject: subject, foreign: foreign})
	}
}

// asked reports whether e is the answer to a read the checker asked for.
func (e leakEvent) asked() bool {
	if e.foreign {
		return false // another server's secret: nothing asked for it
	}
	switch e.method {
	case "prompts/get", "resources/read":
		return true
	case "tools/call":
		return readsOrLists(e.subject)
	}
	return false
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
		if !e.asked() {
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

// readsOrLists reports whether a tool's name reads as a read or a listing,
// by the rule warm-up calls are chosen by (synth.ClassifyName). The name is the test, not the
// readOnlyHint annotation: read-only says a tool changes nothing, not that
// it returns what it reads (a read-only "summarize" has no business
// returning ~/.ssh/id_rsa).
func readsOrLists(tool string) bool {
	return synth.ClassifyName(tool) == synth.Read
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
