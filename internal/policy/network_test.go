package policy

import (
	"fmt"
	"strings"
	"testing"
)

// TestNetworkAllowance: a server's network allowance, as written in the
// forms a YAML author reaches for, and the mistakes each error names with
// the file, line and column.
func TestNetworkAllowance(t *testing.T) {
	p, err := Parse("p.yaml", []byte(`version: 1
servers:
  supabase:
    sandbox: strict
    network: [api.supabase.com:443, localhost:5432, "*.supabase.co:443", "[::1]:6543", 10.0.0.5:5432]
  db:
    network:
      - db.internal:5432
      - DB.internal.:5432
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Effective("supabase", Fixed{}).Network.Strings(), " ")
	if want := "*.supabase.co:443 10.0.0.5:5432 [::1]:6543 api.supabase.com:443 localhost:5432"; got != want {
		t.Errorf("supabase network %q, want %q", got, want)
	}
	if got := p.Effective("db", Fixed{}).Network.Strings(); len(got) != 1 || got[0] != "db.internal:5432" {
		t.Errorf("db network %q", got)
	}
	if got := p.Effective("other", Fixed{}).Network; got != nil {
		t.Errorf("a server the policy does not name has network %v", got)
	}
	if pos := p.Pos("servers.supabase.network"); pos.Line != 5 {
		t.Errorf("position %v", pos)
	}
	for _, c := range []struct{ body, want string }{
		{"    network: [api.example.com]\n", "p.yaml:4:15: invalid policy: servers.s.network: \"api.example.com\" has no port"},
		{"    network: [api.example.com:99999]\n", "p.yaml:4:15: invalid policy: servers.s.network: \"api.example.com:99999\": port \"99999\" is not a number from 1 to 65535"},
		{"    network: [*.example.com:443]\n", "p.yaml:4:15: invalid policy: aliases (*name) are not supported in a policy: a wildcard destination is quoted: \"*.example.com:443\""},
		{"    network: [[::1]:5432]\n", "p.yaml:4:"},
		{"    network:\n      - [\"::1\", 5432]\n", "p.yaml:5:7: invalid policy: servers.s.network: an IPv6 destination is quoted"},
		{"    network: api.example.com:443\n", "p.yaml:4:14: invalid policy: servers.s.network must be a list"},
		{"    network:\n      - \"*.com:443\"\n", "p.yaml:5:9: invalid policy: servers.s.network: \"*.com:443\": a wildcard covers one label"},
		{"    network:\n      - api.example.com: 443\n", "p.yaml:5:7: invalid policy: servers.s.network: write each destination as one value"},
		{"    network: [dns.example.com:53]\n", "port 53 is name lookups"},
	} {
		_, err := Parse("p.yaml", []byte("version: 1\nservers:\n  s:\n"+c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v\nwant %s", c.body, err, c.want)
		}
	}
	_, err = Parse("p.yaml", []byte("version: 1\ndefaults:\n  network: [a.example.com:443]\n"))
	if err == nil || !strings.Contains(err.Error(), "p.yaml:3:3:") || !strings.Contains(err.Error(), "servers.NAME.network") {
		t.Errorf("network in defaults: %v", err)
	}
}

// TestNetworkUnderBase: under --base the allowance in force is what both
// policies allow, and every destination the pull request adds (a host, a
// port, a wildcard) is policy-weakened on its line.
func TestNetworkUnderBase(t *testing.T) {
	base := mustParse(t, "version: 1\nservers:\n  s:\n    network: [api.example.com:443, db.internal:5432]\n")
	for _, c := range []struct {
		name, pr string
		inForce  string
		weak     string
	}{
		{"same", "version: 1\nservers:\n  s:\n    network: [db.internal:5432, api.example.com:443]\n", "api.example.com:443 db.internal:5432", ""},
		{"narrower", "version: 1\nservers:\n  s:\n    network: [api.example.com:443]\n", "api.example.com:443", ""},
		{"none", "version: 1\nservers:\n  s:\n    sandbox: strict\n", "", ""},
		{"a new host", "version: 1\nservers:\n  s:\n    network: [api.example.com:443, db.internal:5432, evil.example.net:443]\n",
			"api.example.com:443 db.internal:5432", "servers.s.network [api.example.com:443, db.internal:5432] -> [api.example.com:443, db.internal:5432, evil.example.net:443] @4: this pull request lets server \"s\" reach evil.example.net:443"},
		{"a new port", "version: 1\nservers:\n  s:\n    network:\n      - api.example.com:8443\n      - db.internal:5432\n",
			"db.internal:5432", "servers.s.network [api.example.com:443, db.internal:5432] -> [api.example.com:8443, db.internal:5432] @4: this pull request lets server \"s\" reach api.example.com:8443"},
		{"a wildcard", "version: 1\nservers:\n  s:\n    network: [\"*.example.com:443\", db.internal:5432]\n",
			"api.example.com:443 db.internal:5432", "reach *.example.com:443"},
		{"the file deleted", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cb := &Combined{Base: base, PR: mustParse(t, c.pr), Run: testRun}
			if got := strings.Join(cb.Effective("s", Fixed{}).Network.Strings(), " "); got != c.inForce {
				t.Errorf("in force %q, want %q", got, c.inForce)
			}
			var weak []string
			for _, f := range cb.Weakenings([]string{"s"}, "p.yaml") {
				if strings.HasSuffix(f.Field, ".network") {
					weak = append(weak, fmt.Sprintf("%s %s -> %s @%d: %s", f.Field, f.Before, f.After, f.Line, f.Message))
				}
			}
			got := strings.Join(weak, "\n")
			if c.weak == "" && got != "" || c.weak != "" && !strings.Contains(got, c.weak) {
				t.Errorf("weakenings:\n%s\nwant %q", got, c.weak)
			}
		})
	}
	// A wildcard in the base covers a name the pull request narrows to.
	cb := &Combined{Base: mustParse(t, "version: 1\nservers:\n  s:\n    network: [\"*.example.com:443\"]\n"),
		PR: mustParse(t, "version: 1\nservers:\n  s:\n    network: [api.example.com:443]\n"), Run: testRun}
	if got := strings.Join(cb.Effective("s", Fixed{}).Network.Strings(), " "); got != "api.example.com:443" {
		t.Errorf("narrowed to %q", got)
	}
	if w := cb.Weakenings([]string{"s"}, "p.yaml"); len(w) != 0 {
		t.Errorf("narrowing is weakening: %v", w)
	}
}
