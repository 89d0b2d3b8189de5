package check

import (
	"context"
	"errors"
	"strings"
	"testing"
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
