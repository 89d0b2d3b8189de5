package olddiff

import (
	"strings"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/policy"
)

func show(p any, err error) string {
	if err != nil {
		return "ERR " + err.Error()
	}
	return fmt.Sprintf("%+v", p)
}

func FuzzDiff(f *testing.F) {
	files, _ := filepath.Glob("../testdata/fuzz/FuzzParse/*")
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		f.Add(b)
	}
	full, _ := os.ReadFile("../testdata/full.yaml")
	f.Add(full)
	for _, s := range []string{"version: 1\n", "version: 1\ndefaults:\n  launches: 2\n  foo: 1\n", "version: 1\n1: 2\n", "version: 1\nservers:\n  a:\n    calls:\n      - tool: x\n        arguments: {a: [1, {b: c}]}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		op, oerr := Parse("p.yaml", data)
		np, nerr := policy.Parse("p.yaml", data)
		if (oerr == nil) != (nerr == nil) {
			t.Fatalf("old %v\nnew %v", oerr, nerr)
		}
		if oerr != nil {
			ne := nerr.Error()
			if strings.Contains(ne, "are not supported in a policy") || strings.Contains(ne, ": unknown key ") {
				return
			}
			if oerr.Error() != nerr.Error() {
				t.Logf("message differs:\nold %v\nnew %v", oerr, nerr)
				t.Fail()
			}
			return
		}
		ob, _ := json.Marshal([]any{op.Defaults, op.Servers})
		nb, _ := json.Marshal([]any{np.Defaults, np.Servers})
		o, n := string(ob), string(nb)
		for _, path := range []string{"defaults", "rules", "defaults.launches", "defaults.pass-env", "servers.a", "servers.a.launches", "servers.a.calls", "servers.a.rules", "servers.a.rules.tool-removed", "rules.tool-removed", "servers.fs.warmup-calls"} {
			o += fmt.Sprint(op.Pos(path))
			n += fmt.Sprint(np.Pos(path))
		}
		if o != n {
			t.Fatalf("old %s\nnew %s", o, n)
		}
	})
}
