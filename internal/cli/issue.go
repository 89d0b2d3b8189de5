package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/github"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// issueFlags are issue's flags: the report, the lock it names, and the
// repository, token and issue.
type issueFlags struct {
	from, lockPath, repo, tokenEnv, title string
	labels                                multi
}

func (f *issueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.from, "from", "", "the JSON report `FILE` of the deep check (check --json FILE); a FILE that does not exist means the check could not run")
	fs.StringVar(&f.lockPath, "lock", lock.DefaultPath, "lockfile `FILE` the report is about; it names the issue (one issue per lock)")
	fs.StringVar(&f.repo, "repo", "", "repository `OWNER/NAME` (default $GITHUB_REPOSITORY)")
	fs.StringVar(&f.tokenEnv, "github-token-env", github.DefaultTokenEnv, "read the GitHub token from this environment variable `NAME`")
	fs.StringVar(&f.title, "title", "", "the issue's `TITLE` (default: mcp-lockcheck: the deep check finds drift in LOCK)")
	fs.Var(&f.labels, "label", "label a new issue with `NAME` (repeatable; default "+github.DefaultIssueLabel+"); the issue is found again by the first label")
}

// runIssue keeps the one drift issue of a scheduled deep check in line
// with the JSON report that check wrote (examples/workflows/deep-nightly.yml):
// drift opens, updates or reopens it, a clean run closes it, and a run
// that held a server or wrote no report (it could not run) closes nothing
// and says so in an open issue. Drift that only deep baiting finds is a
// finding against the server, so this opens an issue, never a re-pin pull
// request.
//
// Like `comment --from`, it launches no server: the token lives only in
// this step, after the check's servers are gone.
func runIssue(ctx context.Context, args []string, env Env) (int, error) {
	var f issueFlags
	fs := newFlagSet("issue", env)
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if f.from == "" {
		return ExitUsage, usageErr("issue: --from FILE is required")
	}
	getenv := github.Getenv(env.Getenv)
	d := github.DriftIssue{Marker: issueMarker(f.lockPath), Title: f.title, RunURL: github.RunURL(getenv)}
	if len(f.labels) > 0 {
		d.Labels = f.labels
	}
	if d.Title == "" {
		d.Title = "mcp-lockcheck: the deep check finds drift in " + inertLine(f.lockPath)
	}
	var err error
	if f.repo != "" {
		d.Repo, err = github.ParseRepo(f.repo)
	} else {
		d.Repo, err = github.RepoFromEnv(getenv)
	}
	if err != nil {
		return ExitUsage, asUsage(err)
	}
	c := common{}
	r, err := readReport(f.from, env)
	switch {
	case err == nil:
		d.Status = report.IssueStatus(r, env.Now(), d.RunURL)
		switch r.Summary.ExitCode {
		case ExitOK:
			d.Outcome = github.Clean
		case ExitDrift:
			d.Outcome = github.Drifted
			var body bytes.Buffer
			ropts := report.Options{LockPath: f.lockPath, ToolVersion: toolVersion(), Redactor: env.red, SummaryURL: d.RunURL}
			if err := report.WriteIssue(&body, r, report.IssueOptions{Options: ropts, Marker: d.Marker, Status: d.Status}); err != nil {
				return ExitUsage, err
			}
			d.Body = body.String()
		default:
			d.Outcome = github.Inconclusive
		}
	case errors.Is(err, os.ErrNotExist) && !fileExists(c.path(env, f.from)):
		// The check stopped before writing its report (exit 2, a
		// cancelled job): nothing is known about the servers.
		d.Outcome = github.Inconclusive
		d.Status = report.IssueRunLine(env.Now(), d.RunURL) + "the deep check could not run (it wrote no report; see the run's log). Nothing was checked, so this issue stays open."
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s does not exist: the deep check could not run; the issue is not closed\n", f.from)
	default:
		return ExitUsage, err
	}
	client, err := github.ClientFromEnv(getenv, f.tokenEnv)
	if err != nil {
		return ExitUsage, asUsage(err)
	}
	res, err := github.SyncDriftIssue(ctx, client, d)
	if err != nil {
		return ExitUsage, fmt.Errorf("drift issue: %w", err)
	}
	switch res.Did {
	case "none":
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: no open drift issue, none opened\n")
	default:
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s issue #%d: %s\n", res.Did, res.Number, res.URL)
	}
	return ExitOK, nil
}

// issueMarker names the drift issue of one lock: the lock's path, with
// anything but a path's plain characters spelt as "_" and no "--", so it
// cannot end the HTML comment or be read as markup.
func issueMarker(lockPath string) string {
	key := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '/', r == '_', r == '-':
			return r
		}
		return '_'
	}, lockPath)
	for strings.Contains(key, "--") {
		key = strings.ReplaceAll(key, "--", "-")
	}
	return "<!-- mcp-lockcheck:deep-drift lock=" + key + " -->"
}

// inertLine keeps printable characters of a one-line value for a title.
func inertLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
