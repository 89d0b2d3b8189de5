package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// Errors for the GitHub file commands. go-githubactions panics when the
// variable is unset; these let the CLI say "not running in GitHub Actions"
// instead.
var (
	ErrNoOutputFile  = errors.New("GITHUB_OUTPUT is not set: not running in a GitHub Actions step")
	ErrNoSummaryFile = errors.New("GITHUB_STEP_SUMMARY is not set: not running in a GitHub Actions step")
)

// WriteAnnotations writes one workflow command per finding (::error,
// ::warning or ::notice), pointing at the finding's file and line, or the
// lock at line 1, so the runner shows it on the pull request's diff; one
// for the same finding on several subjects of a server (groupSame).
// Acknowledged findings are left out: they never fail the run, and an
// annotation on every run for an accepted finding teaches reviewers to
// ignore annotations.
//
// Escaping: go-githubactions escapes %, CR and LF in the message and also
// `:` and `,` in properties, which is what the runner requires. What it does
// not do is ours: the message goes through escape first (no ANSI escapes or
// bidi controls in the log), and it is passed as an argument to "%s", never
// as the format, because the library's Errorf/Warningf/Noticef run
// fmt.Sprintf on their first argument. The library panics on a write error;
// that becomes the returned error.
func WriteAnnotations(w io.Writer, r *Report, opts Options) (err error) {
	opts = opts.withDefaults()
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(error); ok {
				err = fmt.Errorf("writing annotations: %w", e)
				return
			}
			err = fmt.Errorf("writing annotations: %v", p)
		}
	}()
	gh := githubactions.New(githubactions.WithWriter(w))
	var fs []finding.Finding
	for _, f := range r.Findings() {
		if !f.Acknowledged {
			fs = append(fs, f)
		}
	}
	// The same finding on many subjects of one server is one annotation,
	// at the first one's line, naming them all: the runner shows only the
	// first ten of each level per step.
	fs, same := groupSame(fs)
	for _, f := range fs {
		file, line := f.File, f.Line
		if file == "" {
			file, line = opts.LockPath, 1
		}
		if line < 1 {
			line = 1
		}
		a := gh.WithFieldsMap(map[string]string{
			"file":  file,
			"line":  strconv.Itoa(line),
			"title": "mcp-lockcheck " + escape(string(f.Rule)),
		})
		msg := messageAbout(f, same.subjectText(f))
		switch {
		case f.Severity >= finding.Error:
			a.Errorf("%s", msg)
		case f.Severity == finding.Warning:
			a.Warningf("%s", msg)
		default:
			a.Noticef("%s", msg)
		}
	}
	return nil
}

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

// AppendSummary renders the job summary (WriteSummary) and appends it to the
// file named by GITHUB_STEP_SUMMARY.
func AppendSummary(env func(string) string, r *Report, opts Options) error {
	path := env("GITHUB_STEP_SUMMARY")
	if path == "" {
		return ErrNoSummaryFile
	}
	var buf bytes.Buffer
	if err := Write(&buf, FormatSummary, r, opts); err != nil {
		return err
	}
	return appendFile(path, buf.Bytes())
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
