package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/atomicfile"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/github"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// repinFlags are repin's flags: the probe's, who approves, and the pull
// request it proposes.
type repinFlags struct {
	probing
	approvedBy, mdOut, fromBody         string
	openPR                              bool
	branch, base, repo, tokenEnv, title string
	labels                              multi
}

func (c *repinFlags) register(fs *flag.FlagSet) {
	c.probing.register(fs)
	fs.StringVar(&c.approvedBy, "approved-by", "", "record the new entries as approved by `WHO` (default: git config user.email, else $USER)")
	fs.BoolVar(&c.openPR, "open-pr", false, "commit the new lock on --branch through the GitHub API and open or update its pull request")
	fs.StringVar(&c.branch, "branch", github.DefaultRepinBranch, "the pull request's head `BRANCH` (rebuilt on the base every run)")
	fs.StringVar(&c.base, "base-branch", "", "the pull request's base `BRANCH` (default: the repository's default branch)")
	fs.StringVar(&c.repo, "repo", "", "repository `OWNER/NAME` (default $GITHUB_REPOSITORY)")
	fs.StringVar(&c.tokenEnv, "github-token-env", github.DefaultTokenEnv, "read the GitHub token from this environment variable `NAME`")
	fs.StringVar(&c.title, "title", "mcp-lockcheck: re-pin MCP servers", "the pull request's `TITLE`")
	fs.Var(&c.labels, "label", "label the pull request with `NAME` (repeatable; default mcp-lockcheck)")
	fs.StringVar(&c.mdOut, "markdown", "", "also write the pull request body to `FILE`")
	fs.StringVar(&c.fromBody, "from-body", "", "with --open-pr: probe nothing; propose the lock as it is on disk with the pull request body in `FILE`, written by an earlier repin --markdown FILE (no FILE: nothing changed, nothing proposed), so the process holding the token never launched a server")
}

// runRepin is the scheduled re-pin: the same probe as pin, and when the lock
// changed, the new lock written locally and, with --open-pr, committed on a
// fixed branch and proposed as one pull request whose body says what changed
// tool by tool. Merging that pull request is the reviewed approval; nothing
// is approved by the schedule itself.
func runRepin(ctx context.Context, args []string, env Env) (int, error) {
	var c repinFlags
	fs := newFlagSet("repin", env)
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if c.fromBody != "" {
		if !c.openPR {
			return ExitUsage, usageErr("--from-body goes with --open-pr")
		}
		return proposeRepin(ctx, &c.common, env, c.fromBody, c.tokenEnv, func() (github.RepinPR, error) {
			return repinTarget(&c.common, env, c.repo, c.branch, c.base, c.title, c.labels)
		})
	}
	cfg, err := c.config(env, "")
	if err != nil {
		return ExitUsage, err
	}
	l, err := check.Load(cfg)
	if err != nil {
		return ExitUsage, err
	}
	c.lockPath = l.Sources.Lock
	old, oldData := l.Lock, l.LockData
	var target github.RepinPR
	if c.openPR {
		// Everything the API step needs is settled before probing, so a
		// typo costs seconds, not a whole probe.
		if target, err = repinTarget(&c.common, env, c.repo, c.branch, c.base, c.title, c.labels); err != nil {
			return ExitUsage, err
		}
	}
	who := approval.Approver{By: c.approvedBy, At: env.Now()}
	if who.By == "" {
		who.By = approver(c.dir(env), env.Getenv)
	}
	next, pr, err := l.Pin(ctx, who)
	if err != nil {
		return ExitUsage, err
	}
	if err := report.Write(env.Stderr, report.FormatText, pr, report.Options{LockPath: c.lockPath, Redactor: env.red, NoNext: true, Width: termWidth(env, env.Stderr)}); err != nil {
		return ExitUsage, err
	}
	if next == nil || pr.Summary.Held > 0 {
		// A re-pin proposes the whole config: one with a held server
		// (which pin would leave as it was) waits for the next run.
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing re-pinned: %s is unchanged and no pull request was opened\n", c.lockPath)
		return pr.Summary.ExitCode, nil
	}
	data, err := next.Marshal()
	if err != nil {
		return ExitUsage, err
	}
	if bytes.Equal(data, oldData) {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: no change: %s already pins what the servers show; no pull request opened\n", c.lockPath)
		return ExitOK, nil
	}
	body, err := repinBody(ctx, &c.common, l.Options, old, oldData, next)
	if err != nil {
		return ExitUsage, err
	}
	if err := lock.WriteAtomic(c.path(env, c.lockPath), data); err != nil {
		return ExitUsage, err
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: re-pinned %s\n", c.lockPath)
	if c.mdOut != "" {
		if err := atomicfile.Write(c.path(env, c.mdOut), []byte(body)); err != nil {
			return ExitUsage, err
		}
	}
	if !c.openPR {
		return ExitOK, nil
	}
	return openRepin(ctx, env, c.tokenEnv, target, data, body)
}

// openRepin commits data on the target's branch and opens or updates its
// pull request with body.
func openRepin(ctx context.Context, env Env, tokenEnv string, t github.RepinPR, data []byte, body string) (int, error) {
	client, err := github.ClientFromEnv(github.Getenv(env.Getenv), tokenEnv)
	if err != nil {
		return ExitUsage, asUsage(err)
	}
	t.Content, t.Body = data, body
	res, err := github.OpenRepinPR(ctx, client, t)
	if err != nil {
		return ExitUsage, fmt.Errorf("re-pin pull request: %w", err)
	}
	verb := "updated"
	if res.Created {
		verb = "opened"
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s pull request #%d: %s\n", verb, res.Number, res.URL)
	return ExitOK, nil
}

// proposeRepin is the second half of a re-pin split in two steps: the
// first (`repin --markdown FILE`, no token in its environment) probed the
// servers and wrote the lock and the body; this one, holding the token,
// launches nothing and only proposes what the first wrote. Splitting the
// workflow this way keeps the token out of every process a server ran
// beside, whatever the sandbox.
func proposeRepin(ctx context.Context, c *common, env Env, bodyFile, tokenEnv string, target func() (github.RepinPR, error)) (int, error) {
	body, err := os.ReadFile(c.path(env, bodyFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: no change: %s was not written (the re-pin found nothing new); no pull request opened\n", bodyFile)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, err
	}
	data, err := os.ReadFile(c.path(env, c.lockPath))
	if err != nil {
		return ExitUsage, fmt.Errorf("reading the re-pinned lock: %w", err)
	}
	if _, err := lock.Parse(c.lockPath, data); err != nil {
		return ExitUsage, asUsage(err)
	}
	t, err := target()
	if err != nil {
		return ExitUsage, err
	}
	return openRepin(ctx, env, tokenEnv, t, data, string(body))
}

// repinTarget resolves the repository, the lock's path in it and the
// pull request's text.
func repinTarget(c *common, env Env, repo, branch, base, title string, labels []string) (github.RepinPR, error) {
	var t github.RepinPR
	var err error
	if repo != "" {
		t.Repo, err = github.ParseRepo(repo)
	} else {
		t.Repo, err = github.RepoFromEnv(github.Getenv(env.Getenv))
	}
	if err != nil {
		return t, asUsage(err)
	}
	root := repoRoot(c.dir(env), env)
	rel, err := filepath.Rel(root, c.path(env, c.lockPath))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return t, usageErr("--lock %s is outside the repository at %s", c.lockPath, root)
	}
	t.Path = filepath.ToSlash(rel)
	t.Branch, t.Base, t.Title, t.Labels = branch, base, title, labels
	t.CommitMessage = "mcp-lockcheck: re-pin " + t.Path + "\n\nWritten by `mcp-lockcheck repin`. Review the pull request's description:\nmerging it approves what the servers now show."
	return t, nil
}

// repoRoot is the top of the git work tree holding dir, else
// $GITHUB_WORKSPACE, else dir.
func repoRoot(dir string, env Env) string {
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	if w, ok := env.Getenv("GITHUB_WORKSPACE"); ok && w != "" {
		return w
	}
	return dir
}

// repinBody is the pull request's description: what the servers show now
// compared with the lock being replaced, found by checking them against the
// old lock (every drift finding is a change this pull request approves), in
// the PR comment's markdown, where hidden characters are shown escaped and
// decoded and no server text can become a link, mention or HTML.
func repinBody(ctx context.Context, c *common, opts check.Options, old *lock.File, oldData []byte, next *lock.File) (string, error) {
	opts.Lock, opts.LockData, opts.LockPath, opts.FailOn = old, oldData, c.lockPath, finding.Note
	r := check.Compare(ctx, opts)
	var md bytes.Buffer
	if err := report.Write(&md, report.FormatMarkdown, r, report.Options{LockPath: c.lockPath, ToolVersion: toolVersion(), Redactor: opts.Redactor}); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("This pull request re-pins `" + strings.ReplaceAll(c.lockPath, "`", "") + "`: the MCP servers it names now show their model something other than what was approved. ")
	b.WriteString("**Merging it approves the new text.** Read every change below; hidden characters are shown escaped.\n\n")
	b.WriteString("The lockfile diff is what is approved. The report below comes from a second probe against the old lock, so a server that answers differently from one probe to the next shows up here as well.\n\n")
	b.WriteString(artifactTable(old, next))
	b.WriteString(md.String())
	return b.String(), nil
}

// artifactTable is the pull request's list of servers whose artifact (the
// package version, its integrity, the image digest, the file's hash)
// changes with this re-pin: merging approves new code even when every
// tool reads the same. "" when none does. Every value is a code span of
// inert text: versions and paths come from packages and configs.
func artifactTable(old, next *lock.File) string {
	if next == nil {
		return ""
	}
	var rows []string
	for _, name := range slices.Sorted(maps.Keys(next.Servers)) {
		n := next.Servers[name].Launch
		var o lock.Launch
		if old != nil && old.Servers[name] != nil {
			o = old.Servers[name].Launch
		}
		if o.Resolved == n.Resolved && o.Integrity == n.Integrity && o.Digest == n.Digest && o.FileSHA256 == n.FileSHA256 {
			continue
		}
		rows = append(rows, "| "+report.MarkdownCell(name)+" | "+artifactCell(o)+" | "+artifactCell(n)+" |")
	}
	if len(rows) == 0 {
		return ""
	}
	return "### What runs\n\nThese servers run other code after this pull request: review the code difference, not only the tools.\n\n| server | approved | now |\n|---|---|---|\n" + strings.Join(rows, "\n") + "\n\n"
}

func artifactCell(l lock.Launch) string {
	var parts []string
	switch {
	case l.Package != "" && l.Resolved != "":
		parts = append(parts, report.MarkdownCell(l.Package+" "+l.Resolved))
	case l.Package != "":
		parts = append(parts, report.MarkdownCell(l.Package))
	case l.File != "":
		parts = append(parts, report.MarkdownCell(l.File))
	}
	for _, v := range []string{l.Integrity, l.Digest, l.FileSHA256} {
		if v != "" {
			parts = append(parts, report.MarkdownCell(v))
		}
	}
	if len(parts) == 0 {
		return "(not recorded)"
	}
	return strings.Join(parts, "<br>")
}
