package synth

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The tests judge the arguments and plans this package gives with
// santhosh-tekuri/jsonschema compiled plainly: no limits, no cost bound, no
// format aliases, no lookup of subschemas by pointer and no conjunctions
// built by the generator. The package validates with the same library, so
// this oracle checks the fencing and bookkeeping around that use, and that
// every output is valid against the schema as a whole.

// knownMetaschemas are the $schema values the oracle knows without loading
// anything. A schema declaring another one (a typo, a vendor URL) would make
// the compiler try to fetch it; such a declaration is dropped and the schema
// is read as draft 2020-12, which is what Arguments assumes for it too.
var knownMetaschemas = []string{
	"http://json-schema.org/draft-04/schema",
	"http://json-schema.org/draft-06/schema",
	"http://json-schema.org/draft-07/schema",
	"https://json-schema.org/draft/2019-09/schema",
	"https://json-schema.org/draft/2020-12/schema",
}

// compileOracle compiles an inputSchema with the oracle. Each schema reads
// by the draft its $schema names (draft-07 for most real servers, whose
// $ref then ignores its siblings and whose formats are assertions), 2020-12
// when it names none. Format assertions are on for every draft so that a
// synthesized "uuid" must be a UUID whatever the draft says.
func compileOracle(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok && !knownMetaschema(s) {
			delete(m, "$schema")
		}
	}
	// Inside, the package forgets an unknown $schema wherever a keyword
	// leads to it; read such a schema the same way.
	forgetUnknownDrafts(doc, 0)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	// The loader refuses every URL: a schema under test must not make the
	// test reach out.
	c.UseLoader(oracleLoader{})
	if err := c.AddResource("urn:mcp-lockcheck:input-schema", doc); err != nil {
		return nil, err
	}
	return c.Compile("urn:mcp-lockcheck:input-schema")
}

type oracleLoader struct{}

func (oracleLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("test loader: not loading %s", url)
}

func knownMetaschema(s string) bool {
	s = strings.TrimSuffix(s, "#")
	for _, k := range knownMetaschemas {
		if s == k {
			return true
		}
	}
	return false
}

// oracleValid validates the JSON instance against the compiled schema.
func oracleValid(sch *jsonschema.Schema, instance []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// checkAgainstOracle fails the test unless args validate against schema.
func checkAgainstOracle(t testing.TB, schema, args []byte) {
	t.Helper()
	sch, err := compileOracle(schema)
	if err != nil {
		t.Fatalf("oracle cannot compile %s: %v", schema, err)
	}
	if err := oracleValid(sch, args); err != nil {
		t.Errorf("arguments %s do not validate against %s:\n%v", args, schema, err)
	}
}

// compileOracleNoPanic is compileOracle for fuzzed input: a panic in the
// oracle is the oracle's problem, not a finding against this package.
func compileOracleNoPanic(raw []byte) (sch *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, fmt.Errorf("oracle panicked: %v", r)
		}
	}()
	return compileOracle(raw)
}
