package check_test

import (
	"os"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
)

// exampleDir is the project the Examples check (fakeserver.ExampleProject):
// one server, weather, whose tool asks the model for the user's SSH key,
// served by this test binary re-executed.
var exampleDir string

func TestMain(m *testing.M) {
	// First thing, as in any program that calls check.Run: this binary
	// is re-executed as the sandbox's helper.
	check.Main()
	// And as the fake server the config names.
	fakeserver.MaybeRun()
	dir, err := fakeserver.ExampleProject()
	if err != nil {
		panic(err)
	}
	exampleDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
