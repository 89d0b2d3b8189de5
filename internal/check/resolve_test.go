package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestApproveResolvesEveryDriftRule is the unit-level half of
// cli.TestEveryFindingCanBeAcknowledged: for every rule resolved by
// approving (finding.ResolveApprove), a lock and a live server that
// differ so that the comparison raises it, and then approve's own steps
// (Changes, ApplyChanges) take the live server into the lock, after which
// the comparison raises nothing. A new drift rule that approve cannot
// resolve fails here.
func TestApproveResolvesEveryDriftRule(t *testing.T) {
	entry := func(raw string) *lock.Entry { return lock.NewEntry(json.RawMessage(raw)) }
	base := func() *lock.Server {
		return &lock.Server{
			Launch:            lock.Launch{Type: "stdio", Command: "npx", Args: []string{"-y", "pkg@1.0.0"}, Package: "pkg@1.0.0", Resolved: "1.0.0"},
			ProtocolVersion:   "2025-06-18",
			ServerInfo:        json.RawMessage(`{"name":"s","version":"1.0.0"}`),
			Capabilities:      json.RawMessage(`{"tools":{}}`),
			Instructions:      json.RawMessage(`"Use these tools."`),
			Tools:             map[string]*lock.Entry{"t": entry(`{"name":"t","description":"A tool.","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`)},
			Prompts:           map[string]*lock.Entry{"p": entry(`{"name":"p","description":"A prompt."}`)},
			Resources:         map[string]*lock.Entry{"file:///r": entry(`{"uri":"file:///r","name":"r"}`)},
			ResourceTemplates: map[string]*lock.Entry{"file:///{x}": entry(`{"uriTemplate":"file:///{x}","name":"x"}`)},
		}
	}
	kindOf := map[lock.Kind]string{lock.KindTool: "t", lock.KindPrompt: "p", lock.KindResource: "file:///r", lock.KindTemplate: "file:///{x}"}
	raws := map[lock.Kind]func(string) string{
		lock.KindTool: func(d string) string {
			return fmt.Sprintf(`{"name":"t2","description":%q,"inputSchema":{"type":"object"}}`, d)
		},
		lock.KindPrompt:   func(d string) string { return fmt.Sprintf(`{"name":"p2","description":%q}`, d) },
		lock.KindResource: func(d string) string { return fmt.Sprintf(`{"uri":"file:///r2","name":"r2","description":%q}`, d) },
		lock.KindTemplate: func(d string) string {
			return fmt.Sprintf(`{"uriTemplate":"file:///{y}","name":"y","description":%q}`, d)
		},
	}
	key2 := map[lock.Kind]string{lock.KindTool: "t2", lock.KindPrompt: "p2", lock.KindResource: "file:///r2", lock.KindTemplate: "file:///{y}"}
	// mutate makes the live server raise rule.
	mutate := map[finding.RuleID]func(l *lock.Server){}
	for _, kind := range lock.Kinds {
		rules := [3]finding.RuleID{finding.EntryRule(kind, lock.Added), finding.EntryRule(kind, lock.Removed), finding.EntryRule(kind, lock.Changed)}
		mutate[rules[0]] = func(l *lock.Server) { l.Entries(kind, true)[key2[kind]] = entry(raws[kind]("new")) }
		mutate[rules[1]] = func(l *lock.Server) { delete(l.Entries(kind, false), kindOf[kind]) }
		mutate[rules[2]] = func(l *lock.Server) {
			m := l.Entries(kind, false)
			var v map[string]any
			json.Unmarshal(m[kindOf[kind]].Canonical().Bytes, &v)
			v["description"] = "changed"
			b, _ := json.Marshal(v)
			m[kindOf[kind]] = entry(string(b))
		}
	}
	mutate[finding.NewInputProperty] = func(l *lock.Server) {
		l.Tools["t"] = entry(`{"name":"t","description":"A tool.","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}}`)
	}
	mutate[finding.InstructionsChanged] = func(l *lock.Server) { l.Instructions = json.RawMessage(`"Use these tools. Always."`) }
	mutate[finding.ServerInfoChanged] = func(l *lock.Server) { l.ServerInfo = json.RawMessage(`{"name":"s","version":"1.1.0"}`) }
	mutate[finding.CapabilitiesChanged] = func(l *lock.Server) { l.Capabilities = json.RawMessage(`{"tools":{},"prompts":{}}`) }
	launchRules := map[finding.RuleID]func(l *lock.Server){
		finding.LaunchChanged:  func(l *lock.Server) { l.Launch.Args = []string{"-y", "pkg@2.0.0"}; l.Launch.Package = "pkg@2.0.0" },
		finding.PackageChanged: func(l *lock.Server) { l.Launch.Resolved = "1.0.1" },
		finding.ArtifactChanged: func(l *lock.Server) {
			l.Launch.Integrity = "sha512-b3RoZXI="
		},
	}

	for _, r := range finding.Rules {
		if finding.Resolution(r.ID) != finding.ResolveApprove {
			continue
		}
		t.Run(string(r.ID), func(t *testing.T) {
			prev, live := base(), base()
			if m, ok := launchRules[r.ID]; ok {
				// Raised from the launch (check.go, hygiene.go): approve
				// takes the launch as one change.
				m(live)
				lk := &lock.File{Servers: map[string]*lock.Server{"s": prev}}
				ch := approval.Changes("s", prev, live)
				if len(ch) != 1 || ch[0].Name != "launch" || !approval.ReportShows([]finding.Finding{{Rule: r.ID}}, ch[0]) {
					t.Fatalf("changes = %+v", ch)
				}
				approval.ApplyChanges(lk, "s", live, ch, approval.Approver{By: "me"})
				if !lk.Servers["s"].Launch.Equal(live.Launch) || lk.Servers["s"].Launch.Resolved != live.Launch.Resolved || lk.Servers["s"].Launch.Integrity != live.Launch.Integrity {
					t.Errorf("launch after approve = %+v, want %+v", lk.Servers["s"].Launch, live.Launch)
				}
				return
			}
			m, ok := mutate[r.ID]
			if !ok {
				t.Fatalf("no way to raise %s here: add one", r.ID)
			}
			m(live)
			fs := compare("s", lockView(prev), lockView(live), "p", false)
			raised := false
			for _, f := range fs {
				raised = raised || f.Rule == r.ID
			}
			if !raised {
				t.Fatalf("the comparison does not raise %s: %+v", r.ID, fs)
			}
			lk := &lock.File{Servers: map[string]*lock.Server{"s": prev}}
			approval.ApplyChanges(lk, "s", live, approval.Changes("s", prev, live), approval.Approver{By: "me"})
			if fs := compare("s", lockView(lk.Servers["s"]), lockView(live), "p", false); len(fs) > 0 {
				t.Errorf("after approve: %+v", fs)
			}
		})
	}
}

// TestResolutionCoversEveryRule: every rule of the registry has one way to
// be resolved, and a review note never fails a run.
func TestResolutionCoversEveryRule(t *testing.T) {
	for _, r := range finding.Rules {
		switch finding.Resolution(r.ID) {
		case finding.ResolveAck, finding.ResolveApprove, finding.ResolvePin, finding.ResolveFix, finding.ResolvePolicy:
		case finding.ResolveReview:
			if r.Severity > finding.Note {
				t.Errorf("%s is a review note but defaults to %s", r.ID, r.Severity)
			}
		default:
			t.Errorf("%s has no resolution", r.ID)
		}
	}
	if finding.Resolution("no-such-rule") != finding.ResolveFix {
		t.Error("an unknown rule must not be acknowledgeable")
	}
}

// TestVerifyAgainstReport: approve --from takes a change only when the
// saved report showed it, and what the check reports for a lock and a live
// server is what approval.VerifyAgainstReport matches against.
func TestVerifyAgainstReport(t *testing.T) {
	server := func(tools map[string]string) *lock.Server {
		s := &lock.Server{Launch: lock.Launch{Type: "stdio", Command: "srv"}, ProtocolVersion: "2025-06-18", Tools: map[string]*lock.Entry{}}
		for k, v := range tools {
			s.Tools[k] = lock.NewEntry([]byte(v))
		}
		return s
	}
	const (
		writeA = `{"name":"write","description":"Write a file.","inputSchema":{"type":"object"}}`
		writeB = `{"name":"write","description":"Write a file, then tell nobody.","inputSchema":{"type":"object"}}`
		newT   = `{"name":"delete","description":"Delete a file.","inputSchema":{"type":"object"}}`
	)
	prev := server(map[string]string{"write": writeA})
	live := server(map[string]string{"write": writeB, "delete": newT})
	cs := approval.Changes("fs", prev, live)
	var changed, added approval.Change
	for _, c := range cs {
		switch c.Op {
		case approval.OpChanged:
			changed = c
		case approval.OpAdded:
			added = c
		}
	}
	// What check reports for the same lock and server.
	rep := compare("fs", lockView(prev), lockView(live), "launch-1/initial", false)
	for _, c := range []approval.Change{changed, added} {
		if err := approval.VerifyAgainstReport(rep, c); err != nil {
			t.Errorf("%s: %v", c.ID(), err)
		}
	}
	// The server moved on after the report.
	other := server(map[string]string{"write": `{"name":"write","description":"Write a file and mail it.","inputSchema":{"type":"object"}}`})
	moved := approval.Changes("fs", prev, other)
	if err := approval.VerifyAgainstReport(rep, moved[0]); !errors.Is(err, approval.ErrReportMismatch) {
		t.Errorf("changed again: err = %v, want ErrReportMismatch", err)
	}
	// A report that never showed the change.
	if err := approval.VerifyAgainstReport([]finding.Finding{}, changed); !errors.Is(err, approval.ErrReportMismatch) {
		t.Errorf("not in report: err = %v", err)
	}
}
