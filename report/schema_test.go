package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestJSONSchema validates the JSON reports the renderer writes (the
// fixture with every rule, a real upgrade, 600 findings) against the
// schema docs/report.schema.json publishes, so the documented contract
// and the code cannot drift apart.
func TestJSONSchema(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("..", "docs", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://github.com/mcp-lockcheck/mcp-lockcheck/docs/report.schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	// A rule id outside the registry's spelling is not a report: the
	// payload report the escape tests use (a hostile rule id) must fail.
	var hostile bytes.Buffer
	if err := writeJSON(&hostile, payloadReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	if inst, err := jsonschema.UnmarshalJSON(&hostile); err != nil || sch.Validate(inst) == nil {
		t.Errorf("the schema accepts a report whose rule id is hostile text (%v)", err)
	}
	for name, r := range map[string]*Report{
		"fixture": loadFixture(t), "upgrade": loadUpgrade(t), "200 tools": upgrade200(), "empty": {LockfileVersion: 1},
	} {
		var buf bytes.Buffer
		if err := writeJSON(&buf, r, Options{}); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: the JSON report does not match docs/report.schema.json: %v", name, err)
		}
	}
}
