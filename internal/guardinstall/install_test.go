package guardinstall

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestInstallUninstall rewrites a config golden-file style and checks that
// uninstall gives back the original bytes, byte for byte, without the backup.
func TestInstallUninstall(t *testing.T) {
	in := filepath.Join("testdata", "install", "mcp.json")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := config.Parse(in, data)
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New()
	for _, s := range servers {
		if s.Name == "fs" || s.Name == "memory" {
			lk.Servers[s.Name] = &lock.Server{Launch: pinned.Launch(s), Tools: map[string]*lock.Entry{}}
		}
	}
	lk.Servers["memory"].Launch.Args = []string{"--approved-arg"}
	out, changes, err := Install(in, data, Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck", Flags: []string{"--mode", "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"fs": "guarded", "memory": "guarded", "remote": "not pinned", "unpinned": "not pinned"}
	for _, c := range changes {
		if want[c.Server] != c.Action {
			t.Errorf("%s: %s, want %s", c.Server, c.Action, want[c.Server])
		}
		if (c.Warning != "") != (c.Server == "memory") {
			t.Errorf("%s: warning %q", c.Server, c.Warning)
		}
	}
	checkGolden(t, filepath.Join("testdata", "install", "mcp.json.guarded"), out)
	// The rewritten config is still a config, and the guarded server keeps
	// its env and cwd.
	after, err := config.Parse(in, out)
	if err != nil {
		t.Fatalf("rewritten config does not parse: %v", err)
	}
	for _, s := range after {
		if s.Name == "fs" && (s.Command != "mcp-lockcheck" || s.Env["NODE_OPTIONS"] == "" || s.Cwd != "/srv") {
			t.Errorf("fs after install: %+v", s)
		}
	}
	again, changes2, err := Install(in, out, Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck"})
	if err != nil || string(again) != string(out) {
		t.Errorf("second install changed the file: %v", err)
	}
	for _, c := range changes2 {
		if c.Server == "fs" && c.Action != "already guarded" {
			t.Errorf("second install: %+v", c)
		}
	}
	back, _, err := Uninstall(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != string(data) {
		t.Errorf("uninstall did not restore the original bytes:\n%s", back)
	}
	back2, _, _ := Uninstall(in, back)
	if string(back2) != string(back) {
		t.Errorf("second uninstall changed the file")
	}
	orig, _ := config.Parse(in, data)
	restored, err := config.Parse(in, back)
	if err != nil {
		t.Fatal(err)
	}
	for i := range orig {
		if !pinned.Launch(orig[i]).Equal(pinned.Launch(restored[i])) {
			t.Errorf("%s: restored launch %+v, want %+v", orig[i].Name, pinned.Launch(restored[i]), pinned.Launch(orig[i]))
		}
	}
}

// roundTrips are configs in every shape guard install edits: JSON and
// JSONC, every way of writing args, the VS Code, Zed and opencode shapes.
var roundTrips = []struct{ name, file, data string }{
	{"multi-line args", ".mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"pkg@1.0.0\"\n      ]\n    }\n  }\n}\n"},
	{"inline args without spaces", ".mcp.json", `{"mcpServers":{"a":{"command":"npx","args":["-y","pkg@1.0.0"]}}}`},
	{"empty args", ".mcp.json", `{"mcpServers": {"a": {"command": "srv", "args": []}, "b": {"command": "srv", "args": [ ]}, "c": {"command": "srv", "args": [` + "\n" + `]}}}`},
	{"no args, one line", ".mcp.json", `{"mcpServers": {"a": {"command": "srv"}, "b": {"command": "srv", "env": {"K": "v"}}}}`},
	{"no args, multi-line", ".mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"srv\",\n      \"env\": {}\n    }\n  }\n}\n"},
	{"args before command", ".mcp.json", `{"mcpServers": {"a": {"args": ["x"], "command": "srv"}}}`},
	{"escaped command", ".mcp.json", `{"mcpServers": {"a": {"command": "np\u0078", "args": ["\u002dy", "p\/kg"]}}}`},
	{"CRLF and tabs", ".mcp.json", "{\r\n\t\"mcpServers\": {\r\n\t\t\"a\": {\r\n\t\t\t\"command\": \"srv\",\r\n\t\t\t\"args\": [\r\n\t\t\t\t\"x\"\r\n\t\t\t]\r\n\t\t},\r\n\t\t\"b\": {\r\n\t\t\t\"command\": \"srv\"\r\n\t\t}\r\n\t}\r\n}\r\n"},
	{"JSONC comments and trailing commas", ".vscode/mcp.json", "// workspace servers\n{\n  \"servers\": {\n    /* the file system */\n    \"fs\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\", // pinned\n      \"args\": [\n        // flags first\n        \"-y\",\n        \"pkg@1.0.0\", // the package\n      ],\n    },\n    \"bare\": {\"command\": \"srv\",},\n  },\n  \"inputs\": [],\n}\n"},
	{"remote entries are bridged", ".cursor/mcp.json", `{"mcpServers": {"r": {"url": "https://x.invalid/mcp"}, "a": {"command": "srv"}}}`},
	{"remote, JSONC with comments inside the entry", ".vscode/mcp.json", "{\n  \"servers\": {\n    \"r\": {\n      // the team's server\n      \"type\": \"http\", /* streamable */\n      \"url\": \"https://x.invalid/m\\u0063p?k=${input:key}\",\n      \"headers\": {\"Authorization\": \"Bearer ${env:TOKEN}\",},\n    },\n  },\n  \"inputs\": [{\"id\": \"key\", \"type\": \"promptString\", \"password\": true}],\n}\n"},
	{"remote, CRLF and tabs, env kept", ".mcp.json", "{\r\n\t\"mcpServers\": {\r\n\t\t\"r\": {\r\n\t\t\t\"type\": \"sse\",\r\n\t\t\t\"url\": \"https://x.invalid/sse\",\r\n\t\t\t\"env\": {\"K\": \"v\"},\r\n\t\t\t\"timeout\": 30\r\n\t\t}\r\n\t}\r\n}\r\n"},
	{"remote, Gemini httpUrl and url", ".gemini/settings.json", `{"mcpServers": {"h": {"httpUrl": "https://x.invalid/mcp", "headers": {"X-Key": "$KEY"}}, "s": {"url": "https://x.invalid/sse", "trust": false}}}`},
	{"remote, Windsurf serverUrl", ".codeium/windsurf/mcp_config.json", `{"mcpServers": {"w": {"serverUrl": "https://x.invalid/mcp"}}}`},
	{"Zed", ".zed/settings.json", `{"theme": "One", "context_servers": {"z": {"command": "srv", "args": ["--stdio"], "source": "custom"}}}`},
	{"opencode", "opencode.json", "{\n  \"mcp\": {\n    \"o\": {\"type\": \"local\", \"command\": [\"npx\", \"-y\", \"pkg\"], \"enabled\": true},\n    \"r\": {\"type\": \"remote\", \"url\": \"https://x.invalid\"}\n  }\n}\n"},
	{"Codex TOML", ".codex/config.toml", "model = \"o3\"\n\n# servers\n[mcp_servers.fs]\ncommand = \"npx\" # the runner\nargs = [\n  \"-y\", # yes\n  '@modelcontextprotocol/server-filesystem@2026.8.31',\n]\nstartup_timeout_sec = 20\n\n[mcp_servers.fs.env]\nK = \"v\"\n\n[mcp_servers.bare]\ncommand = 'srv'\n\n[mcp_servers.empty]\n  \"command\" = \"srv\"\n  args = []\n\n[mcp_servers.remote]\nurl = \"https://x.invalid/mcp\"\n"},
	{"Codex TOML, CRLF and escapes", ".codex/config.toml", "[mcp_servers.a]\r\ncommand = \"np\\u0078\"\r\nargs = [\"-y\", 'p\\kg']\r\n"},
	{"Continue YAML", ".continue/mcpServers/s.yaml", "name: my servers\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: fs\n    command: npx # runner\n    args:\n      # flags\n      - -y\n      - \"@modelcontextprotocol/server-filesystem@2026.8.31\"\n    env:\n      K: v\n  - name: bare\n    command: 'srv'\n  - command: srv\n    name: flow\n    args: [--stdio, 'x y']\n  - name: empty\n    command: srv\n    args: []\n  - name: compact\n    command: srv\n    args:\n    - one\n  - name: remote\n    type: sse\n    url: https://x.invalid/sse\n"},
	{"opencode 2.x", "opencode.jsonc", "{\n  // v2\n  \"mcp\": {\"servers\": {\"o\": {\"type\": \"local\", \"command\": [\n    \"srv\",\n  ]}}},\n}\n"},
	// Hostile JSONC: comment openers inside strings, comments between a key
	// and its colon and between elements, a byte order mark, CRLF inside a
	// block comment, a // comment ending the file without a newline.
	{"JSONC, BOM, CRLF, tabs, comments everywhere", ".vscode/mcp.json", "\xef\xbb\xbf/* top\r\n   of file */{\r\n\t\"servers\" /* k */ : {\r\n\t\t\"a\": {\r\n\t\t\t\"command\" : \"srv\" /* c */ ,\r\n\t\t\t\"args\": [ // first\r\n\t\t\t\t\"--url=https://x.invalid/*\", /* between */ \"// not a comment\",\r\n\t\t\t\t\"/* nor this */\", // last\r\n\t\t\t],\r\n\t\t},\r\n\t\t\"b\": {\"command\": \"srv\" /* no args */},\r\n\t},\r\n} // end"},
	{"JSONC, one-line entries with trailing commas", "opencode.jsonc", "{\"mcp\": {\"o\": {\"type\": \"local\", \"command\": [\"srv\", \"--x\",],},},} // no newline"},
}

// TestInstallRoundTrip installs into every shape, checks that the result
// is a config whose launches, read through the wrapper, are the original
// ones, and that uninstall gives back the original bytes exactly.
func TestInstallRoundTrip(t *testing.T) {
	for _, tt := range roundTrips {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			orig, err := config.Parse(tt.file, data)
			if err != nil {
				t.Fatal(err)
			}
			lk := lock.New()
			want := map[string]lock.Launch{}
			for _, s := range orig {
				lk.Servers[s.Name] = &lock.Server{Launch: pinned.Launch(s)}
				want[s.Name] = pinned.Launch(s)
			}
			o := Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck", Flags: []string{"--mode", "warn"}}
			out, changes, err := Install(tt.file, data, o)
			if err != nil {
				t.Fatal(err)
			}
			guarded := map[string]bool{}
			for _, c := range changes {
				if c.Action == "guarded" || c.Action == "guarded (remote)" {
					guarded[c.Server] = true
				}
			}
			if len(guarded) == 0 || string(out) == tt.data {
				t.Fatalf("nothing guarded: %+v", changes)
			}
			after, err := config.Parse(tt.file, out)
			if err != nil {
				t.Fatalf("installed config does not parse: %v\n%s", err, out)
			}
			if len(after) != len(orig) {
				t.Fatalf("%d servers after install, %d before", len(after), len(orig))
			}
			config.UnwrapGuard(after, nil)
			for _, s := range after {
				if (s.Type == config.TypeStdio || guarded[s.Name]) && s.Guard == nil {
					t.Errorf("%s: not recognised as guarded:\n%s", s.Name, out)
				}
				if got := pinned.Launch(s); !got.Equal(want[s.Name]) {
					t.Errorf("%s: inner launch %+v, want %+v", s.Name, got, want[s.Name])
				}
			}
			again, changes2, err := Install(tt.file, out, o)
			if err != nil || string(again) != string(out) {
				t.Errorf("second install changed the file (%v):\n%s", err, again)
			}
			for _, c := range changes2 {
				if strings.HasPrefix(c.Action, "guarded") {
					t.Errorf("second install guarded %s again", c.Server)
				}
			}
			back, _, err := Uninstall(tt.file, out)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != tt.data {
				t.Errorf("uninstall did not restore the bytes:\n got %q\nwant %q\ninstalled %q", back, tt.data, out)
			}
		})
	}
}

// TestUninstallKeepsLaterEdits: a server added and a comment written after
// install survive uninstall, and the guarded server comes back exactly.
func TestUninstallKeepsLaterEdits(t *testing.T) {
	const file = ".mcp.json"
	data := []byte("{\"mcpServers\": {\n  \"a\": {\"command\": \"npx\", \"args\": [\"-y\", \"pkg\"]}\n}}\n")
	orig, _ := config.Parse(file, data)
	lk := lock.New()
	lk.Servers["a"] = &lock.Server{Launch: pinned.Launch(orig[0])}
	out, _, err := Install(file, data, Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck"})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(out), "\n}}", ",\n  \"b\": {\"command\": \"other\"} // added later\n}}", 1)
	back, _, err := Uninstall(file, []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(data), "\n}}", ",\n  \"b\": {\"command\": \"other\"} // added later\n}}", 1)
	if string(back) != want {
		t.Errorf("got\n%s\nwant\n%s", back, want)
	}
}

// TestInstallRefusesTOMLShapes: a TOML launch written in a shape the
// scanner does not edit is refused with the server named, not guessed at.
func TestInstallRefusesTOMLShapes(t *testing.T) {
	for _, data := range []string{
		"[mcp_servers]\nfs = { command = \"npx\", args = [\"-y\"] }\n",
		"[mcp_servers.fs]\ncommand = \"\"\"npx\"\"\"\n",
		"[mcp_servers]\nfs.command = \"npx\"\n",
	} {
		lk := lock.New()
		lk.Servers["fs"] = &lock.Server{}
		_, _, err := Install(".codex/config.toml", []byte(data), Options{Lock: lk, Executable: "mcp-lockcheck"})
		if err == nil || !strings.Contains(err.Error(), `server "fs"`) || !strings.Contains(err.Error(), "by hand") {
			t.Errorf("%q: err %v", data, err)
		}
	}
}

// TestInstallRefusesYAMLShapes: YAML launches the scanner does not edit
// are refused naming the server.
func TestInstallRefusesYAMLShapes(t *testing.T) {
	for _, data := range []string{
		"mcpServers:\n  - name: fs\n    command: >\n      npx\n",
		"mcpServers:\n  - name: fs\n    command: npx\n    args: [a,\n      b]\n",
		"mcpServers:\n  - name: fs\n    command: a,b\n",
		"mcpServers:\n  - name: fs\n    command: npx\n    args:\n      - [a]\n",
	} {
		lk := lock.New()
		lk.Servers["fs"] = &lock.Server{}
		_, _, err := Install(".continue/mcpServers/fs.yaml", []byte(data), Options{Lock: lk, Executable: "mcp-lockcheck"})
		if err == nil || !strings.Contains(err.Error(), `fs`) {
			t.Errorf("%q: err %v", data, err)
		}
	}
}

func TestInstallRefusesNullArgs(t *testing.T) {
	data := []byte(`{"mcpServers": {"a": {"command": "srv", "args": null}}}`)
	lk := lock.New()
	lk.Servers["a"] = &lock.Server{}
	if _, _, err := Install(".mcp.json", data, Options{Lock: lk, Executable: "mcp-lockcheck"}); err == nil || !strings.Contains(err.Error(), "null") {
		t.Fatalf("err %v", err)
	}
}

// checkGolden compares what install wrote with the golden file at path
// (rewritten with -update).
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("install output differs from %s (-update to rewrite):\n%s", path, got)
	}
}

// TestInstallKeepsWhatItDoesNotTouch: install edits the pinned server's
// command and args and nothing else. A comment anywhere (one that looks
// like an entry included), an unpinned server whose args look like a
// guard's, and every byte outside the edited entry come out as they went
// in; so do entries whose names differ only in case, which clients match
// differently and install therefore leaves alone.
func TestInstallKeepsWhatItDoesNotTouch(t *testing.T) {
	const file = ".vscode/mcp.json"
	comments := []string{
		`/* "a": {"command": "evil"} */`, "// before a", "/* inside a */", "// after the args",
		`// "b": {"command": "npx"}`, "/* last */",
	}
	data := "{\n  " + comments[0] + "\n  \"servers\": {\n    " + comments[1] + "\n    \"a\": {" + comments[2] +
		" \"command\": \"npx\", \"args\": [\"-y\", \"pkg\"] " + comments[3] + "\n    },\n" +
		"    \"b\": {\"command\": \"srv\", \"args\": [\"--\", \"guard\", \"]\", \"//\"]}, " + comments[4] + "\n" +
		"    \"c\": {\"command\": \"srv\"},\n    \"C\": {\"command\": \"srv\"},\n" +
		"  },\n  \"other\": {\"servers\": {\"a\": {\"command\": \"npx\"}}}, " + comments[5] + "\n}\n"
	orig, err := config.Parse(file, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New()
	for _, s := range orig {
		if s.Name == "a" || s.Name == "c" {
			lk.Servers[s.Name] = &lock.Server{Launch: pinned.Launch(s)}
		}
	}
	out, changes, err := Install(file, []byte(data), Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck"})
	if err != nil {
		t.Fatal(err)
	}
	// c and C fold to the same key: the whole "servers" object is left as it was.
	if string(out) != data || len(changes) != 0 {
		t.Fatalf("install touched a holder with case-folded duplicate names: %+v\n%s", changes, out)
	}
	data = strings.Replace(data, "    \"C\": {\"command\": \"srv\"},\n", "", 1)
	if out, changes, err = Install(file, []byte(data), Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range changes {
		got[c.Server] = c.Action
	}
	if got["a"] != "guarded" || got["c"] != "guarded" || got["b"] != "not pinned" || len(got) != 3 {
		t.Fatalf("changes %+v", changes)
	}
	for _, c := range comments {
		if strings.Count(string(out), c) != strings.Count(data, c) {
			t.Errorf("comment %q lost or duplicated:\n%s", c, out)
		}
	}
	b := `"b": {"command": "srv", "args": ["--", "guard", "]", "//"]}, ` + comments[4]
	if !strings.Contains(string(out), b) || !strings.Contains(string(out), `"other": {"servers": {"a": {"command": "npx"}}}`) {
		t.Errorf("an entry install did not mean to touch changed:\n%s", out)
	}
	start := strings.Index(data, `"a": {`)
	if !strings.HasPrefix(string(out), data[:start+len(`"a": {`+comments[2]+` "command": `)]) {
		t.Errorf("bytes before the edited command changed:\n%s", out)
	}
	after, err := config.Parse(file, out)
	if err != nil || len(after) != len(orig)-1 {
		t.Fatalf("after install: %v, %d servers", err, len(after))
	}
	back, _, err := Uninstall(file, out)
	if err != nil || string(back) != data {
		t.Fatalf("uninstall: %v\n got %q\nwant %q", err, back, data)
	}
}

// TestInstallRefusesHugeConfig: the tree install edits is bounded (see
// config.MaxJSONCSeparators): a plain JSON config config.Parse reads
// without a tree is refused with its position rather than read into
// hundreds of megabytes.
func TestInstallRefusesHugeConfig(t *testing.T) {
	data := []byte(`{"mcpServers": {"a": {"command": "x", "args": [` + strings.Repeat(`"1",`, config.MaxJSONCSeparators) + `"1"]}}}`)
	if _, err := config.Parse(".mcp.json", data); err != nil {
		t.Fatal(err)
	}
	lk := lock.New()
	lk.Servers["a"] = &lock.Server{}
	for _, f := range []func() error{
		func() error {
			_, _, err := Install(".mcp.json", data, Options{Lock: lk, LockPath: "l", Executable: "mcp-lockcheck"})
			return err
		},
		func() error { _, _, err := Uninstall(".mcp.json", data); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), ".mcp.json:1:") || !strings.Contains(err.Error(), "too large to read safely") {
			t.Errorf("got %v", err)
		}
	}
}
