package guard

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// FuzzScanDifferential holds the jsontok-based objectMembers, arrayElems and
// jsonString to the hand-written scanner they replaced: the same accept,
// reject and ambiguous decisions, the same members (keys, folds, value
// bytes and offsets) and the same decoded strings.
func FuzzScanDifferential(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range hostileJSON {
		if len(s) < 1000 { // the deep ones stall the mutator; TestScanHostile has them
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		compareScanners(t, b)
	})
}

func compareScanners(t *testing.T, b []byte) {
	t.Helper()
	if got, want := oldValidJSON(b) == nil, jsontok.Valid(b); got != want {
		t.Fatalf("valid(%s): old %v, new %v", clipIn(b), got, want)
	}
	nm, nerr := objectMembers(b)
	om, oerr := oldObjectMembers(b)
	if (nerr == nil) != (oerr == nil) || errors.Is(nerr, errAmbiguous) != errors.Is(oerr, errAmbiguous) {
		t.Fatalf("objectMembers(%s): new %v, old %v", clipIn(b), nerr, oerr)
	}
	if errors.Is(nerr, errAmbiguous) && nerr.Error() != oerr.Error() {
		t.Fatalf("objectMembers(%s): new %v, old %v", clipIn(b), nerr, oerr)
	}
	if !reflect.DeepEqual(nm, om) {
		t.Fatalf("objectMembers(%s):\nnew %+v\nold %+v", clipIn(b), nm, om)
	}
	for _, m := range nm {
		if &m.val[0] != &b[m.off] {
			t.Fatalf("member %q value does not alias the input", m.key)
		}
	}
	ne, nerr := arrayElems(b)
	oe, oerr := oldArrayElems(b)
	if (nerr == nil) != (oerr == nil) || !reflect.DeepEqual(ne, oe) {
		t.Fatalf("arrayElems(%s): new %q %v, old %q %v", clipIn(b), ne, nerr, oe, oerr)
	}
	for _, el := range ne {
		if off := cap(b) - cap(el); !bytes.Equal(b[off:off+len(el)], el) {
			t.Fatalf("element %q does not alias the input", el)
		}
	}
	ns, nok := jsonString(b)
	os, ook := oldJSONString(b)
	if ns != os || nok != ook {
		t.Fatalf("jsonString(%s): new %q %v, old %q %v", clipIn(b), ns, nok, os, ook)
	}
}

// clip keeps failure messages about 10,000-deep inputs readable.
func clipIn(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("%q...(%d bytes)", b[:200], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// hostileJSON are inputs a hostile server would try on a reader.
var hostileJSON = []string{
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a":` + strings.Repeat(`{"a":`, 9998) + `1` + strings.Repeat("}", 9999),
	`{"a":` + strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat("}", 10000),
	`{"n":1` + strings.Repeat("0", 5000) + `e99999999999}`,
	`{"n":-0.` + strings.Repeat("9", 5000) + `E-99999999999}`,
	`{"description":1,"\u0064escription":2}`,
	`{"description":1,"Description":2}`,
	`{"description":1,"DESCRİPTION":2}`,
	`{"id":1,"\u0049\u0044":2}`,
	"{\"a\x00b\":1,\"a\":2}",
	"{\"a\\u0000b\":1,\"a\x00b\":2}",
	"{\"\xff\":1,\"\\ufffd\":2}",
	"{\"\xff\":1,\"\xfe\":2}",
	"{\"k\xc0\xaf\":1}",
	`{"a":1} x`,
	`{"a":1}{"a":2}`,
	`{"a":1} {"a":2}`,
	`[1] [2]`,
	`[1]]`,
	`{"a":1}}`,
	`"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\ud83d\ude00"`,
	`{"\ud800":1,"\udfff":2}`,
	"\"\xed\xa0\x80\"",
	`{"a":"\udb40\udc41"}`,
	" \t\r\n{\"a\" \t:\r\n1 } \n",
	"\u00a0{}", "{}\u00a0", "\x00{}", "{}\x00",
	`{"a":tru}`, `{"a":nulll}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":+1}`, `{"a":.1}`, `{"a":1e}`,
	`{"a":"\u00"}`, `{"a":"\uZZZZ"}`, `{"a":"\'"}`,
	`{"a":[1,2,]}`, `{,}`, `[,]`, `{"a"::1}`, `{"a":1,,"b":2}`,
}

func TestScanHostile(t *testing.T) {
	for _, in := range append(append([]string{}, scanSeeds...), hostileJSON...) {
		compareScanners(t, []byte(in))
	}
}
