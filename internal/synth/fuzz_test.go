package synth

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzArguments feeds arbitrary bytes as an inputSchema. Arguments must not
// panic or hang, must be deterministic, must return a JSON object when it
// returns anything, and that object must validate against the schema
// whenever the oracle can compile it. Seeds: testdata/fuzz/FuzzArguments.
func FuzzArguments(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"^x+$"}},"required":["a"]}`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		args, err := Arguments(schema)
		if err != nil {
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			t.Fatalf("Arguments returned %s, not a JSON object (%v)", args, err)
		}
		if again, err := Arguments(schema); err != nil || string(again) != string(args) {
			t.Fatalf("not deterministic: %s, then %s, %v", args, again, err)
		}
		if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
			return // no schema: {} by definition
		}
		// Arguments compiled the schema with the same library, under
		// tighter limits: the oracle, which has none, must compile it too.
		sch, err := compileOracleNoPanic(schema)
		if err != nil {
			t.Fatalf("Arguments gave %s for a schema the oracle rejects: %v", args, err)
		}
		if err := oracleValid(sch, args); err != nil {
			t.Fatalf("arguments %s do not validate against %s: %v", args, schema, err)
		}
	})
}

// FuzzPlan feeds an arbitrary tool (name, description, annotations and
// inputSchema): Plan must not panic, must never call a tool whose name
// reads as a write, and every argument object it plans must validate
// against the tool's schema whenever the oracle can compile it.
func FuzzPlan(f *testing.F) {
	f.Add("get_item", "Gets an item.", []byte(`{"readOnlyHint":true}`), []byte(`{"type":"object","properties":{"url":{"type":"string","format":"uri"},"path":{"type":"string"}},"required":["url","path"]}`))
	f.Add("getOrCreate", "", []byte(`{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`), []byte(`{"type":"object"}`))
	f.Add("list_x", "", []byte(`null`), []byte(`{"type":"object","properties":{"mode":{"enum":["delete","https://a.b/"]}},"required":["mode"]}`))
	f.Fuzz(func(t *testing.T, name, desc string, annotations, schema []byte) {
		def := map[string]any{"name": name, "description": desc, "annotations": json.RawMessage(annotations), "inputSchema": json.RawMessage(schema)}
		raw, err := json.Marshal(def)
		if err != nil {
			return // not JSON: a server's listing would not parse either
		}
		calls, _ := Plan([]json.RawMessage{raw}, 3, Values{Dir: "/run/tmp"})
		if again, _ := Plan([]json.RawMessage{raw}, 3, Values{Dir: "/run/tmp"}); !reflect.DeepEqual(again, calls) {
			t.Fatalf("not deterministic: %v, then %v", calls, again)
		}
		for _, c := range calls {
			if ClassifyName(c.Tool) == Write {
				t.Fatalf("called %q", c.Tool)
			}
			sch, err := compileOracleNoPanic(schema)
			if err != nil {
				continue
			}
			if err := oracleValid(sch, c.Arguments); err != nil {
				t.Fatalf("arguments %s do not validate against %s: %v", c.Arguments, schema, err)
			}
		}
	})
}
