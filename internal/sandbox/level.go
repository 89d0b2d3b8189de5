package sandbox

import (
	"fmt"
	"strings"
)

// Level is how much a server is isolated.
type Level string

// The levels, weakest first. The string values are what flags and the policy
// file accept.
const (
	Off    Level = "off"
	Basic  Level = "basic"
	Strict Level = "strict"
)

// ParseLevel parses a level as written in a flag or policy file. It ignores
// case and surrounding space; anything else, including "", is an error (the
// default level is the caller's decision, not this package's).
func ParseLevel(s string) (Level, error) {
	switch l := Level(strings.ToLower(strings.TrimSpace(s))); l {
	case Off, Basic, Strict:
		return l, nil
	}
	return "", fmt.Errorf("unknown sandbox level %q (want off, basic or strict)", s)
}
