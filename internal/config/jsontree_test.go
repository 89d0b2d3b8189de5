package config

import (
	"strings"
	"testing"
)

// TestTreeHostileConfigs attacks the config tree: a duplicate spelled
// another way (an escape) is still a duplicate named at its line and
// column, keys differing only by case or NUL are different keys, and depth
// and trailing data are errors, never a crash.
func TestTreeHostileConfigs(t *testing.T) {
	for _, c := range []struct{ name, in, err string }{
		{"server name twice, one escaped", "{\"mcpServers\": {\n\"fs\": {\"command\": \"a\"},\n\"f\\u0073\": {\"command\": \"b\"}}}",
			`x.json:3:1: server "fs" is defined twice (first on line 2)`},
		{"command twice, one escaped", "{\"mcpServers\": {\"fs\": {\"command\": \"a\",\n \"\\u0063ommand\": \"b\"}}}",
			`x.json:2:2: server "fs": "command" is given twice (first on line 1)`},
		{"container twice, one escaped", "{\"mcpServers\": {},\n\"mcp\\u0053ervers\": {}}",
			`x.json:2:1: "mcpServers" is given twice (first on line 1)`},
		{"second top-level value", `{"mcpServers": {"fs": {"command": "a"}}} {"mcpServers": {}}`, "x.json:1:42: "},
		{"trailing garbage", `{"mcpServers": {"fs": {"command": "a"}}} x`, "x.json:1:42: "},
		{"too deep", `{"mcpServers": {"fs": {"command": "a", "x": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}}`, "x.json:1:"},
	} {
		_, err := Parse("x.json", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%s: err = %v, want %s...", c.name, err, c.err)
		}
	}
	// Different keys: case, NUL and invalid UTF-8 make another name.
	servers, err := Parse("x.json", []byte("{\"mcpServers\": {\"fs\": {\"command\": \"a\"}, \"FS\": {\"command\": \"b\"}, \"f\\u0000s\": {\"command\": \"c\"}, \"f\xffs\": {\"command\": \"d\", \"args\": [\"\\udb40\\udc41\"]}}}"))
	if err != nil || len(servers) != 4 {
		t.Fatalf("Parse = %d servers, %v", len(servers), err)
	}
	if servers[3].Name != "f\uFFFDs" || servers[3].Args[0] != "\U000E0041" {
		t.Errorf("server 3 = %q %q: want invalid UTF-8 as U+FFFD and escapes decoded", servers[3].Name, servers[3].Args)
	}
}
