// Package cli is mcp-lockcheck's command line: flags into the engine's
// configuration (package internal/check), rendering, and exit codes. All
// I/O is injected so end-to-end tests run it in-process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/ghcmd"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Exit codes (docs/design.md#exit-codes): 0 ok, 1 drift or a finding at
// --fail-on, 2 the tool could not run as asked, 3 a server was held.
// Precedence 2 > 1 > 3.
// 130 is a run stopped by Ctrl-C (or SIGTERM, or SIGHUP), as shells report it: no
// verdict, nothing written.
// They are the report's (report.ExitOK ...), declared there once.
const (
	ExitOK          = report.ExitOK
	ExitDrift       = report.ExitDrift
	ExitUsage       = report.ExitUsage
	ExitHeld        = report.ExitHeld
	ExitInterrupted = report.ExitInterrupted
)

// errInterrupted is a run stopped by a signal: Main's context (root) is
// cancelled only by SIGINT or SIGTERM. Every server of such a run looks
// held, and a report saying so would be a false verdict: the engine
// returns an error instead of a report (check.Run), the command writes
// nothing, and Run says so and exits ExitInterrupted.
var errInterrupted = errors.New("interrupted: no report and no lock written")

// ErrUsage marks errors that are the caller's: bad flags, an unreadable or
// invalid config or lock. They exit 2. It is the engine's (check.ErrUsage),
// so an error the engine returns maps to the same exit code.
var ErrUsage = check.ErrUsage

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) (string, bool)
	Dir            string // working directory ("" = os.Getwd)
	Now            func() time.Time
	// Environ lists the process environment ("NAME=value"); its values
	// are redacted from everything written (internal/redact). nil: none
	// (secret shapes are still redacted).
	Environ func() []string

	red *redact.Redactor // built by Run from Environ
}

// gcPercent is the collector's target (GOGC) for a run: a cycle when the
// heap has grown to five times what the last one kept.
const gcPercent = 400

// Main runs the command line and returns the exit code. A server's own
// exit status never becomes ours: only the constants above are returned.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Before anything else: a server this run launches must not read our
	// environment (tokens, GITHUB_ENV's path) through /proc.
	if err := sandbox.ProtectSelf(); err != nil {
		fmt.Fprintf(stderr, "mcp-lockcheck: cannot protect its own environment from the servers it runs: %v\n", err)
		return ExitUsage
	}
	// A run's live heap is a few megabytes (the messages it holds are
	// bounded by --max-message-bytes), and most runs last a second: the
	// collector's default of a cycle per doubling spends milliseconds on
	// the critical path of a quick check for memory nobody needs back.
	// GOGC, when the user sets it, wins.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	// A closed terminal (SIGHUP) stops a run as Ctrl-C and SIGTERM do:
	// its servers are ended and its run directories removed before it
	// exits. Their default action would kill this process at once and
	// leave both behind. Unless SIGHUP came ignored (nohup): asking for it
	// would undo that, and the run would stop when the user meant it not to.
	stopOn := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		stopOn = append(stopOn, syscall.SIGHUP)
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopOn...)
	defer stop()
	// So would a write to stdout or stderr after their reader went away
	// (mcp-lockcheck check 2>&1 | head): with SIGPIPE received here, such
	// a write fails (EPIPE) and the run ends as it would have. Received
	// and dropped, not ignored: an ignored SIGPIPE would pass to every
	// server this run starts, and stopping the run on it would stop it for
	// any server that closed its stdin, since the signal does not say
	// which file it is about.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return Run(ctx, args, Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.LookupEnv, Now: clock, Environ: os.Environ})
}

// clock is Main's clock. The end-to-end scripts move it (TestMain's
// LOCKCHECK_TEST_CLOCK) to pin under one clock and check under another.
var clock = time.Now

// command is one subcommand. Its help (summary, usage, examples) is in
// helps, by the same name; help and version, which have no help page of
// their own, carry their summary here.
type command struct {
	name    string
	summary string // only where helps has no entry
	run     func(ctx context.Context, args []string, env Env) (int, error)
}

// commandTable is every command, in the order the overview lists them:
// the order a user meets them. check and pin first (the gate and the
// lock it reads), approve and diff for reviewing a change, lint for
// judging a committed lock's text again without its servers, guard for
// running a pinned server, servers for what a config holds, then the
// commands CI workflows run around a check (repin, merge, comment,
// issue), and help and version last. A function, not a variable, since
// help's own entry looks commands up in it.
func commandTable() []command {
	return []command{
		{name: "check", run: runCheck},
		{name: "pin", run: runPin},
		{name: "approve", run: runApprove},
		{name: "diff", run: runDiff},
		{name: "lint", run: runLint},
		{name: "guard", run: runGuard},
		{name: "servers", run: runServers},
		{name: "repin", run: runRepin},
		{name: "merge", run: runMerge},
		{name: "comment", run: runComment},
		{name: "issue", run: runIssue},
		{name: "help", summary: "show a command's usage, examples and flags", run: runHelpCommand},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

// lookupCommand finds a command of the table by name.
func lookupCommand(name string) (command, bool) {
	for _, c := range commandTable() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// pagedCommands are the commands with a help page of their own (every
// one but help and version), in the table's order.
func pagedCommands() []string {
	var names []string
	for _, c := range commandTable() {
		if c.summary == "" {
			names = append(names, c.name)
		}
	}
	return names
}

func runVersion(_ context.Context, _ []string, env Env) (int, error) {
	fmt.Fprintln(env.Stdout, Version())
	return ExitOK, nil
}

func runHelpCommand(ctx context.Context, args []string, env Env) (int, error) {
	return runHelp(args, env, func(name string, args []string) (int, error) {
		c, _ := lookupCommand(name)
		return c.run(ctx, args, env)
	}), nil
}

// Run is Main with the context and environment given.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) (string, bool) { return "", false }
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Environ != nil {
		env.red = redact.New(env.Environ())
	}
	// In a GitHub Actions step every line printed can be a workflow
	// command, and much of what is printed quotes servers and configs:
	// every line is neutralized, and the checker's own commands go
	// through ghcmd.Own. guard's stdout is the MCP wire, never a log.
	if getenvIs(env, "GITHUB_ACTIONS", "true") {
		errw := ghcmd.NewWriter(env.Stderr)
		env.Stderr = errw
		defer func() { _ = errw.Flush() }()
		if len(args) < 2 || args[1] != "guard" {
			out := ghcmd.NewWriter(env.Stdout)
			env.Stdout = out
			defer func() { _ = out.Flush() }()
		}
	}
	if len(args) < 2 {
		fmt.Fprint(env.Stderr, overview())
		return ExitUsage
	}
	var code int
	var err error
	name, rest := args[1], args[2:]
	switch name {
	case "--version":
		name = "version"
	case "-h", "--help":
		fmt.Fprint(env.Stdout, overview())
		return ExitOK
	}
	c, ok := lookupCommand(name)
	if !ok {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: unknown command %q\n\n%s", name, overview())
		return ExitUsage
	}
	code, err = c.run(ctx, rest, env)
	if err != nil && ctx.Err() != nil {
		// Stopped by a signal midway (a git listing, a base lock being
		// read): the error is the interruption's, not the input's.
		err = errInterrupted
	}
	switch {
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: %v\n", errInterrupted)
	case err != nil && !errors.Is(err, flag.ErrHelp):
		// Errors quote configs and locks a pull request may have written,
		// and what servers said: each line is redacted and escaped, so no
		// secret and no control sequence reaches a terminal or a log.
		lines := strings.Split(env.red.String(err.Error()), "\n")
		for i, l := range lines {
			lines[i] = inert.Composed(l)
		}
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s\n", strings.Join(lines, "\n"))
	}
	return exitCode(code, err)
}

// exitCode is the one place a command's result becomes the process's exit
// code. code is what the command decided (its report's exit code, or one
// of the constants above); err is why it could not decide, if it could
// not. An interruption exits 130; --help is not an error; any other error
// is never a pass: a usage error, or a failure with no verdict yet, exits
// 2. Only our own constants are returned: a server's exit status is
// reported as text, never passed through.
func exitCode(code int, err error) int {
	switch {
	case errors.Is(err, errInterrupted):
		return ExitInterrupted
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case err != nil && (code == ExitOK || errors.Is(err, ErrUsage)):
		return ExitUsage
	}
	// 130 is not among them: only an interruption (errInterrupted) says
	// that.
	switch code {
	case ExitOK, ExitDrift, ExitUsage, ExitHeld:
		return code
	}
	return ExitUsage
}

// version is the release tag, stamped by release/build.sh and the release
// workflow with -ldflags "-X .../cli.version=vX.Y.Z". Empty in other
// builds, which take the module version from the build info.
var version string

// Version is the release tag (or module version) and VCS revision from the
// build info.
func Version() string {
	v, rev, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if version != "" {
		v = version
	}
	out := "mcp-lockcheck " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " (" + rev
		if dirty {
			out += ", modified"
		}
		out += ")"
	}
	return out + " " + runtime.Version()
}

// usageErr makes an exit-2 error (check.Usagef).
func usageErr(format string, args ...any) error { return check.Usagef(format, args...) }

// asUsage marks err as exit 2 (check.AsUsage).
func asUsage(err error) error { return check.AsUsage(err) }

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error {
	*m = append(*m, s)
	return nil
}

// toolVersion is Version without the program's name, for reports that
// print "mcp-lockcheck" themselves.
func toolVersion() string { return strings.TrimPrefix(Version(), "mcp-lockcheck ") }
