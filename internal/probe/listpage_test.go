package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// stdListPage is how list read a page before listPage, with
// encoding/json: the reference listPage must agree with.
func stdListPage(raw []byte, field, key string) ([]Def, string, error) {
	var res map[string]json.RawMessage
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, "", &pageErr{msg: "result is not an object"}
	}
	var items []json.RawMessage
	if r, ok := res[field]; ok && string(r) != "null" {
		if err := json.Unmarshal(r, &items); err != nil {
			return nil, "", &pageErr{msg: fmt.Sprintf("%q is not an array", field)}
		}
	}
	var defs []Def
	for i, it := range items {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil {
			return nil, "", &pageErr{item: i + 1, msg: "not an object"}
		}
		var k string
		if err := json.Unmarshal(m[key], &k); err != nil || k == "" {
			return nil, "", &pageErr{item: i + 1, msg: fmt.Sprintf("no %q", key)}
		}
		defs = append(defs, Def{Key: k, Raw: it})
	}
	next := ""
	if r, ok := res["nextCursor"]; ok && string(r) != "null" {
		if err := json.Unmarshal(r, &next); err != nil {
			return nil, "", &pageErr{msg: "nextCursor is not a string"}
		}
	}
	return defs, next, nil
}

// samePage compares listPage with stdListPage on one page.
func samePage(t *testing.T, raw []byte) {
	t.Helper()
	got, gotNext, gotErr := listPage(raw, "tools", "name")
	want, wantNext, wantErr := stdListPage(raw, "tools", "name")
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: error %v (%+v), want %v (%+v)", raw, gotErr, gotErr, wantErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if gotNext != wantNext || len(got) != len(want) {
		t.Fatalf("%q: %d defs, next %q; want %d, %q", raw, len(got), gotNext, len(want), wantNext)
	}
	for i := range got {
		if got[i].Key != want[i].Key || !bytes.Equal(got[i].Raw, want[i].Raw) {
			t.Fatalf("%q: def %d = %q %s, want %q %s", raw, i, got[i].Key, got[i].Raw, want[i].Key, want[i].Raw)
		}
	}
}

var pageSeeds = []string{
	`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}]}`,
	`{"tools":[ {"name" : "a" , "x" : [1, 2.5e3, "\u00e9\ud83d\ude00"]} ],"nextCursor":"c2"}`,
	`null`, `{}`, `{"tools":null}`, `{"tools":null,"nextCursor":null}`, `{"tools":[]}`,
	`[]`, `"tools"`, `3`, `{"tools":{}}`, `{"tools":"x"}`, `{"tools":[null]}`, `{"tools":[3]}`,
	`{"tools":[{"name":""}]}`, `{"tools":[{"name":null}]}`, `{"tools":[{"name":3}]}`, `{"tools":[{}]}`,
	`{"tools":[{"Name":"a"}]}`, `{"tools":[{"name":"a","name":"b"}]}`, `{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}`,
	`{"tools":[{"name":"a"}],"tools":null}`, `{"nextCursor":3}`, `{"nextCursor":""}`, `{"nextCursor":"a","nextCursor":null}`,
	`{"\u0074ools":[{"n\u0061me":"\u0061"}]}`, "{\"tools\":[{\"name\":\"\xff\"}]}", `{"tools":[{"name":"\ud800"}]}`,
	`{"tools":[{"name":"a"}]} x`, `{"tools":[{"name":"a"}`, `{"tools":[{"name":"a"},]}`, ` {"tools":[]} `,
}

// TestListPageMatchesStd: listPage reads every page as the encoding/json
// reading did (same definitions, byte for byte, same cursor, same error),
// on hand-made edge cases and on the real servers' tools/list answers in
// internal/synth's corpus.
func TestListPageMatchesStd(t *testing.T) {
	for _, s := range pageSeeds {
		samePage(t, []byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("..", "synth", "testdata", "corpus", "*.json"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		samePage(t, raw)
	}
}

func FuzzListPage(f *testing.F) {
	for _, s := range pageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			// The SDK hands list a result that is valid JSON.
			return
		}
		samePage(t, raw)
	})
}

// BenchmarkListPage: one page of the largest tools/list in the corpus,
// read by listPage and by the encoding/json reading it replaced.
func BenchmarkListPage(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "synth", "testdata", "corpus", "*.json"))
	var raw []byte
	for _, f := range files {
		if r, err := os.ReadFile(f); err == nil && len(r) > len(raw) {
			raw = r
		}
	}
	for _, r := range []struct {
		name string
		read func([]byte, string, string) ([]Def, string, error)
	}{{"jsontok", listPage}, {"encoding-json", stdListPage}} {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, _, err := r.read(raw, "tools", "name"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
