package synth

import (
	"encoding/json"
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
		sch, err := compileOracleNoPanic(schema)
		if err != nil {
			return // not a schema the oracle accepts: nothing to hold the result to
		}
		if err := oracleValid(sch, args); err != nil {
			t.Fatalf("arguments %s do not validate against %s: %v", args, schema, err)
		}
	})
}
