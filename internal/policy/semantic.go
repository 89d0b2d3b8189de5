package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// The semantic pass: what the schema (parse.go) cannot say about a
// value. Each section is decoded strictly, then each value it sets is
// checked here: its kind as written, its range, that a rule id exists, a
// duration parses and stays under its cap, a name is one an environment
// variable can have.

func keys(ks []string) string { return strings.Join(ks, ", ") }

const ruleLevelsOK = "off, note, warning or error"

func (d *decoder) top(body ast.Node, p *Policy) error {
	haveVersion := false
	_, err := d.section(body, "the policy", &fileDoc{}, func(key string, keyN ast.Node) error {
		return d.at(keyN, "unknown key %q; known: %s", key, keys(schemaKeys(&fileDoc{})))
	}, func(e entry) error {
		switch e.key {
		case "version":
			s, n, err := d.text(e.value, "version", e.keyN)
			if err != nil {
				return err
			}
			if s != strconv.Itoa(Version) {
				return d.at(n, "version %q is not supported: this build reads version %d", s, Version)
			}
			haveVersion = true
		case "defaults":
			d.mark("defaults", e.keyN)
			d.prefix = "defaults."
			_, err := d.section(e.value, "defaults", &settingsDoc{}, func(key string, keyN ast.Node) error {
				hint := ""
				switch key {
				case "calls":
					hint = " (calls name a server's tools: put them under servers.NAME.calls)"
				case "rules":
					hint = " (rules for every server go in the top-level rules:)"
				case "network":
					hint = " (a network allowance is one server's: put it under servers.NAME.network)"
				}
				return d.at(keyN, "unknown key %q in defaults%s; known: %s", key, hint, keys(schemaKeys(&settingsDoc{})))
			}, func(de entry) error { return d.setting(de, &p.Defaults) })
			return err
		case "rules":
			d.mark("rules", e.keyN)
			r, err := d.rules(e.value, "rules")
			if err != nil {
				return err
			}
			p.Defaults.Rules = r
		case "acknowledge":
			d.mark("acknowledge", e.keyN)
			acks, err := d.acknowledge(e.value)
			if err != nil {
				return err
			}
			p.Acks = acks
		case "servers":
			ss, err := d.entries(e.value, "servers")
			if err != nil {
				return err
			}
			for _, se := range ss {
				s, err := d.server(se)
				if err != nil {
					return err
				}
				p.Servers = append(p.Servers, s)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !haveVersion {
		return d.at(body, "the policy has no \"version: %d\"", Version)
	}
	return nil
}

func (d *decoder) server(se entry) (Server, error) {
	s := Server{Name: se.key}
	s.Line, s.Column = pos(se.keyN)
	d.prefix = "servers." + se.key + "."
	d.mark("servers."+se.key, se.keyN)
	if strings.TrimSpace(se.key) == "" {
		return s, d.at(se.keyN, "a server name is empty")
	}
	_, err := d.section(se.value, fmt.Sprintf("server %q", se.key), &serverDoc{}, func(key string, keyN ast.Node) error {
		return d.at(keyN, "unknown key %q in server %q; known: %s", key, se.key, keys(schemaKeys(&serverDoc{})))
	}, func(e entry) error {
		switch e.key {
		case "calls":
			d.mark(d.prefix+"calls", e.keyN)
			calls, err := d.calls(e.value, se.key)
			if err != nil {
				return err
			}
			s.Calls = calls
		case "rules":
			d.mark(d.prefix+"rules", e.keyN)
			r, err := d.rules(e.value, fmt.Sprintf("servers.%s.rules", se.key))
			if err != nil {
				return err
			}
			s.Rules = r
		case "network":
			d.mark(d.prefix+"network", e.keyN)
			a, err := d.network(e.value, se.key)
			if err != nil {
				return err
			}
			s.Network = a
		default:
			return d.setting(e, &s.Settings)
		}
		return nil
	})
	return s, err
}

// envName is what pass-env accepts: a POSIX environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// setting checks one of settingsDoc's keys and reads it into st.
func (d *decoder) setting(e entry, st *Settings) error {
	d.mark(d.prefix+e.key, e.keyN)
	switch e.key {
	case "warmup-calls", "launches":
		return d.countSetting(e, st)
	case "profile":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		if ProfileRank(s) < 0 {
			return d.at(n, "profile: unknown profile %q; want %s or %s", s, ProfileQuick, ProfileDeep)
		}
		st.Profile = s
	case "sandbox":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		l, err := sandbox.ParseLevel(s)
		if err != nil {
			return d.at(n, "sandbox: %v", err)
		}
		st.Sandbox = l
	case "timeout", "request-timeout", "call-timeout":
		return d.durationSetting(e, st)
	case "pin-prompts":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		if _, isBool := n.(*ast.BoolNode); !isBool || s != "true" && s != "false" {
			return d.at(n, "pin-prompts: want true or false, got %q", s)
		}
		v := s == "true"
		st.PinPrompts = &v
	case "pass-env":
		return d.passEnv(e, st)
	default:
		// A key the schema accepts but nothing here reads would be a
		// setting a reviewer believes is in force but is not.
		return d.at(e.keyN, "%s: this build accepts the key but does not apply it", e.key)
	}
	return nil
}

// countSetting reads warmup-calls or launches: a whole number in range.
func (d *decoder) countSetting(e entry, st *Settings) error {
	s, n, err := d.text(e.value, e.key, e.keyN)
	if err != nil {
		return err
	}
	lo, hi := 0, MaxWarmupCalls
	if e.key == "launches" {
		lo, hi = 1, MaxLaunches
	}
	v, err := strconv.Atoi(s)
	if _, isInt := n.(*ast.IntegerNode); err != nil || !isInt {
		return d.at(n, "%s: want a whole number from %d to %d, got %q", e.key, lo, hi, s)
	}
	if v < lo || v > hi {
		return d.at(n, "%s: %d is out of range: want %d to %d", e.key, v, lo, hi)
	}
	if e.key == "launches" {
		st.Launches = &v
	} else {
		st.WarmupCalls = &v
	}
	return nil
}

// durationSetting reads timeout, request-timeout or call-timeout: a
// duration above zero and under its cap.
func (d *decoder) durationSetting(e entry, st *Settings) error {
	s, n, err := d.text(e.value, e.key, e.keyN)
	if err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return d.at(n, "%s: %q is not a duration (write e.g. 90s, 2m or 1m30s)", e.key, s)
	}
	if v <= 0 {
		return d.at(n, "%s: %s: want a duration above zero", e.key, s)
	}
	if limit := MaxTimeout; e.key == "timeout" && v > limit || e.key != "timeout" && v > MaxRequestTimeout {
		if e.key != "timeout" {
			limit = MaxRequestTimeout
		}
		// A policy travels with pull requests: an hour-long time-out
		// would hold the job until the runner gives up.
		return d.at(n, "%s: %s is above the cap of %s", e.key, s, limit)
	}
	switch e.key {
	case "timeout":
		st.Timeout = v
	case "request-timeout":
		st.RequestTimeout = v
	default:
		st.CallTimeout = v
	}
	return nil
}

// passEnv reads pass-env: a list of environment variable names, each kept
// once.
func (d *decoder) passEnv(e entry, st *Settings) error {
	items, err := d.list(e.value, "pass-env")
	if err != nil {
		return err
	}
	for _, it := range items {
		s, n, err := d.text(it.value, "pass-env", it.at)
		if err != nil {
			return err
		}
		if !envName.MatchString(s) {
			return d.at(n, "pass-env: %q is not an environment variable name", s)
		}
		if !slices.Contains(st.PassEnv, s) {
			st.PassEnv = append(st.PassEnv, s)
		}
	}
	return nil
}

func (d *decoder) rules(n ast.Node, what string) (map[finding.RuleID]RuleLevel, error) {
	es, err := d.entries(n, what)
	if err != nil {
		return nil, err
	}
	out := map[finding.RuleID]RuleLevel{}
	for _, e := range es {
		id := finding.RuleID(e.key)
		if !id.Valid() {
			return nil, d.at(e.keyN, "unknown rule %q in %s%s", e.key, what, suggest(e.key))
		}
		if id == finding.ServerUnavailable {
			// A held server is held by its status, not by this finding:
			// a level here would change nothing and read as if it did.
			return nil, d.at(e.keyN, "%s cannot be turned off or re-levelled: a server that could not be probed is always held (exit 3)", e.key)
		}
		s, vn, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return nil, err
		}
		var l RuleLevel
		if strings.EqualFold(s, "off") {
			l.Off = true
		} else {
			sev, err := finding.ParseSeverity(s)
			if err != nil || sev == finding.Never {
				return nil, d.at(vn, "%s: %q is not a rule level: want %s", e.key, s, ruleLevelsOK)
			}
			l.Severity = sev
		}
		if enforcesLock[id] {
			if def := finding.DefaultSeverity(id); l.Off || l.Severity < def {
				// The policy file travels with pull requests: if it could
				// switch off what binds approval to content, a PR could
				// approve anything by editing it. Raising is fine.
				return nil, d.at(vn, "%s enforces the lock and cannot be turned off or lowered below %s (it can be raised)", e.key, def)
			}
		}
		d.mark(what+"."+e.key, e.keyN)
		out[id] = l
	}
	return out, nil
}

// enforcesLock are the rules that bind approval to content or report
// observed misbehaviour; a policy may raise them but never lower them.
var enforcesLock = map[finding.RuleID]bool{
	finding.ToolAdded: true, finding.ToolChanged: true,
	finding.PromptAdded: true, finding.PromptChanged: true,
	finding.ResourceAdded: true, finding.ResourceChanged: true,
	finding.ResourceTemplateAdded: true, finding.ResourceTemplateChanged: true,
	finding.InstructionsChanged: true, finding.LaunchChanged: true,
	finding.ServerNotPinned: true, finding.NewInputProperty: true,
	finding.UnstableManifest: true, finding.CanaryLeak: true, finding.CanaryUsed: true,
	finding.AmbiguousJSON: true, finding.HiddenCharacters: true,
	finding.TerminalEscape: true,
	// What keeps a pull request from lowering the bar or hiding a config.
	finding.PolicyWeakened: true, finding.UncheckedConfig: true,
}

// suggest names the closest rule id to a misspelt one, if any is close.
func suggest(id string) string {
	best, bestD := "", 4
	for _, r := range finding.Rules {
		if dd := distance(id, string(r.ID)); dd < bestD {
			best, bestD = string(r.ID), dd
		}
	}
	if best == "" {
		return " (the rule ids are listed in the README)"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the Levenshtein distance, enough to catch a typo.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// network reads a server's network allowance: a list of HOST:PORT
// destinations (sandbox.ParseDest), each checked where it is written.
func (d *decoder) network(n ast.Node, server string) (sandbox.Allowance, error) {
	what := fmt.Sprintf("servers.%s.network", server)
	items, err := d.list(n, what)
	if err != nil {
		return nil, err
	}
	var out sandbox.Allowance
	for _, it := range items {
		v := bare(it.value)
		if seq, ok := v.(*ast.SequenceNode); ok && seq.IsFlowStyle {
			// [::1]:5432 unquoted in a flow list reads as a list.
			return nil, d.at(it.at, "%s: an IPv6 destination is quoted: \"[::1]:5432\"", what)
		}
		switch v.(type) {
		case *ast.MappingValueNode, *ast.MappingNode:
			return nil, d.at(it.at, "%s: write each destination as one value, HOST:PORT with no space after the colon (quote it if in doubt)", what)
		}
		s, sn, err := d.text(it.value, what, it.at)
		if err != nil {
			return nil, err
		}
		dest, err := sandbox.ParseDest(s)
		if err != nil {
			return nil, d.at(sn, "%s: %v", what, err)
		}
		out = append(out, dest)
	}
	out = sandbox.NormalAllowance(out)
	if len(out) > sandbox.MaxDests {
		return nil, d.at(n, "%s: %d destinations; a server's allowance may name at most %d", what, len(out), sandbox.MaxDests)
	}
	return out, nil
}

func (d *decoder) calls(n ast.Node, server string) ([]probe.Call, error) {
	items, err := d.list(n, fmt.Sprintf("servers.%s.calls", server))
	if err != nil {
		return nil, err
	}
	var out []probe.Call
	for i, it := range items {
		what := fmt.Sprintf("call %d of server %q", i+1, server)
		var c probe.Call
		n, err := d.section(it.value, what, &callDoc{}, func(key string, keyN ast.Node) error {
			return d.at(keyN, "unknown key %q in %s; known: %s", key, what, keys(schemaKeys(&callDoc{})))
		}, func(e entry) error {
			var err error
			switch e.key {
			case "tool":
				c.Tool, _, err = d.text(e.value, "tool", e.keyN)
			case "arguments":
				c.Arguments, err = d.arguments(e.value)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, d.at(it.at, "%s is empty: it needs a tool", what)
		}
		if c.Tool == "" {
			return nil, d.at(it.at, "%s has no tool: name the tool to call with \"tool: NAME\"", what)
		}
		out = append(out, c)
	}
	return out, nil
}

// arguments turns a YAML mapping into the JSON object sent as the call's
// arguments, keys in the order written. Absent or null is no arguments
// (the probe sends {}).
func (d *decoder) arguments(n ast.Node) (json.RawMessage, error) {
	u := bare(n)
	switch u.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.MappingNode, *ast.MappingValueNode:
	default:
		return nil, d.at(u, "arguments must be a mapping (name: value), not %s", describe(u))
	}
	var b bytes.Buffer
	if err := d.json(&b, u, 0); err != nil {
		return nil, err
	}
	return json.RawMessage(b.Bytes()), nil
}

// maxDepth bounds nesting in arguments (and the recursion converting them).
const maxDepth = 64

func (d *decoder) json(b *bytes.Buffer, n ast.Node, depth int) error {
	if depth > maxDepth {
		return d.at(n, "arguments are nested more than %d levels deep", maxDepth)
	}
	switch v := bare(n).(type) {
	case nil, *ast.NullNode:
		b.WriteString("null")
	case *ast.MappingNode, *ast.MappingValueNode:
		es, err := d.entries(v, "arguments")
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, e := range es {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e.key)
			b.WriteByte(':')
			if err := d.json(b, e.value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case *ast.SequenceNode:
		b.WriteByte('[')
		for i, it := range v.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := d.json(b, it, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *ast.StringNode:
		writeString(b, v.Value)
	case *ast.LiteralNode:
		s, _ := scalar(v)
		writeString(b, s)
	case *ast.BoolNode:
		b.WriteString(strconv.FormatBool(v.Value))
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			b.WriteString(strconv.FormatInt(x, 10))
		case uint64:
			b.WriteString(strconv.FormatUint(x, 10))
		default:
			return d.at(v, "arguments: %q is not a number JSON can carry", tokenValue(v.Token))
		}
	case *ast.FloatNode:
		if math.IsInf(v.Value, 0) || math.IsNaN(v.Value) {
			return d.at(v, "arguments: %q is not a number JSON can carry", tokenValue(v.Token))
		}
		b.WriteString(strconv.FormatFloat(v.Value, 'g', -1, 64))
	case *ast.InfinityNode, *ast.NanNode:
		return d.at(v, "arguments: %s is not a number JSON can carry", tokenValue(v.GetToken()))
	default:
		return d.at(v, "arguments: %s cannot be written as JSON", describe(v))
	}
	return nil
}

// writeString writes s as a JSON string without HTML escaping: the
// arguments are shown in reports as they will be sent.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	// Encode ends with a newline.
	b.Truncate(b.Len() - 1)
}

// acknowledge reads the acknowledge section: per repository rule, the
// subjects the team has decided to live with and why.
//
//	acknowledge:
//	  unchecked-config:
//	    docs/example/.mcp.json: a sample for the docs; no client reads it
//	  policy-weakened:
//	    servers.fs.pass-env: fs needs GH_HOST since 2.0
//
// Only the repository's own rules are acknowledged here: a server's
// findings are acknowledged in the lock (approve --ack), bound to the
// content they are about.
func (d *decoder) acknowledge(n ast.Node) ([]Ack, error) {
	rules, err := d.entries(n, "acknowledge")
	if err != nil {
		return nil, err
	}
	var out []Ack
	for _, re := range rules {
		id := finding.RuleID(re.key)
		if !RepositoryRule(id) {
			return nil, d.at(re.keyN, "acknowledge: %q is not a rule of the repository (%s); a server's findings are acknowledged in the lock with approve --ack", re.key, keys(repositoryRuleNames()))
		}
		subjects, err := d.entries(re.value, "acknowledge."+re.key)
		if err != nil {
			return nil, err
		}
		if len(subjects) == 0 {
			return nil, d.at(re.keyN, "acknowledge.%s names no subject", re.key)
		}
		for _, se := range subjects {
			if strings.TrimSpace(se.key) == "" {
				return nil, d.at(se.keyN, "acknowledge.%s: a subject is empty", re.key)
			}
			reason, _, err := d.text(se.value, "acknowledge."+re.key+"."+se.key, se.keyN)
			if err != nil {
				return nil, err
			}
			a := Ack{Rule: id, Subject: se.key, Reason: reason}
			a.Line, a.Column = pos(se.keyN)
			d.mark(a.path(), se.keyN)
			out = append(out, a)
		}
	}
	return out, nil
}
