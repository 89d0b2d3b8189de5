package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// testRun is the CLI's defaults: no --timeout (each server's follows its plan).
var testRun = Run{WarmupCalls: 5, Launches: 2, Sandbox: sandbox.Basic, RequestTimeout: 30 * time.Second, Profile: ProfileQuick, DeepWarmupCalls: 50, DeepLaunches: 5}

func mustParse(t *testing.T, src string) *Policy {
	t.Helper()
	if src == "" {
		return nil
	}
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCombined: every way a pull request's policy can lower the bar is
// reported and not in force; every way it can raise it is in force.
func TestCombined(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		base, pr string
		server   string
		want     string   // the settings in force for server, summarized
		weak     []string // "path before -> after @line" of each finding
	}{
		{
			name:   "no policy either side",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0",
		},
		{
			name:   "an acknowledgement added",
			base:   "version: 1\nacknowledge:\n  unchecked-config:\n    a/.mcp.json: kept\n",
			pr:     "version: 1\nacknowledge:\n  unchecked-config:\n    a/.mcp.json: kept\n    b/.mcp.json: sample\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"acknowledge.unchecked-config.b/.mcp.json - -> sample @5"},
		},
		{
			name:   "warmup-calls lowered in the defaults",
			base:   "version: 1\ndefaults:\n  warmup-calls: 8\n",
			pr:     "version: 1\ndefaults:\n  warmup-calls: 0\n",
			server: "fs",
			want:   "warmup=8 launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"defaults.warmup-calls 8 -> 0 @3"},
		},
		{
			name:   "a new policy lowers below the run's values",
			pr:     "version: 1\ndefaults:\n  warmup-calls: 0\n  launches: 1\n  sandbox: off\n",
			server: "fs",
			want:   "warmup=5 launches=2 sandbox=basic env=[] rules=map[] calls=0",
			weak:   []string{"defaults.warmup-calls 5 -> 0 @3", "defaults.launches 2 -> 1 @4", "defaults.sandbox basic -> off @5"},
		},
		{
			name:   "a server section lowers what the defaults set",
			base:   "version: 1\ndefaults:\n  launches: 3\n",
			pr:     "version: 1\ndefaults:\n  launches: 3\nservers:\n  fs:\n    launches: 1\n",
			server: "fs",
			want:   "warmup=- launches=3 sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"servers.fs.launches 3 -> 1 @6"},
		},
		{
			name:   "the policy file deleted",
			base:   "version: 1\nservers:\n  fs:\n    sandbox: strict\n    warmup-calls: 9\n",
			server: "fs",
			want:   "warmup=9 launches=- sandbox=strict env=[] rules=map[] calls=0",
			weak:   []string{"servers.fs.warmup-calls 9 -> 5 @0", "servers.fs.sandbox strict -> basic @0"},
		},
		{
			// package-changed is an error by default: a server whose
			// policy lowers it to a warning passes a new release, so a
			// pull request that does so is a weakening.
			name:   "package-changed lowered for one server",
			pr:     "version: 1\nservers:\n  fs:\n    rules:\n      package-changed: warning\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[package-changed:error] calls=0",
			weak:   []string{"servers.fs.rules.package-changed error -> warning @5"},
		},
		{
			name:   "rules: off and lowered are weakenings, raised is in force",
			base:   "version: 1\nrules:\n  model-instruction: error\n",
			pr:     "version: 1\nrules:\n  tool-shadowing: error\n  model-instruction: warning\n  sensitive-path: error\n  confusable-name: off\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[confusable-name:warning model-instruction:error sensitive-path:error tool-shadowing:error] calls=0",
			weak:   []string{"rules.confusable-name warning -> off @6", "rules.model-instruction error -> warning @4"},
		},
		{
			name:   "pass-env added in a server section",
			base:   "version: 1\ndefaults:\n  pass-env: [HTTPS_PROXY]\n",
			pr:     "version: 1\ndefaults:\n  pass-env: [HTTPS_PROXY]\nservers:\n  fs:\n    pass-env: [NPM_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN]\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[HTTPS_PROXY] rules=map[] calls=0",
			weak:   []string{"servers.fs.pass-env [HTTPS_PROXY] -> [HTTPS_PROXY, NPM_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN] @6"},
		},
		{
			name:   "pass-env removed is in force",
			base:   "version: 1\ndefaults:\n  pass-env: [A, B]\n",
			pr:     "version: 1\ndefaults:\n  pass-env: [B]\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[B] rules=map[] calls=0",
		},
		{
			name:   "a warm-up call removed; an added one is in force",
			base:   "version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n      - tool: b\n",
			pr:     "version: 1\nservers:\n  fs:\n    calls:\n      - tool: b\n      - tool: c\n",
			server: "fs",
			want:   "warmup=6 launches=- sandbox= env=[] rules=map[] calls=3",
			weak:   []string{"servers.fs.calls a\nb -> b\nc @4"},
		},
		{
			name:   "a write call the pull request adds is not made; one the base names is",
			base:   "version: 1\nservers:\n  fs:\n    calls:\n      - tool: set\n",
			pr:     "version: 1\nservers:\n  fs:\n    calls:\n      - tool: set\n      - tool: delete_repository\n      - tool: getOrCreateUser\n      - tool: get_item\n",
			server: "fs",
			want:   "warmup=6 launches=- sandbox= env=[] rules=map[] calls=2",
			weak:   []string{"servers.fs.calls set -> set\ndelete_repository\ngetOrCreateUser\nget_item @4"},
		},
		{
			name:   "added calls do not take the base's places",
			base:   "version: 1\ndefaults:\n  warmup-calls: 3\n",
			pr:     "version: 1\ndefaults:\n  warmup-calls: 3\nservers:\n  fs:\n    calls:\n      - tool: harmless\n      - tool: harmless2\n",
			server: "fs",
			want:   "warmup=5 launches=- sandbox= env=[] rules=map[] calls=2",
		},
		{
			name:   "raised counts, stricter sandbox and shorter time-outs are in force",
			base:   "version: 1\ndefaults:\n  warmup-calls: 3\n  timeout: 5m\n",
			pr:     "version: 1\ndefaults:\n  warmup-calls: 20\n  launches: 4\n  sandbox: strict\n  timeout: 1m\n",
			server: "fs",
			want:   "warmup=20 launches=4 sandbox=strict env=[] rules=map[] calls=0 timeout=1m0s",
		},
		{
			name:   "a longer time-out is not in force",
			base:   "version: 1\ndefaults:\n  timeout: 1m\n",
			pr:     "version: 1\ndefaults:\n  timeout: 10m\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0 timeout=1m0s",
		},
		{
			// The run's time-out follows each server's plan: one side's
			// time-out stands alone, in either direction.
			name:   "a time-out only the base sets",
			base:   "version: 1\ndefaults:\n  timeout: 5m\n",
			pr:     "version: 1\ndefaults:\n  warmup-calls: 6\n",
			server: "fs",
			want:   "warmup=6 launches=- sandbox= env=[] rules=map[] calls=0 timeout=5m0s",
		},
		{
			name:   "a time-out only the pull request sets",
			base:   "version: 1\ndefaults:\n  warmup-calls: 6\n",
			pr:     "version: 1\ndefaults:\n  warmup-calls: 6\nservers:\n  fs:\n    timeout: 90s\n",
			server: "fs",
			want:   "warmup=6 launches=- sandbox= env=[] rules=map[] calls=0 timeout=1m30s",
		},
		{
			// call-timeout from either file reaches the server (the
			// shorter one): it was dropped under --base before.
			name:   "call-timeout survives the merge",
			base:   "version: 1\nservers:\n  fs:\n    call-timeout: 20s\n",
			pr:     "version: 1\nservers:\n  fs:\n    call-timeout: 20s\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0 call-timeout=20s",
		},
		{
			// Both directions of the profile: deep in the base and quick
			// in the pull request is a weakening and deep stays in force;
			// the counts neither sets read as deep's (50), so the lowered
			// profile is reported once.
			name:   "profile deep lowered to quick",
			base:   "version: 1\nservers:\n  fs:\n    profile: deep\n",
			pr:     "version: 1\nservers:\n  fs:\n    profile: quick\n",
			server: "fs",
			want:   "profile=deep warmup=- launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"servers.fs.profile deep -> quick @4"},
		},
		{
			name:   "profile deep raised from quick is in force",
			base:   "version: 1\ndefaults:\n  profile: quick\n",
			pr:     "version: 1\ndefaults:\n  profile: quick\nservers:\n  fs:\n    profile: deep\n",
			server: "fs",
			want:   "profile=deep warmup=- launches=- sandbox= env=[] rules=map[] calls=0",
		},
		{
			name:   "profile deep removed with the file",
			base:   "version: 1\ndefaults:\n  profile: deep\n",
			server: "fs",
			want:   "profile=deep warmup=- launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"defaults.profile deep -> quick @0"},
		},
		{
			// A count the pull request sets beside the base's deep
			// profile is compared with deep's, not quick's.
			name:   "a count below deep's beside a deep base",
			base:   "version: 1\nservers:\n  fs:\n    profile: deep\n",
			pr:     "version: 1\nservers:\n  fs:\n    profile: deep\n    warmup-calls: 5\n",
			server: "fs",
			want:   "profile=deep warmup=50 launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"servers.fs.warmup-calls 50 -> 5 @5"},
		},
		{
			// A pull request that drops the deep profile and sets its
			// own count keeps neither: the base's profile and deep's
			// count stay in force.
			name:   "profile dropped for a count",
			base:   "version: 1\nservers:\n  fs:\n    profile: deep\n",
			pr:     "version: 1\nservers:\n  fs:\n    warmup-calls: 7\n",
			server: "fs",
			want:   "profile=deep warmup=50 launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"servers.fs.profile deep -> quick @3", "servers.fs.warmup-calls 50 -> 7 @4"},
		},
		{
			// Unset pins the answers of prompts without required
			// arguments: false in the pull request pins none.
			name:   "pin-prompts turned off against the default",
			pr:     "version: 1\nservers:\n  fs:\n    pin-prompts: false\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0",
			weak:   []string{"servers.fs.pin-prompts unset (prompts without required arguments) -> false @4"},
		},
		{
			name:   "pin-prompts true in the base dropped in the defaults",
			base:   "version: 1\ndefaults:\n  pin-prompts: true\n",
			pr:     "version: 1\ndefaults:\n  launches: 2\n",
			server: "fs",
			want:   "warmup=- launches=2 sandbox= env=[] rules=map[] calls=0 pin-prompts=true",
			weak:   []string{"defaults.pin-prompts true -> unset (prompts without required arguments) @2"},
		},
		{
			name:   "pin-prompts raised is in force, and not a weakening",
			base:   "version: 1\nservers:\n  fs:\n    pin-prompts: false\n",
			pr:     "version: 1\nservers:\n  fs:\n    pin-prompts: true\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0 pin-prompts=true",
		},
		{
			name:   "pin-prompts false on both sides stays false",
			base:   "version: 1\nservers:\n  fs:\n    pin-prompts: false\n",
			pr:     "version: 1\nservers:\n  fs:\n    pin-prompts: false\n",
			server: "fs",
			want:   "warmup=- launches=- sandbox= env=[] rules=map[] calls=0 pin-prompts=false",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Combined{Base: mustParse(t, tt.base), PR: mustParse(t, tt.pr), Run: testRun}
			if got := summarize(c.Effective(tt.server, Fixed{})); got != tt.want {
				t.Errorf("Effective:\n got %s\nwant %s", got, tt.want)
			}
			var weak []string
			for _, f := range c.Weakenings([]string{tt.server}, "p.yaml") {
				if f.Rule != "policy-weakened" || f.File != "p.yaml" || !strings.Contains(f.Message, "takes effect once merged") {
					t.Errorf("finding %+v", f)
				}
				weak = append(weak, fmt.Sprintf("%s %s -> %s @%d", f.Field, f.Before, f.After, f.Line))
			}
			if strings.Join(weak, "|") != strings.Join(tt.weak, "|") {
				t.Errorf("Weakenings:\n got %q\nwant %q", weak, tt.weak)
			}
		})
	}
}

func summarize(s Settings) string {
	n := func(p *int) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	rules := map[string]string{}
	for k, v := range s.Rules {
		rules[string(k)] = v.String()
	}
	out := ""
	if s.Profile != "" {
		out = "profile=" + s.Profile + " "
	}
	out += fmt.Sprintf("warmup=%s launches=%s sandbox=%s env=[%s] rules=%v calls=%d", n(s.WarmupCalls), n(s.Launches), s.Sandbox, strings.Join(s.PassEnv, " "), rules, len(s.Calls))
	if s.Timeout > 0 {
		out += " timeout=" + s.Timeout.String()
	}
	if s.CallTimeout > 0 {
		out += " call-timeout=" + s.CallTimeout.String()
	}
	if s.PinPrompts != nil {
		out += fmt.Sprintf(" pin-prompts=%v", *s.PinPrompts)
	}
	return out
}

// TestWriteCallAddedMessage: the finding names the write calls the pull
// request added, and only those.
func TestWriteCallAddedMessage(t *testing.T) {
	t.Parallel()
	base, err := Parse("b.yaml", []byte("version: 1\nservers:\n  fs:\n    calls:\n      - tool: set\n"))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Parse("p.yaml", []byte("version: 1\nservers:\n  fs:\n    calls:\n      - tool: set\n      - tool: slack.add_reaction\n      - tool: get_item\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Combined{Base: base, PR: pr, Run: Run{WarmupCalls: 5, Launches: 2}}
	fs := c.Weakenings([]string{"fs"}, "p.yaml")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `to tools whose names read as writes (slack.add_reaction), which the checker would make`) || strings.Contains(fs[0].Message, "get_item") {
		t.Errorf("findings %+v", fs)
	}
}

// TestTimeoutCaps: no policy holds a server longer than the caps.
func TestTimeoutCaps(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"version: 1\ndefaults:\n  timeout: 100000h\n",
		"version: 1\nservers:\n  fs:\n    timeout: 11m\n",
		"version: 1\ndefaults:\n  request-timeout: 3m\n",
	} {
		_, err := Parse("p.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "above the cap") {
			t.Errorf("Parse(%q) = %v, want the cap", src, err)
		}
	}
	if _, err := Parse("p.yaml", []byte("version: 1\ndefaults:\n  timeout: 10m\n  request-timeout: 2m\n")); err != nil {
		t.Errorf("at the caps: %v", err)
	}
}
