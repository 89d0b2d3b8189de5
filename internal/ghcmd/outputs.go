package ghcmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// ErrNoOutputFile is SetOutputs' error outside a GitHub Actions step.
// go-githubactions panics when the variable is unset; this lets the CLI
// say "not running in GitHub Actions" instead.
var ErrNoOutputFile = errors.New("GITHUB_OUTPUT is not set: not running in a GitHub Actions step")

// SetOutputs appends step outputs to the file named by GITHUB_OUTPUT (read
// through env, so tests and the CLI inject it). Keys are written in sorted
// order. A value without CR or LF is written as key=value; any other as
// key<<DELIM ... DELIM, where DELIM is derived from the SHA-256 of key and
// value and checked not to occur in the value: the library's fixed delimiter
// would let a value that contains it end the value early and set other
// outputs.
func SetOutputs(env func(string) string, outs map[string]string) error {
	path := env("GITHUB_OUTPUT")
	if path == "" {
		return ErrNoOutputFile
	}
	keys := make([]string, 0, len(outs))
	for k := range outs {
		if !validOutputName(k) {
			return fmt.Errorf("invalid output name %q (want letters, digits, '-' and '_')", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var buf bytes.Buffer
	for _, k := range keys {
		v := outs[k]
		if !strings.ContainsAny(v, "\r\n") {
			fmt.Fprintf(&buf, "%s=%s\n", k, v)
			continue
		}
		delim := outputDelimiter(k, v)
		fmt.Fprintf(&buf, "%s<<%s\n%s\n%s\n", k, delim, v, delim)
	}
	return appendFile(path, buf.Bytes())
}

// outputDelimiter is deterministic (golden-testable) and cannot be chosen by
// whoever controls the value: it would have to contain its own hash.
func outputDelimiter(k, v string) string {
	sum := sha256.Sum256([]byte(k + "\x00" + v))
	delim := "MCP_LOCKCHECK_EOF_" + hex.EncodeToString(sum[:12])
	for strings.Contains(v, delim) {
		delim += "_"
	}
	return delim
}

func validOutputName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// appendFile appends b with one write, as the runner's own file commands do:
// these files are shared by every step of the job and are appended to, never
// replaced.
func appendFile(path string, b []byte) (err error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.Write(b)
	return err
}
