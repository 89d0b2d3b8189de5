package cli

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/termtable"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// checkFlags are check's flags: the probe's, the report's outputs, the
// base branch to review against and the pull request comment.
type checkFlags struct {
	probing
	outputs
	baseLock, baseRef, basePolicy string
	comment                       bool
}

// outputs are the report's outputs and threshold, which check and lint
// share: one report, rendered and judged the same way.
type outputs struct {
	format, failOn, automation           string
	jsonOut, sarifOut, mdOut, summaryOut string
}

func (o *outputs) register(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "text", "stdout `FORMAT`: text, json, sarif, markdown, summary or annotations")
	fs.StringVar(&o.jsonOut, "json", "", "also write the JSON report to `FILE`")
	fs.StringVar(&o.sarifOut, "sarif", "", "also write SARIF to `FILE`")
	fs.StringVar(&o.mdOut, "markdown", "", "also write the markdown PR comment to `FILE`")
	fs.StringVar(&o.summaryOut, "summary", "", "also write the job summary markdown to `FILE`")
	fs.StringVar(&o.failOn, "fail-on", "error", "lowest `SEVERITY` that fails the run: error, warning, note or never")
	fs.StringVar(&o.automation, "automation-id", "", "SARIF automationDetails.id `ID` (unique per job)")
}

// stdoutFormat is --format, read; a bad one is a usage error.
func (o *outputs) stdoutFormat() (report.Format, error) {
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return f, asUsage(fmt.Errorf("--format: %w", err))
	}
	return f, nil
}

func (c *checkFlags) register(fs *flag.FlagSet) {
	c.probing.register(fs)
	c.outputs.register(fs)
	fs.StringVar(&c.baseLock, "base-lock", "", "also review what this lock approves against the base branch's lock `FILE`")
	fs.StringVar(&c.baseRef, "base", "", "like --base-lock, reading the lock (and the policy) at git `REF`")
	fs.StringVar(&c.basePolicy, "base-policy", "", "with --base-lock: the base branch's policy `FILE`, in force over this one (which can only tighten it)")
	fs.BoolVar(&c.comment, "comment", false, "create or update the sticky pull request comment (GitHub Actions)")
}

func runCheck(ctx context.Context, args []string, env Env) (int, error) {
	var c checkFlags
	fs := newFlagSet("check", env)
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	f, err := c.stdoutFormat()
	if err != nil {
		return ExitUsage, err
	}
	cfg, err := c.config(env, c.failOn)
	if err != nil {
		return ExitUsage, err
	}
	cfg.BaseLock, cfg.BaseRef, cfg.BasePolicy = c.baseLock, c.baseRef, c.basePolicy
	l, err := check.Load(cfg)
	if err != nil {
		return ExitUsage, err
	}
	c.lockPath = l.Sources.Lock
	r, err := l.Check(ctx)
	if err != nil {
		return ExitUsage, err
	}
	ropts := report.Options{LockPath: c.lockPath, ToolVersion: toolVersion(), AutomationID: c.automation, Redactor: env.red, Approve: approveCommand(fs, args), Pin: pinCommand(fs, args)}
	if err := writeReport(env, &c.common, &c.outputs, c.verbose, f, r, ropts); err != nil {
		return ExitUsage, err
	}
	if c.comment {
		// A comment that cannot be posted (a fork's read-only token) is a
		// warning, never a failure of the check.
		if err := postComment(ctx, env, r, ropts); err != nil {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: warning: pull request comment not posted: %v\n", err)
		}
	}
	return r.Summary.ExitCode, nil
}

// writeReport renders r on stdout in format f (text fitted to the
// terminal, verbose as asked) and into the files o names, for check and
// lint.
func writeReport(env Env, c *common, o *outputs, verbose bool, f report.Format, r *report.Report, ropts report.Options) error {
	textOpts := ropts
	if f == report.FormatText {
		textOpts.Width, textOpts.Color, textOpts.Verbose = termWidth(env, env.Stdout), newPainter(env, env.Stdout).on, verbose
	}
	if err := report.Write(env.Stdout, f, r, textOpts); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	targets := report.Targets{JSON: c.outPath(env, o.jsonOut), SARIF: c.outPath(env, o.sarifOut), Markdown: c.outPath(env, o.mdOut), Summary: c.outPath(env, o.summaryOut)}
	return report.WriteAll(r, targets, ropts)
}

func (c *common) outPath(env Env, p string) string {
	if p == "" {
		return ""
	}
	return c.path(env, p)
}

// pinFlags are pin's flags: the probe's, who approves, and the
// threshold the pin is judged by.
type pinFlags struct {
	probing
	approvedBy, failOn string
}

func (c *pinFlags) register(fs *flag.FlagSet) {
	c.probing.register(fs)
	fs.StringVar(&c.approvedBy, "approved-by", "", "record what is pinned as approved by `WHO` (default: git config user.email, else $USER)")
	fs.StringVar(&c.failOn, "fail-on", "error", "lowest `SEVERITY` that fails the pin (exit 1), as it fails a check: error, warning, note or never")
}

func runPin(ctx context.Context, args []string, env Env) (int, error) {
	var c pinFlags
	fs := newFlagSet("pin", env)
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	cfg, err := c.config(env, c.failOn)
	if err != nil {
		return ExitUsage, err
	}
	l, err := check.Load(cfg)
	if err != nil {
		return ExitUsage, err
	}
	c.lockPath = l.Sources.Lock
	lk := l.Lock
	who := approval.Approver{By: c.approvedBy, At: env.Now()}
	if who.By == "" {
		who.By = approver(c.dir(env), env.Getenv)
	}
	next, r, err := l.Pin(ctx, who)
	if err != nil {
		return ExitUsage, err
	}
	if err := report.Write(env.Stderr, report.FormatText, r, report.Options{LockPath: c.lockPath, Redactor: env.red, NoNext: true, Width: termWidth(env, env.Stderr), Verbose: c.verbose}); err != nil {
		return ExitUsage, err
	}
	approve := approveCommand(fs, args)
	if next == nil {
		if r.Summary.Held == len(r.Servers) && len(r.Servers) > 0 {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged (no server could be probed)\n", c.lockPath)
		} else {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged (a server changed during the probe, or showed nothing to pin: a lock is only written from complete, stable probes)\n", c.lockPath)
		}
		// Acknowledgements go into the lock: only servers it already
		// holds can have theirs recorded now.
		if lk != nil {
			kept := *r
			kept.Servers = nil
			for _, s := range r.Servers {
				if lk.Servers[s.Name] != nil {
					kept.Servers = append(kept.Servers, s)
				}
			}
			printAcks(env, report.HostileWarnings(&kept), report.AckCommands(&kept, approve), "")
		}
		return r.Summary.ExitCode, nil
	}
	data, err := next.Marshal()
	if err != nil {
		return ExitUsage, err
	}
	if err := lock.WriteAtomic(c.path(env, c.lockPath), data); err != nil {
		return ExitUsage, err
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: pinned %d server(s) in %s\n", len(r.Servers)-r.Summary.Held, c.lockPath)
	for _, s := range r.Servers {
		if s.Status != report.StatusHeld {
			continue
		}
		kept := "it has no entry"
		if lk != nil && lk.Servers[s.Name] != nil {
			kept = "its entry is kept as it was"
		}
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s was held, not pinned: %s, and check holds it until it is probed; fix the reason above, then run %s %s\n",
			inert.Text(s.Name), kept, pinCommand(fs, args), inert.ShellWord("--server="+s.Name))
	}
	if r.Summary.ExitCode != ExitOK {
		// The lock is written, so the acknowledgements can be recorded
		// in it; until they are, a check of it fails as this pin does.
		printAcks(env, report.HostileWarnings(r), report.AckCommands(r, approve), c.lockPath)
		return r.Summary.ExitCode, nil
	}
	return ExitOK, nil
}

// printAcks lists on stderr what a pin's failing findings ask for: the
// warnings for those that mark a server as hostile (not offered an
// acknowledgement), then the acknowledgement commands for the rest.
// lockPath, when set, is the lock they were written to and that fails a
// check until they are dealt with.
func printAcks(env Env, warnings, acks []string, lockPath string) {
	if len(warnings)+len(acks) == 0 {
		return
	}
	if lockPath != "" {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s fails a check until these findings are fixed at the source or acknowledged.\n", lockPath)
	}
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "  # %s\n", w)
	}
	if len(acks) == 0 {
		return
	}
	fmt.Fprintf(env.Stderr, "After review, record each acknowledgement (with your reason) with:\n")
	for _, a := range acks {
		fmt.Fprintf(env.Stderr, "  %s\n", a)
	}
}

// approver is who a pin is recorded as approved by: git's user.email,
// else $USER.
func approver(dir string, getenv func(string) (string, bool)) string {
	cmd := exec.Command("git", "config", "user.email")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	if u, ok := getenv("USER"); ok && u != "" {
		return u
	}
	return "unknown"
}

// serversFlags are servers' flags: the selection (no lock, no probe)
// and the matrix output.
type serversFlags struct {
	common
	matrix bool
}

func (c *serversFlags) register(fs *flag.FlagSet) {
	c.registerServers(fs)
	fs.BoolVar(&c.matrix, "matrix", false, `print a GitHub Actions matrix: {"include":[{"server":NAME,"config":FILE},...]}`)
}

func runServers(_ context.Context, args []string, env Env) (int, error) {
	var c serversFlags
	fs := newFlagSet("servers", env)
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	servers, _, err := c.loadServers(env)
	if err != nil {
		return ExitUsage, err
	}
	if c.matrix {
		return printMatrix(env, servers)
	}
	rows := serverRows(servers)
	if isTerminal(env.Stdout) {
		// A person reading a terminal gets a table that fits it; a
		// pipe, a file or a script gets one tab-separated line a server.
		if err := termtable.Write(env.Stdout, []string{"server", "config", "transport", "launch"}, rows, termWidth(env, env.Stdout)); err != nil {
			return ExitUsage, err
		}
		return ExitOK, nil
	}
	for _, r := range rows {
		fmt.Fprintln(env.Stdout, strings.Join(r, "\t"))
	}
	return ExitOK, nil
}

// serverRows are what servers prints of each configured server: its name,
// where it is configured, its transport and what it launches (or its URL).
func serverRows(servers []config.Server) [][]string {
	rows := make([][]string, 0, len(servers))
	for _, s := range servers {
		l := pinned.Launch(s)
		target := l.Command + " " + strings.Join(l.Args, " ")
		if l.URL != "" {
			target = l.URL
		}
		rows = append(rows, []string{inert.Text(s.Name), fmt.Sprintf("%s:%d", s.File, s.Line), string(l.Type), inert.Text(strings.TrimSpace(target))})
	}
	return rows
}

// basicInCI is the warning a CI run gets when a server ran with less
// than strict (check.BasicInCI).
const basicInCI = check.BasicInCI

// runWarnings are every run-level warning this build writes.
var runWarnings = check.RunWarnings
