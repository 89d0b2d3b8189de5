package check

import (
	"slices"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/synth"
)

func TestReadsOrLists(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"get-env", true}, {"getEnv", true}, {"GET_ENV", true}, {"printEnv", true},
		{"directory_tree", true}, {"list_allowed_directories", true}, {"read_text_file", true},
		{"search_files", true}, {"env", true}, {"HTTPGetStatus", true},
		{"summarize", false}, {"format_text", false}, {"echo", false}, {"echo2", false},
		{"get_and_delete", false}, {"create_entities", false}, {"setValue", false},
		{"send-email", false}, {"", false},
	} {
		if got := readsOrLists(tc.name); got != tc.want {
			t.Errorf("readsOrLists(%q) = %v (words %q), want %v", tc.name, got, synth.Words(tc.name), tc.want)
		}
	}
}

// TestLeakLog: a canary in the answer to a read the checker asked for is
// one canary-returned note per tool; the same canary anywhere else is a
// canary-leak error, once per canary, at the first place it was seen.
func TestLeakLog(t *testing.T) {
	env := []sandbox.Canary{{Where: "env:GITHUB_TOKEN"}, {Where: "env:OPENAI_API_KEY"}}
	key := []sandbox.Canary{{Where: "~/.ssh/id_rsa"}}
	for _, tc := range []struct {
		name  string
		feed  func(l *leakLog)
		rules []string // rule:severity:subject, in order
	}{
		{"get-env twice", func(l *leakLog) {
			l.add(env, "launch-1/call-1", "tools/call", "get-env")
			l.add(env, "launch-1/call-2", "tools/call", "get-env")
		}, []string{"canary-returned:note:get-env"}},
		{"prompt and resource", func(l *leakLog) {
			l.add(key, "launch-1/initial", "prompts/get", "debug")
			l.add(key, "launch-1/initial", "resources/read", "file:///x")
		}, []string{"canary-returned:note:debug", "canary-returned:note:file:///x"}},
		{"a tool that does not read", func(l *leakLog) {
			l.add(key, "launch-1/call-1", "tools/call", "summarize")
		}, []string{"canary-leak:error:~/.ssh/id_rsa"}},
		{"in a definition", func(l *leakLog) {
			l.add(env, "launch-1/initial", "tools/list", "")
		}, []string{"canary-leak:error:env:GITHUB_TOKEN", "canary-leak:error:env:OPENAI_API_KEY"}},
		{"notification, stderr and stdout", func(l *leakLog) {
			l.add(key, "launch-1/initial", "notifications/message", "")
			l.add(key, "launch-1/initial", "stderr", "")
			l.add(env[:1], "launch-1/initial", "stdout", "")
		}, []string{"canary-leak:error:~/.ssh/id_rsa", "canary-leak:error:env:GITHUB_TOKEN"}},
		{"another server's canary from a read", func(l *leakLog) {
			l.addForeign([]sandbox.Canary{{Where: "~/.ssh/id_rsa of server a"}}, "launch-1/call-1", "tools/call", "get-env")
		}, []string{"canary-leak:error:~/.ssh/id_rsa of server a"}},
		{"asked and unasked", func(l *leakLog) {
			l.add(key, "launch-1/call-1", "tools/call", "read_file")
			l.add(key, "launch-1/after-call-1", "tools/list", "")
		}, []string{"canary-returned:note:read_file", "canary-leak:error:~/.ssh/id_rsa"}},
	} {
		l := &leakLog{}
		tc.feed(l)
		var got []string
		for _, f := range l.findings("s") {
			got = append(got, string(f.Rule)+":"+f.Severity.String()+":"+f.Subject)
			if f.Rule == finding.CanaryReturned && f.Kind == "" {
				t.Errorf("%s: canary-returned without a kind", tc.name)
			}
		}
		slices.Sort(got)
		want := slices.Clone(tc.rules)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, want)
		}
	}
}
