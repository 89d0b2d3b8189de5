package guard

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
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
	for _, c := range hostileScan {
		if len(c.in) < 1000 { // the deep ones stall the mutator; TestScanHostile has them
			f.Add([]byte(c.in))
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

func TestScanHostile(t *testing.T) {
	for _, in := range scanSeeds {
		compareScanners(t, []byte(in))
	}
	for _, c := range hostileScan {
		compareScanners(t, []byte(c.in))
	}
}
