package lock

import (
	"strings"
	"testing"
)

// TestLaunchNetwork: the network allowance is part of the launch identity
// (a changed one is launch-changed), and absent from the lock when none,
// so every lock written before allowances reads, and writes, as before.
func TestLaunchNetwork(t *testing.T) {
	base := Launch{Type: "stdio", Command: "npx", Args: []string{"-y", "x"}}
	with := base
	with.Network = []string{"api.example.com:443"}
	wider := base
	wider.Network = []string{"*.example.com:443", "api.example.com:443"}
	if base.Equal(with) || with.Equal(wider) || !with.Equal(with) {
		t.Error("Equal does not compare the network allowance")
	}
	// An artifact's change is not a launch's, with an allowance too.
	art := with
	art.Resolved, art.Integrity = "1.2.3", "sha512-x"
	if !with.Equal(art) {
		t.Error("the artifact made a launch with an allowance differ")
	}
	f := &File{LockfileVersion: Version, Servers: map[string]*Server{"s": {Launch: base, Tools: map[string]*Entry{}}}}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "network") {
		t.Errorf("a launch with no allowance writes one:\n%s", data)
	}
	f.Servers["s"].Launch = wider
	if data, err = f.Marshal(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\"network\": [\n          \"*.example.com:443\",\n          \"api.example.com:443\"\n        ],") {
		t.Errorf("lock:\n%s", data)
	}
	back, err := Parse("mcp-lock.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Servers["s"].Launch.Equal(wider) {
		t.Errorf("read back %v", back.Servers["s"].Launch.Network)
	}
}
