package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// writeAnnotations writes one workflow command per finding (::error,
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
func writeAnnotations(w io.Writer, r *Report, opts Options) (err error) {
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
