package launchid

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/pyindex"
)

func TestComparePEP440(t *testing.T) {
	// Each version is lower than the next (PEP 440's own examples).
	order := []string{"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
		"1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0.post456.dev34",
		"1.0.post456", "1.0.15", "1.1.dev1", "1!0.1"}
	for i := 0; i+1 < len(order); i++ {
		a, err := parsePEP440(order[i])
		if err != nil {
			t.Fatal(err)
		}
		b, err := parsePEP440(order[i+1])
		if err != nil {
			t.Fatal(err)
		}
		if c := comparePEP440(a, b); c > 0 || (c == 0 && !strings.Contains(order[i+1], "+")) {
			t.Errorf("%s vs %s: %d", order[i], order[i+1], c)
		}
	}
	for _, eq := range [][2]string{{"1.0", "1.0.0"}, {"1.0RC1", "1.0rc1"}, {"1.0-1", "1.0.post1"}, {"v2.0alpha", "2.0a0"}, {"1.0.c1", "1.0rc1"}} {
		a, _ := parsePEP440(eq[0])
		b, _ := parsePEP440(eq[1])
		if comparePEP440(a, b) != 0 {
			t.Errorf("%s != %s", eq[0], eq[1])
		}
	}
	if _, err := parsePEP440("not-a-version"); err == nil {
		t.Error("parsed nonsense")
	}
}

func TestSpecClause(t *testing.T) {
	for _, tc := range []struct {
		clause, version string
		want            bool
	}{
		{"==1.0", "1.0.0", true}, {"==1.0", "1.0.1", false}, {"==1.0.*", "1.0.7", true}, {"==1.0.*", "1.1", false},
		{"!=1.0.*", "1.1", true}, {"~=1.4.2", "1.4.9", true}, {"~=1.4.2", "1.5.0", false}, {"~=1.4", "1.9", true},
		{"~=1.4", "2.0", false}, {">=2", "2.0.1", true}, {"<2", "2.0", false}, {">1.0", "1.0", false}, {"<=1.0", "1.0", true},
	} {
		s, err := parseSpecClause(tc.clause)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := parsePEP440(tc.version)
		if got := s.allows(v); got != tc.want {
			t.Errorf("%s allows %s = %v", tc.clause, tc.version, got)
		}
	}
	if _, err := parseSpecClause("=>1"); err == nil {
		t.Error("=>1 accepted")
	}
}

func TestPySpecifier(t *testing.T) {
	for _, tc := range []struct {
		spec, name, clauses string
	}{
		{"mcp-server-fetch", "mcp-server-fetch", ""},
		{"mcp-server-fetch==2025.4.7", "mcp-server-fetch", "==2025.4.7"},
		{"mcp-server-fetch@2025.4.7", "mcp-server-fetch", "==2025.4.7"},
		{"mcp-server-fetch@latest", "mcp-server-fetch", ""},
		{"mcp[cli]>=1.2, <2", "mcp", ">=1.2 <2"},
		{"pkg>=1; python_version>'3.8'", "pkg", ">=1"},
	} {
		name, cl := pySpecifier(tc.spec)
		if name != tc.name || strings.Join(cl, " ") != tc.clauses {
			t.Errorf("%q: %q %q", tc.spec, name, cl)
		}
	}
}

func TestPyIndex(t *testing.T) {
	for _, tc := range []struct {
		manager string
		args    []string
		env     map[string]string
		index   string
		more    bool
	}{
		{"uvx", []string{"mcp-server-fetch"}, nil, DefaultPyIndex, false},
		{"uvx", []string{"mcp-server-fetch"}, map[string]string{"UV_INDEX_URL": "http://127.0.0.1:9/simple"}, "http://127.0.0.1:9/simple", false},
		{"uvx", []string{"mcp-server-fetch"}, map[string]string{"UV_DEFAULT_INDEX": "http://a.invalid/", "UV_INDEX_URL": "http://b.invalid/"}, "http://a.invalid/", false},
		{"uvx", []string{"--index-url", "http://c.invalid/s", "x"}, map[string]string{"UV_INDEX_URL": "http://b.invalid/"}, "http://c.invalid/s", false},
		{"uvx", []string{"--default-index=http://d.invalid/", "x"}, nil, "http://d.invalid/", false},
		{"uvx", []string{"--extra-index-url", "http://e.invalid/", "x"}, nil, DefaultPyIndex, true},
		{"uvx", []string{"x"}, map[string]string{"UV_EXTRA_INDEX_URL": "http://e.invalid/"}, DefaultPyIndex, true},
		{"uvx", []string{"x"}, map[string]string{"PIP_INDEX_URL": "http://p.invalid/"}, DefaultPyIndex, false},
		{"pipx run", []string{"x"}, map[string]string{"PIP_FIND_LINKS": "/opt/wheels"}, DefaultPyIndex, true},
		{"pipx run", []string{"x"}, map[string]string{"PIP_INDEX_URL": "http://p.invalid/"}, "http://p.invalid/", false},
		{"pipx run", []string{"--pip-args=--index-url http://q.invalid/", "x"}, nil, "http://q.invalid/", false},
		{"pipx run", []string{"--pip-args", "--extra-index-url=http://r.invalid/", "x"}, nil, DefaultPyIndex, true},
		// Options after the package belong to the server.
		{"uvx", []string{"x", "--index-url", "http://s.invalid/"}, nil, DefaultPyIndex, false},
	} {
		index, more := PyIndex(tc.manager, tc.args, tc.env)
		if index != tc.index || (more != "") != tc.more {
			t.Errorf("%s %q %v: %q, %q", tc.manager, tc.args, tc.env, index, more)
		}
	}
}

// TestResolvePy resolves specs against a local simple index speaking
// PEP 691 JSON and PEP 503 HTML: the highest allowed version, its
// pure-Python wheel (else its sdist), yanked and pre-releases as
// installers treat them, and a clear error for what cannot be identified.
func TestResolvePy(t *testing.T) {
	for _, format := range []string{"json", "html"} {
		t.Run(format, func(t *testing.T) {
			idx := pyindex.New(t)
			idx.JSON = format == "json"
			idx.Publish("fixture_mail.mcp", "1.0.0", "fixture_mail.mcp-1.0.0-py3-none-any.whl", []byte("one"))
			idx.Publish("fixture_mail.mcp", "1.0.0", "fixture_mail.mcp-1.0.0.tar.gz", []byte("one-src"))
			idx.Publish("fixture_mail.mcp", "1.1.0", "fixture_mail_mcp-1.1.0.tar.gz", []byte("two-src"))
			idx.Publish("fixture_mail.mcp", "2.0rc1", "fixture_mail_mcp-2.0rc1-py3-none-any.whl", []byte("rc"))
			idx.Publish("fixture_mail.mcp", "1.2.0", "fixture_mail_mcp-1.2.0-py3-none-any.whl", []byte("yanked"))
			idx.Yank("fixture_mail_mcp-1.2.0-py3-none-any.whl")
			// A file whose name carries a terminal escape is not a
			// distribution: it never reaches the report.
			idx.Publish("escape-mcp", "1.0", "escape_mcp-1.0-py3-none-any\x1b]8;;http://x.invalid\x07.whl", []byte("esc"))
			idx.Publish("native-mcp", "3.0", "native_mcp-3.0-cp312-cp312-manylinux_2_17_x86_64.whl", []byte("so"))
			// A file whose name carries a terminal escape is not a
			// distribution: it never reaches the report.
			idx.Publish("escape-mcp", "1.0", "escape_mcp-1.0-py3-none-any\x1b]8;;http://x.invalid\x07.whl", []byte("esc"))
			idx.Publish("native-mcp", "3.0", "native_mcp-3.0-cp312-cp312-macosx_11_0_arm64.whl", []byte("dylib"))
			for _, tc := range []struct {
				spec, version, file, err string
			}{
				{spec: "fixture-mail-mcp", version: "1.1.0", file: "fixture_mail_mcp-1.1.0.tar.gz"},
				{spec: "Fixture_Mail.MCP==1.0.0", version: "1.0.0", file: "fixture_mail.mcp-1.0.0-py3-none-any.whl"},
				{spec: "fixture-mail-mcp@1.0.0", version: "1.0.0", file: "fixture_mail.mcp-1.0.0-py3-none-any.whl"},
				{spec: "fixture-mail-mcp<1.1", version: "1.0.0", file: "fixture_mail.mcp-1.0.0-py3-none-any.whl"},
				{spec: "fixture-mail-mcp==1.2.0", version: "1.2.0", file: "fixture_mail_mcp-1.2.0-py3-none-any.whl"},
				{spec: "fixture-mail-mcp>=2.0rc1", version: "2.0rc1", file: "fixture_mail_mcp-2.0rc1-py3-none-any.whl"},
				{spec: "fixture-mail-mcp>=1.5", version: "2.0rc1", file: "fixture_mail_mcp-2.0rc1-py3-none-any.whl"},
				{spec: "fixture-mail-mcp>=3", err: "no release"},
				{spec: "native-mcp", err: "platform wheels only"},
				{spec: "escape-mcp", err: "no release"},
				{spec: "absent-mcp", err: "404"},
			} {
				rel, err := ResolvePy(context.Background(), nil, idx.URL, tc.spec)
				if tc.err != "" {
					if err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Errorf("%s: %+v, %v; want error %q", tc.spec, rel, err, tc.err)
					}
					continue
				}
				if err != nil || rel.Version != tc.version || rel.File != tc.file || rel.SHA256 != idx.SHA256(tc.file) {
					t.Errorf("%s: %+v, %v; want %s %s", tc.spec, rel, err, tc.version, tc.file)
				}
			}
		})
	}
}

func FuzzParseIndexHTML(f *testing.F) {
	f.Add([]byte(`<a href="../x-1.0.tar.gz#sha256=` + strings.Repeat("a", 64) + `" data-yanked="">x-1.0.tar.gz</a>`))
	f.Add([]byte(`<html><a href='x'>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		files, err := parseIndexHTML(b, "p")
		if err == nil {
			for _, fl := range files {
				fileVersion("x", fl.Name)
			}
		}
		if v, err := parsePEP440(string(b)); err == nil {
			if w, err := parsePEP440(v.String()); err != nil || comparePEP440(v, w) != 0 {
				t.Fatalf("%q normalizes to %q, which reads back as %v, %v", b, v.String(), w, err)
			}
		}
	})
}
