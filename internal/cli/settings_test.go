package cli

import (
	"errors"
	"testing"
)

// TestTypedSettings pins the closed sets of --protocol and --progress:
// every value outside them (another case, padding, empty) is a usage
// error, never a default.
func TestTypedSettings(t *testing.T) {
	for _, tc := range []struct {
		value     string
		protocol  bool
		progress  bool
		protoWant protocolMode
		progWant  progressStyle
	}{
		{"auto", true, true, protocolAuto, progressAuto},
		{"legacy", true, false, protocolLegacy, ""},
		{"stateless", true, false, protocolStateless, ""},
		{"plain", false, true, "", progressPlain},
		{"tty", false, true, "", progressTTY},
		{"github", false, true, "", progressGitHub},
		{"", false, false, "", ""},
		{"AUTO", false, false, "", ""},
		{" auto", false, false, "", ""},
		{"auto\n", false, false, "", ""},
		{"fancy", false, false, "", ""},
	} {
		m, err := parseProtocolMode(tc.value)
		if (err == nil) != tc.protocol || m != tc.protoWant {
			t.Errorf("parseProtocolMode(%q) = %q, %v", tc.value, m, err)
		}
		if err != nil && !errors.Is(err, ErrUsage) {
			t.Errorf("parseProtocolMode(%q): %v is not a usage error", tc.value, err)
		}
		s, err := parseProgressStyle(tc.value)
		if (err == nil) != tc.progress || s != tc.progWant {
			t.Errorf("parseProgressStyle(%q) = %q, %v", tc.value, s, err)
		}
		if err != nil && !errors.Is(err, ErrUsage) {
			t.Errorf("parseProgressStyle(%q): %v is not a usage error", tc.value, err)
		}
	}
}
