package check

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// TestRunWithoutMain: a program that never called Main gets a usage
// error from Run, before anything is read or started: its re-executed
// self would run its own main instead of becoming the sandbox's helper.
func TestRunWithoutMain(t *testing.T) {
	was := mainCalled.Swap(false)
	defer mainCalled.Store(was)
	r, err := Run(context.Background(), Config{Dir: t.TempDir()})
	if r != nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "check.Main") {
		t.Fatalf("%v, %v", r, err)
	}
}

// TestConfigDefaults: a Config's zero values are the command line's
// defaults, FailOn included (a zero FailOn once meant finding.Note, and
// failed a run on every note).
func TestConfigDefaults(t *testing.T) {
	for _, tt := range []struct {
		failOn Severity
		want   finding.Severity
	}{
		{"", finding.Error},
		{FailOnError, finding.Error},
		{FailOnWarning, finding.Warning},
		{FailOnNote, finding.Note},
		{FailOnNever, finding.Never},
	} {
		ec, err := Config{FailOn: tt.failOn}.engine()
		if err != nil {
			t.Fatal(err)
		}
		if ec.Options.FailOn != tt.want {
			t.Errorf("FailOn %q: the engine fails on %v, want %v", tt.failOn, ec.Options.FailOn, tt.want)
		}
	}
}
