package launchid

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// pep440 is a Python version as PEP 440 orders it; just enough to pick
// the release an installer picks (the local label is kept out of the
// order, as installers do for a specifier without one).
type pep440 struct {
	epoch   int
	release []int
	preL    string // "a", "b", "rc"; "" for none
	preN    int
	post    int // -1 for none
	dev     int // -1 for none
}

// pep440Re is PEP 440's own pattern (Appendix B), case-insensitive.
var pep440Re = regexp.MustCompile(`(?i)^\s*v?(?:(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)(?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?)(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$`)

func parsePEP440(s string) (pep440, error) {
	m := pep440Re.FindStringSubmatch(s)
	if m == nil {
		return pep440{}, fmt.Errorf("%q: %w", s, errNotPEP440)
	}
	g := func(name string) string { return m[pep440Re.SubexpIndex(name)] }
	num := func(s string) int {
		n, _ := strconv.Atoi(s)
		return n
	}
	v := pep440{epoch: num(g("epoch")), post: -1, dev: -1}
	for _, p := range strings.Split(g("release"), ".") {
		v.release = append(v.release, num(p))
	}
	if l := strings.ToLower(g("pre_l")); l != "" {
		switch l {
		case "alpha":
			l = "a"
		case "beta":
			l = "b"
		case "c", "pre", "preview":
			l = "rc"
		}
		v.preL, v.preN = l, num(g("pre_n"))
	}
	if g("post") != "" {
		v.post = num(g("post_n1") + g("post_n2"))
	}
	if g("dev") != "" {
		v.dev = num(g("dev_n"))
	}
	return v, nil
}

// pre reports a pre-release or development release.
func (v pep440) pre() bool { return v.preL != "" || v.dev >= 0 }

// String is the normalized form ("1!2.0rc1.post3.dev4").
func (v pep440) String() string {
	var b strings.Builder
	if v.epoch != 0 {
		fmt.Fprintf(&b, "%d!", v.epoch)
	}
	for i, r := range v.release {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(r))
	}
	if v.preL != "" {
		fmt.Fprintf(&b, "%s%d", v.preL, v.preN)
	}
	if v.post >= 0 {
		fmt.Fprintf(&b, ".post%d", v.post)
	}
	if v.dev >= 0 {
		fmt.Fprintf(&b, ".dev%d", v.dev)
	}
	return b.String()
}

func compareRelease(a, b []int) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// comparePEP440 orders two versions: epoch, release, then 1.0.dev1 <
// 1.0a1 < 1.0 < 1.0.post1, dev releases before what they lead to.
func comparePEP440(a, b pep440) int {
	if c := cmp.Compare(a.epoch, b.epoch); c != 0 {
		return c
	}
	if c := compareRelease(a.release, b.release); c != 0 {
		return c
	}
	preKey := func(v pep440) (int, int) {
		switch {
		case v.preL == "" && v.post < 0 && v.dev >= 0:
			return -1, 0 // 1.0.dev1 comes before 1.0a1
		case v.preL == "":
			return 4, 0
		}
		return map[string]int{"a": 1, "b": 2, "rc": 3}[v.preL], v.preN
	}
	ar, an := preKey(a)
	br, bn := preKey(b)
	if c := cmp.Or(cmp.Compare(ar, br), cmp.Compare(an, bn), cmp.Compare(a.post, b.post)); c != 0 {
		return c
	}
	devKey := func(v pep440) int {
		if v.dev < 0 {
			return int(^uint(0) >> 1)
		}
		return v.dev
	}
	return cmp.Compare(devKey(a), devKey(b))
}

// pySpecClause is one version specifier clause (">=1.2", "==1.*").
type pySpecClause struct {
	op     string
	raw    string
	v      pep440
	prefix bool // "==1.2.*", "!=1.2.*"
}

var specOps = []string{"===", "~=", "==", "!=", "<=", ">=", "<", ">"}

func parseSpecClause(c string) (pySpecClause, error) {
	for _, op := range specOps {
		if rest, ok := strings.CutPrefix(c, op); ok {
			s := pySpecClause{op: op, raw: rest}
			if op == "===" {
				return s, nil
			}
			if (op == "==" || op == "!=") && strings.HasSuffix(rest, ".*") {
				s.prefix, rest = true, strings.TrimSuffix(rest, ".*")
			}
			v, err := parsePEP440(rest)
			if err != nil {
				return s, fmt.Errorf("version specifier %q: %w", c, err)
			}
			s.v = v
			return s, nil
		}
	}
	return pySpecClause{}, fmt.Errorf("version specifier %q: unknown operator", c)
}

// allows reports whether v satisfies the clause.
func (s pySpecClause) allows(v pep440) bool {
	c := comparePEP440(v, s.v)
	prefixMatch := func(n int) bool {
		if v.epoch != s.v.epoch {
			return false
		}
		padded := append(slices.Clone(v.release), make([]int, max(0, n-len(v.release)))...)
		return compareRelease(padded[:n], s.v.release[:n]) == 0
	}
	switch s.op {
	case "===":
		return v.String() == s.raw
	case "==":
		if s.prefix {
			return prefixMatch(len(s.v.release))
		}
		return c == 0
	case "!=":
		if s.prefix {
			return !prefixMatch(len(s.v.release))
		}
		return c != 0
	case "~=":
		n := len(s.v.release) - 1
		return c >= 0 && n >= 1 && prefixMatch(n)
	case "<=":
		return c <= 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case ">":
		return c > 0
	}
	return false
}
