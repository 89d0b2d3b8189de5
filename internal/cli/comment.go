package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/github"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// postComment creates or updates the sticky pull request comment for the
// pull request of this workflow run (GITHUB_EVENT_PATH, GITHUB_REPOSITORY),
// with the token in GITHUB_TOKEN and the API at GITHUB_API_URL. A failure is
// also noted in the job summary when there is one, because the log is where
// nobody looks: the caller turns it into a warning, never a failed check.
func postComment(ctx context.Context, env Env, r *report.Report, ropts report.Options) error {
	return upsert(ctx, env, r, ropts, commentTarget{})
}

// commentTarget overrides what the event file says (the comment command's
// --repo, --pr and --github-token-env).
type commentTarget struct {
	repo     string
	pr       int
	tokenEnv string
}

func upsert(ctx context.Context, env Env, r *report.Report, ropts report.Options, t commentTarget) (err error) {
	getenv := github.Getenv(env.Getenv)
	defer func() {
		if err != nil {
			noteSummary(env, "the pull request comment was not posted: "+err.Error())
		}
	}()
	client, err := github.ClientFromEnv(getenv, t.tokenEnv)
	if err != nil {
		return err
	}
	var repo github.Repo
	var number int
	if t.pr > 0 {
		if t.repo != "" {
			repo, err = github.ParseRepo(t.repo)
		} else {
			repo, err = github.RepoFromEnv(getenv)
		}
		if err != nil {
			return err
		}
		number = t.pr
	} else {
		pr, err := github.PullRequestFromEvent(ctx, getenv, client)
		if err != nil {
			return err
		}
		repo, number = pr.Repo, pr.Number
	}
	if ropts.SummaryURL == "" {
		ropts.SummaryURL = github.RunURL(getenv)
	}
	var body bytes.Buffer
	if err := report.Write(&body, report.FormatMarkdown, r, ropts); err != nil {
		return err
	}
	url, err := github.UpsertComment(ctx, client, repo.Owner, repo.Name, number, body.String())
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: pull request comment: %s\n", url)
	return nil
}

// noteSummary appends a one-line warning to the job summary, if the step
// has one. The message may hold text from the API: it goes into a code span
// with backticks and line breaks removed, so it cannot become markup.
func noteSummary(env Env, msg string) {
	path, _ := env.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	msg = strings.Map(func(r rune) rune {
		switch r {
		case '`', '\r', '\n':
			return ' '
		}
		return r
	}, msg)
	line := "\n> [!WARNING]\n> mcp-lockcheck: `" + msg + "`\n\n"
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
}

// runComment posts a report written by an earlier `check --json` as the
// sticky comment. It exists for the two-workflow setup: the pull request's
// check runs with a read-only token and uploads report.json; a workflow_run
// workflow with pull-requests: write downloads it and runs this, never
// checking out or running the pull request's code. The report is the pull
// request author's data there, so it is validated and its summary
// recomputed before it is rendered (see readReport).
func runComment(ctx context.Context, args []string, env Env) (int, error) {
	fs := newFlagSet("comment", env)
	from := fs.String("from", "", "the JSON report `FILE` to post (from check --json or merge --json)")
	tokenEnv := fs.String("github-token-env", github.DefaultTokenEnv, "read the GitHub token from this environment variable `NAME`")
	repo := fs.String("repo", "", "repository `OWNER/NAME` (default $GITHUB_REPOSITORY)")
	pr := fs.Int("pr", 0, "pull request `NUMBER` (default: the pull request of this run's event)")
	lockPath := fs.String("lock", lock.DefaultPath, "lockfile `FILE` the report is about (for locations)")
	bestEffort := fs.Bool("best-effort", false, "a comment that cannot be posted is a warning (exit 0), as in check --comment")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if *from == "" {
		return ExitUsage, usageErr("comment: --from FILE is required")
	}
	r, err := readReport(*from, env)
	if err != nil {
		return ExitUsage, err
	}
	ropts := report.Options{LockPath: *lockPath, ToolVersion: toolVersion(), Redactor: env.red}
	if err := upsert(ctx, env, r, ropts, commentTarget{repo: *repo, pr: *pr, tokenEnv: *tokenEnv}); err != nil {
		if *bestEffort {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: warning: pull request comment not posted: %v\n", err)
			return ExitOK, nil
		}
		return ExitUsage, fmt.Errorf("pull request comment not posted: %w", err)
	}
	return ExitOK, nil
}

// maxReportBytes bounds a report read from disk: it may come from an
// artifact anyone who opens a pull request controls.
const maxReportBytes = 64 << 20

// readReport reads and validates a JSON report (the `check --format json`
// contract): lockfile version 1, known statuses and rule ids, valid
// severities and fail-on. Its summary is recomputed from its findings, so
// counts and the exit code cannot disagree with what is listed.
func readReport(path string, env Env) (*report.Report, error) {
	c := common{}
	f, err := os.Open(c.path(env, path))
	if err != nil {
		return nil, asUsage(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, asUsage(fmt.Errorf("%s: %w", path, err))
	}
	if len(data) > maxReportBytes {
		return nil, usageErr("%s: larger than %d MiB", path, maxReportBytes>>20)
	}
	var r report.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, usageErr("%s: not a JSON report: %v", path, err)
	}
	if dec.More() {
		return nil, usageErr("%s: data after the report", path)
	}
	if r.LockfileVersion != lock.Version {
		return nil, usageErr("%s: lockfileVersion %d, want %d", path, r.LockfileVersion, lock.Version)
	}
	failOn := finding.Error
	if r.Summary.FailOn != "" {
		if failOn, err = finding.ParseSeverity(r.Summary.FailOn); err != nil {
			return nil, usageErr("%s: summary.failOn: %v", path, err)
		}
	}
	// Warnings are rendered as our own words, unescaped: a report read
	// from a file may carry only the ones this build writes.
	for i, w := range r.Warnings {
		if !slices.Contains(runWarnings, w) {
			return nil, usageErr("%s: warning %d is not one mcp-lockcheck writes", path, i+1)
		}
	}
	if err := checkReportServers(path, &r); err != nil {
		return nil, err
	}
	report.Summarize(&r, failOn, false)
	return &r, nil
}

// checkReportServers refuses a read report's server with an unknown status
// or no name, and a finding with an unknown rule or kind or of another
// server.
func checkReportServers(path string, r *report.Report) error {
	for i, s := range r.Servers {
		if !s.Status.Valid() {
			return usageErr("%s: server %d: unknown status %q", path, i+1, s.Status)
		}
		if s.Name == "" {
			return usageErr("%s: server %d has no name", path, i+1)
		}
		for j, fd := range s.Findings {
			if !fd.Rule.Valid() {
				return usageErr("%s: server %q finding %d: unknown rule %q", path, s.Name, j+1, fd.Rule)
			}
			if fd.Kind != "" && !fd.Kind.Valid() {
				// The renderers print the kind as our own word, unescaped.
				return usageErr("%s: server %q finding %d: unknown kind %q", path, s.Name, j+1, fd.Kind)
			}
			if fd.Server != s.Name {
				return usageErr("%s: server %q finding %d belongs to server %q", path, s.Name, j+1, fd.Server)
			}
		}
	}
	for j, fd := range r.Repository {
		if !fd.Rule.Valid() {
			return usageErr("%s: repository finding %d: unknown rule %q", path, j+1, fd.Rule)
		}
		if fd.Kind != "" && !fd.Kind.Valid() {
			return usageErr("%s: repository finding %d: unknown kind %q", path, j+1, fd.Kind)
		}
	}
	return nil
}
