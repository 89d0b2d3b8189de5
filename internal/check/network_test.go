package check

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestStrictNetworkAllowance: a server that needs its backend before it
// lists anything is held under strict with no allowance, pins under
// strict with one (the lock records it in the launch), and the report
// names what it tried and was refused. A check with another allowance
// than the lock's is launch-changed.
func TestStrictNetworkAllowance(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	if err := sandbox.Available(sandbox.Strict); err != nil {
		testproc.NoPrivilege(t, "strict sandbox unavailable here: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("backend ready\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	api := fmt.Sprintf("api.lockcheck.invalid:%d", port)
	s := config.Server{Name: "needs-api", Type: "stdio", Command: os.Args[0], File: ".mcp.json", Line: 1, Client: "claude-code",
		Env: map[string]string{"FAKE_SCENARIO": "custom", "FAKE_TOOLS": `[{"name":"query","description":"Query the backend.","inputSchema":{"type":"object"}}]`,
			"FAKE_API": api, "FAKE_API_OPTIONAL": fmt.Sprintf("telemetry.lockcheck.invalid:443,127.0.0.1:%d", port)}}
	opts := artifactOptions(t, sandbox.Strict, t.TempDir(), s)
	opts.Sandbox.Resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "api.lockcheck.invalid" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no test host %s", host)
	}

	// No allowance: held, as strict always held it.
	r := Compare(context.Background(), opts)
	if r.Servers[0].Status != report.StatusHeld {
		t.Fatalf("without an allowance: status %s\n%s", r.Servers[0].Status, dumpFindings(r))
	}

	allowed, _ := sandbox.ParseDests([]string{api})
	opts.Network = map[string]sandbox.Allowance{"needs-api": allowed}
	lk, data := pinWith(t, opts)
	if got := lk.Servers["needs-api"].Launch.Network; len(got) != 1 || got[0] != api {
		t.Fatalf("the lock records network %q, want [%s]", got, api)
	}
	if !strings.Contains(string(data), `"network": [`) {
		t.Errorf("lock:\n%s", data)
	}
	r = checkWith(opts, lk, data)
	if r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("check with the pinned allowance: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	notes := strings.Join(r.Servers[0].Notes, "\n")
	for _, w := range []string{"telemetry.lockcheck.invalid (name not allowed)", fmt.Sprintf("127.0.0.1:%d (not allowed)", port), "servers.needs-api.network"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes do not say %q:\n%s", w, notes)
		}
	}
	if iso := r.Servers[0].Isolation; !strings.Contains(iso, "network only to "+api) {
		t.Errorf("isolation %q", iso)
	}

	// A wider allowance than the lock's: launch-changed, naming it.
	wider, _ := sandbox.ParseDests([]string{api, "telemetry.lockcheck.invalid:443"})
	opts.Network = map[string]sandbox.Allowance{"needs-api": wider}
	r = checkWith(opts, lk, data)
	f := findingOf(r, finding.LaunchChanged)
	if f == nil || !strings.Contains(f.After, "telemetry.lockcheck.invalid:443") || r.Summary.ExitCode != report.ExitDrift {
		t.Fatalf("a wider allowance: exit %d, %+v\n%s", r.Summary.ExitCode, f, dumpFindings(r))
	}
}
