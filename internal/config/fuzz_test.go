package config

import (
	"errors"
	"os"
	"testing"
)

// fuzzNames are the file names FuzzParse feeds data under, so that every
// format and client detection path is exercised.
var fuzzNames = []string{
	".mcp.json", ".vscode/mcp.json", ".gemini/settings.json", ".zed/settings.json",
	"mcp.json", ".codex/config.toml", "servers.toml",
	".continue/mcpServers/x.yaml", "opencode.jsonc", ".roo/mcp.json", ".amazonq/default.json",
}

// FuzzParse checks that no input panics Parse and that every error it
// returns is an *Error, so the CLI can always point at a position.
func FuzzParse(f *testing.F) {
	for i, s := range samples {
		data, err := os.ReadFile(s.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := fuzzNames[int(which)%len(fuzzNames)]
		servers, err := Parse(name, data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse error %v is %T, not *Error", err, err)
			}
			if servers != nil {
				t.Fatalf("servers returned with error %v", err)
			}
			return
		}
		for _, s := range servers {
			if s.Type != TypeStdio && s.Type != TypeHTTP && s.Type != TypeSSE {
				t.Fatalf("server %q has type %q", s.Name, s.Type)
			}
			if s.Type == TypeStdio && s.Command == "" || s.Type != TypeStdio && s.URL == "" {
				t.Fatalf("server %q cannot be launched: %+v", s.Name, s)
			}
			// Placeholders must never panic either.
			_, _, _, _ = s.Resolve(func(string) (string, bool) { return "", false })
		}
	})
}

// FuzzHoldsServers checks that no file in a repository panics the search
// for unread configs, whatever its format.
func FuzzHoldsServers(f *testing.F) {
	for i, s := range samples {
		data, err := os.ReadFile(s.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	names := []string{"a.json", "a.jsonc", "a.yaml", "a.toml"}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := names[int(which)%len(names)]
		if h, ok := HoldsServers(name, data); ok && h.File != name {
			t.Fatalf("holder names %q, not %q", h.File, name)
		}
	})
}
