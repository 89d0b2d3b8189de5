package check

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestLeakLog: a canary the request pointed at is one canary-returned
// note per tool, prompt or resource; the same canary anywhere else is a
// canary-leak error, once per canary, at the first place it was seen.
func TestLeakLog(t *testing.T) {
	env := []sandbox.Canary{{Where: "env:GITHUB_TOKEN"}, {Where: "env:OPENAI_API_KEY"}}
	key := []sandbox.Canary{{Where: "~/.ssh/id_rsa"}}
	yes := func(sandbox.Canary) bool { return true }
	no := func(sandbox.Canary) bool { return false }
	for _, tc := range []struct {
		name  string
		feed  func(l *leakLog)
		rules []string // rule:severity:subject, in order
	}{
		{"get-env twice", func(l *leakLog) {
			l.add(env, "launch-1/call-1", "tools/call", "get-env", yes)
			l.add(env, "launch-1/call-2", "tools/call", "get-env", yes)
		}, []string{"canary-returned:note:get-env"}},
		{"prompt and resource", func(l *leakLog) {
			l.add(key, "launch-1/initial", "prompts/get", "debug", yes)
			l.add(key, "launch-1/initial", "resources/read", "file:///x", yes)
		}, []string{"canary-returned:note:debug", "canary-returned:note:file:///x"}},
		{"a read that did not point at it", func(l *leakLog) {
			l.add(key, "launch-1/call-1", "tools/call", "read_note", no)
		}, []string{"canary-leak:error:~/.ssh/id_rsa"}},
		{"one asked, one not, in one answer", func(l *leakLog) {
			l.add(append(slices.Clone(key), env[0]), "launch-1/call-1", "tools/call", "read_file", func(c sandbox.Canary) bool { return c.Where == key[0].Where })
		}, []string{"canary-returned:note:read_file", "canary-leak:error:env:GITHUB_TOKEN"}},
		{"in a definition", func(l *leakLog) {
			l.add(env, "launch-1/initial", "tools/list", "", nil)
		}, []string{"canary-leak:error:env:GITHUB_TOKEN", "canary-leak:error:env:OPENAI_API_KEY"}},
		{"notification, stderr and stdout", func(l *leakLog) {
			l.add(key, "launch-1/initial", "notifications/message", "", nil)
			l.add(key, "launch-1/initial", "stderr", "", nil)
			l.add(env[:1], "launch-1/initial", "stdout", "", nil)
		}, []string{"canary-leak:error:~/.ssh/id_rsa", "canary-leak:error:env:GITHUB_TOKEN"}},
		{"another server's canary from a read", func(l *leakLog) {
			l.addForeign([]sandbox.Canary{{Where: "~/.ssh/id_rsa of server a"}}, "launch-1/call-1", "tools/call", "get-env")
		}, []string{"canary-leak:error:~/.ssh/id_rsa of server a"}},
		{"asked and unasked", func(l *leakLog) {
			l.add(key, "launch-1/call-1", "tools/call", "read_file", yes)
			l.add(key, "launch-1/after-call-1", "tools/list", "", nil)
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

// TestBaitAsked: what makes a request point at a canary, and what does
// not. A tool's name never does; only arguments the checker chose (the
// policy's calls, the probe's prompt arguments, a resource's uri) and,
// for an environment canary, a description that says the tool returns
// environment variables.
func TestBaitAsked(t *testing.T) {
	sb, err := sandbox.New("s", sandbox.Options{Level: sandbox.Basic})
	if err != nil {
		t.Skipf("no sandbox: %v", err)
	}
	defer sb.Close()
	key := sandbox.Canary{Where: "~/.ssh/id_rsa"}
	dotenv := sandbox.Canary{Where: ".env"}
	gh := sandbox.Canary{Where: "env:GITHUB_TOKEN"}
	home := sb.Home()
	named := []probe.Call{
		{Tool: "read_text_file", Arguments: json.RawMessage(`{"path":"~/.ssh/id_rsa"}`)},
		{Tool: "read_text_file", Arguments: json.RawMessage(`{"path":` + jsonQuote(filepath.Join(home, ".ssh", "id_rsa")) + `}`)},
		{Tool: "read_text_file", Arguments: json.RawMessage(`{"path":"file://` + filepath.ToSlash(home) + `/.ssh/id_rsa"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"opts":{"paths":["x","~/.ssh"]}}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"glob":"~/.ssh/id_*"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"glob":"~/**/id_rsa"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"glob":"**/.ssh/**"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"path":"$HOME"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"path":".env"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"path":"/"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"path":"~/.aws/credentials"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"path":"~/.ssh/id_rsa.pub"}`)},
		{Tool: "read_many", Arguments: json.RawMessage(`{"glob":"~/.ssh/*.pub"}`)},
		{Tool: "getvar", Arguments: json.RawMessage(`{"name":"GITHUB_TOKEN"}`)},
	}
	b := newBait(sb, "", named)
	b.listed([]byte(`{"tools":[{"name":"get-env","description":"Returns all environment variables, helpful for debugging MCP server configuration"},
		{"name":"weather","description":"Returns the weather. Requires the API_KEY environment variable."},
		{"name":"read_key","description":"Read a key.","inputSchema":{"type":"object","properties":{"path":{"type":"string","default":"~/.ssh/id_rsa"}}}}]}`))
	for _, tc := range []struct {
		method, subject, request string
		c                        sandbox.Canary
		want                     bool
	}{
		{"tools/call", "read_text_file", `{"name":"read_text_file","arguments":{"path":"~/.ssh/id_rsa"}}`, key, true},
		{"tools/call", "read_text_file", `{"name":"read_text_file","arguments":{"path":` + jsonQuote(filepath.Join(home, ".ssh", "id_rsa")) + `}}`, key, true},
		{"tools/call", "read_text_file", `{"name":"read_text_file","arguments":{"path":"file://` + filepath.ToSlash(home) + `/.ssh/id_rsa"}}`, key, true},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"opts":{"paths":["x","~/.ssh"]}}}`, key, true},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"glob":"~/.ssh/id_*"}}`, key, true},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"glob":"~/**/id_rsa"}}`, key, true},
		// Relative to the working directory (the project, in HOME):
		// ~/.ssh is not below it.
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"glob":"**/.ssh/**"}}`, key, false},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":"$HOME"}}`, key, true},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":"$HOME"}}`, dotenv, true}, // the work dir is in HOME
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":".env"}}`, dotenv, true},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":".env"}}`, key, false},
		// The root holds everything, the user's world too: no pointer.
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":"/"}}`, key, false},
		// Another file, a neighbour, a glob that misses.
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":"~/.aws/credentials"}}`, key, false},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"path":"~/.ssh/id_rsa.pub"}}`, key, false},
		{"tools/call", "read_many", `{"name":"read_many","arguments":{"glob":"~/.ssh/*.pub"}}`, key, false},
		// The same path, but not a call the policy names: the planner's
		// arguments came from the tool's schema (its default).
		{"tools/call", "read_key", `{"name":"read_key","arguments":{"path":"~/.ssh/id_rsa"}}`, key, false},
		{"tools/call", "read_text_file", `{"name":"read_text_file","arguments":{"path":"~/.ssh/id_rsa","x":1}}`, key, false},
		// A name that reads as a read is nothing.
		{"tools/call", "read_text_file", `{"name":"read_text_file","arguments":{"path":"notes.txt"}}`, key, false},
		// Environment canaries: a description that says so, an
		// argument that names the variable.
		{"tools/call", "get-env", `{"name":"get-env","arguments":{}}`, gh, true},
		{"tools/call", "get-env", `{"name":"get-env","arguments":{}}`, key, false},
		{"tools/call", "weather", `{"name":"weather","arguments":{}}`, gh, false},
		{"tools/call", "getvar", `{"name":"getvar","arguments":{"name":"GITHUB_TOKEN"}}`, gh, true},
		{"tools/call", "read_text_file", `{"name":"read_text_file","arguments":{"path":"~/.ssh/id_rsa"}}`, gh, false},
		// Resources by their uri; prompts by their arguments.
		{"resources/read", "file://" + filepath.ToSlash(home) + "/.ssh/id_rsa", `{"uri":"file://` + filepath.ToSlash(home) + `/.ssh/id_rsa"}`, key, true},
		{"resources/read", "note://1", `{"uri":"note://1"}`, key, false},
		{"prompts/get", "debug", `{"name":"debug","arguments":{"topic":"example"}}`, key, false},
		{"prompts/get", "debug", `{"name":"debug","arguments":{"file":"~/.ssh/id_rsa"}}`, key, true},
		// Not an answer to a read of the checker's.
		{"tools/list", "", ``, key, false},
		{"notifications/message", "", ``, gh, false},
	} {
		judge := b.asked(tc.method, tc.subject, json.RawMessage(tc.request))
		got := judge != nil && judge(tc.c)
		if got != tc.want {
			t.Errorf("%s %s %s, canary %s: asked = %v, want %v", tc.method, tc.subject, tc.request, tc.c.Where, got, tc.want)
		}
	}
}

func TestReturnsEnv(t *testing.T) {
	for _, tc := range []struct {
		desc string
		want bool
	}{
		{"Returns all environment variables, helpful for debugging MCP server configuration", true},
		{"Print the env vars of the server.", true},
		{"Lists environment variables.", true},
		{"Dump the process environment", true},
		{"Returns the weather. Requires the API_KEY environment variable.", false},
		{"Read a key.", false},
		{"Set an environment variable.", false},
		{"Summarize a text.", false},
		{"", false},
	} {
		if got := returnsEnv(tc.desc); got != tc.want {
			t.Errorf("returnsEnv(%q) = %v, want %v", tc.desc, got, tc.want)
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCanaryBait: a server that answers with a planted secret no request
// pointed at fails the check with canary-leak, whatever its tool is
// called and however it dresses the secret (base64, hex, split over two
// content blocks, in structuredContent), and through resources/read and
// prompts/get too; a server steering the checker's own arguments at the
// key through its schema gains nothing. The honest ones, a file tool read
// at the path the policy names and a tool that says it returns the
// environment, are canary-returned notes and pass.
func TestCanaryBait(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	for _, tc := range []struct {
		variant string
		calls   []probe.Call // the policy's
		leak    string       // where the canary-leak must be seen ("": none)
	}{
		{"plain", nil, "tools/call"},
		{"base64", nil, "tools/call"},
		{"hex", nil, "tools/call"},
		{"split", nil, "tools/call"},
		{"structured", nil, "tools/call"},
		{"schema", nil, "tools/call"},
		{"env-key", nil, "tools/call"},
		{"resource", nil, "resources/read"},
		{"prompt", nil, "prompts/get"},
		// The policy points read_note at the key; the tool reads
		// another file (the same key, but not asked through this
		// argument): still a leak.
		{"plain", []probe.Call{{Tool: "read_note", Arguments: json.RawMessage(`{"id":"~/.aws/credentials"}`)}}, "tools/call"},
		{"path", []probe.Call{{Tool: "read_text_file", Arguments: json.RawMessage(`{"path":"~/.ssh/id_rsa"}`)}}, ""},
		{"env", nil, ""},
	} {
		name := tc.variant
		if tc.calls != nil {
			name += "/policy"
		}
		t.Run(name, func(t *testing.T) {
			s := config.Server{Name: "bait", Type: "stdio", Command: os.Args[0], File: ".mcp.json", Line: 1, Client: "claude-code",
				Env: map[string]string{"FAKE_SCENARIO": "canary-bait", "FAKE_VARIANT": tc.variant}}
			opts := Options{Servers: []config.Server{s}, All: true, LockPath: "mcp-lock.json",
				Probe:   probe.Options{Launches: 1, WarmupCalls: 0, RequestTimeout: 10 * time.Second, MaxResourceReads: -1, NoPromptGets: true},
				Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1}
			lk, data := pinReal(t, opts)
			opts.Lock, opts.LockData = lk, data
			opts.Probe = probe.Options{Launches: 1, WarmupCalls: 1, RequestTimeout: 10 * time.Second, Calls: tc.calls}
			r := Compare(context.Background(), opts)
			if r.Servers[0].Reason != "" {
				t.Fatalf("held: %s", r.Servers[0].Reason)
			}
			var leak, leakThere, returned bool
			for _, f := range r.Findings() {
				if f.Rule == finding.CanaryLeak && f.Severity == finding.Error {
					leak = true
					leakThere = leakThere || strings.Contains(f.Message, "(in "+tc.leak)
				}
				returned = returned || f.Rule == finding.CanaryReturned
			}
			if tc.leak != "" {
				if !leakThere || r.Summary.ExitCode != report.ExitDrift {
					t.Errorf("the secret came back unasked: want canary-leak and exit 1, got exit %d:\n%s", r.Summary.ExitCode, dumpFindings(r))
				}
				return
			}
			if leak || !returned || r.Summary.ExitCode != report.ExitOK {
				t.Errorf("the secret came back asked for: want canary-returned and exit 0, got exit %d:\n%s", r.Summary.ExitCode, dumpFindings(r))
			}
		})
	}
}

// TestReturnsFile: a tool whose description says it shows a credential
// file (a kubernetes server's kubeconfig viewer) is asked for that file by
// being called; one that only needs it, or shows another file, is not.
func TestReturnsFile(t *testing.T) {
	for _, tc := range []struct {
		desc, where string
		want        bool
	}{
		{"Get the current Kubernetes configuration (kubeconfig) content.", "~/.kube/config", true},
		{"Show the kubeconfig of the current context as YAML.", "~/.kube/config", true},
		{"View the merged kube config.", "~/.kube/config", true},
		{"List pods. Uses the kubeconfig to reach the cluster.", "~/.kube/config", false},
		{"Returns the AWS credentials profile in use.", "~/.aws/credentials", true},
		{"Show the kubeconfig.", "~/.ssh/id_rsa", false},
		{"Lists S3 buckets with your AWS credentials.", "~/.aws/credentials", false},
		{"", "~/.kube/config", false},
	} {
		if got := returnsFile(tc.desc, tc.where); got != tc.want {
			t.Errorf("returnsFile(%q, %s) = %v, want %v", tc.desc, tc.where, got, tc.want)
		}
	}
}
