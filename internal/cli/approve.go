package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// approveFlags are approve's flags: the probe's, and what to approve or
// acknowledge and how to ask.
type approveFlags struct {
	probing
	all         bool
	from        string
	ack         string
	reason      string
	approvedBy  string
	yes         bool
	interactive bool
	force       bool
}

func (c *approveFlags) register(fs *flag.FlagSet) {
	c.probing.register(fs)
	fs.BoolVar(&c.all, "all", false, "approve every change of every configured server")
	fs.StringVar(&c.from, "from", "", "approve exactly what this saved JSON report `FILE` showed (from check --json FILE)")
	fs.StringVar(&c.ack, "ack", "", "acknowledge the inspection finding `RULE` on one SERVER/KIND/NAME (needs --reason)")
	fs.StringVar(&c.reason, "reason", "", "why the acknowledged finding is acceptable (with --ack)")
	fs.StringVar(&c.approvedBy, "approved-by", "", "record the approval as given by `WHO` (default: git config user.email, else $USER)")
	fs.BoolVar(&c.yes, "yes", false, "do not prompt, even when stdin is a terminal")
	fs.BoolVar(&c.interactive, "interactive", false, "prompt for each change even when stdin is not a terminal")
	fs.BoolVar(&c.force, "force", false, "approve even an artifact-changed server: the same version with other bytes (never an ordinary upgrade)")
}

// parseInterleaved parses flags and positional arguments in any order
// (`approve fs/tool/x --approved-by me`): the flag package stops at the
// first positional argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func runApprove(ctx context.Context, args []string, env Env) (int, error) {
	var c approveFlags
	fs := newFlagSet("approve", env)
	c.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	req, err := c.request(env, pos)
	if err != nil {
		return ExitUsage, err
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
	// Only the servers the request names are probed, and none is
	// reported as orphaned.
	if l.Options.Servers, err = req.Servers(l.Options.Servers); err != nil {
		return ExitUsage, asUsage(err)
	}
	l.Options.All = false
	lk := l.Lock
	if lk == nil {
		if req.Ack != "" {
			return ExitUsage, usageErr("lockfile %s does not exist: approve or pin the server before acknowledging its findings", c.lockPath)
		}
		lk = lock.New()
		l.Options.Lock = lk
	}
	who := approval.Approver{By: c.approvedBy, At: env.Now()}
	if who.By == "" {
		who.By = approver(c.dir(env), env.Getenv)
	}
	lives, probeReport, err := l.ProbeLive(ctx, who)
	if err != nil {
		return ExitUsage, err
	}

	if refusals := req.Refusals(lives); len(refusals) > 0 {
		for _, r := range refusals {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: refusing to approve %s: %s\n", shown(r.Server, 0), shownComposed(r.Why, cutText))
		}
		report.Write(env.Stderr, report.FormatText, probeReport, report.Options{LockPath: c.lockPath, Redactor: env.red, NoNext: true, Width: termWidth(env, env.Stderr)})
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged\n", c.lockPath)
		return ExitDrift, nil
	}
	if req.Ack == "" && !c.force {
		// The same version with other bytes is a compromised registry, a
		// moved tag or a replaced binary before it is anything else:
		// approving it takes a deliberate --force.
		var swapped []string
		for _, l := range lives {
			if why := check.ArtifactSwapped(lk.Servers[l.Name], l.Server); why != "" {
				swapped = append(swapped, shown(l.Name, 0)+": "+shownComposed(why, cutText))
			}
		}
		if len(swapped) > 0 {
			for _, s := range swapped {
				fmt.Fprintf(env.Stderr, "mcp-lockcheck: refusing to approve %s\n", s)
			}
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: the same version with other bytes should never happen; find out why, then approve with --force\n")
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged\n", c.lockPath)
			return ExitDrift, nil
		}
	}
	if req.Ack != "" {
		return approveAck(env, &c.common, lk, lives, req, who)
	}
	return approveChanges(env, &c.common, lk, lives, req, who, !c.yes && (c.interactive || isTerminal(env.Stdin)))
}

// request checks approve's flags and arguments against each other and
// reads the saved report of --from.
func (c *approveFlags) request(env Env, pos []string) (approval.Request, error) {
	req := approval.Request{All: c.all, Ack: finding.RuleID(c.ack), Reason: c.reason}
	for _, a := range pos {
		s, err := approval.ParseSelector(a)
		if err != nil {
			return req, asUsage(err)
		}
		if s.Kind == approval.KindServer && c.ack == "" {
			return req, usageErr("%s: the server's own fields are approved with the server (%s)", a, s.Server)
		}
		req.Selectors = append(req.Selectors, s)
	}
	sels := req.Selectors
	switch {
	case c.ack != "" && (len(sels) != 1 || sels[0].Kind == "" || c.all || c.from != ""):
		return req, usageErr("--ack takes exactly one SERVER/KIND/NAME (and no --all or --from)")
	case c.ack != "" && strings.TrimSpace(c.reason) == "":
		return req, usageErr("--ack needs --reason: an acknowledgement says why")
	case c.ack == "" && c.reason != "":
		return req, usageErr("--reason goes with --ack")
	case c.all && len(sels) > 0:
		return req, usageErr("--all approves everything: name no servers or entries with it")
	case c.all && c.from != "":
		return req, usageErr("--all and --from exclude each other")
	case !c.all && c.from == "" && len(sels) == 0:
		return req, usageErr("name what to approve: SERVER, SERVER/KIND/NAME, --all or --from report.json")
	case c.yes && c.interactive:
		return req, usageErr("--yes and --interactive exclude each other")
	}
	if c.ack != "" {
		if !req.Ack.Valid() {
			return req, usageErr("--ack %q: no such rule", c.ack)
		}
	}
	if c.from != "" {
		saved, err := readSavedReport(c.path(env, c.from))
		if err != nil {
			return req, err
		}
		req.Saved = saved
	}
	return req, nil
}

// approveChanges shows each server's proposed changes, asks for each one
// when interactive, and writes the chosen ones into the lock.
func approveChanges(env Env, c *common, lk *lock.File, lives []*approval.Live, req approval.Request, who approval.Approver, interactive bool) (int, error) {
	out := env.Stdout
	p := newPainter(env, out)
	var in *bufio.Reader
	if interactive {
		in = bufio.NewReader(env.Stdin)
	}
	var chosen, left []approval.Change
	for _, prop := range req.Plan(lk, lives) {
		for _, s := range prop.Unchanged {
			fmt.Fprintf(out, "%s is unchanged: nothing to approve\n", shown(s.String(), 0))
		}
		if prop.Unknown != nil {
			return ExitUsage, asUsage(prop.Unknown)
		}
		if prop.Mismatch != nil {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: refusing: %s\n", shownComposed(prop.Mismatch.Error(), cutText))
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged\n", c.lockPath)
			return ExitDrift, nil
		}
		left = append(left, prop.Left...)
		for _, ch := range prop.Proposed {
			writeChange(out, p, ch, false)
			if !interactive {
				chosen = append(chosen, ch)
				continue
			}
			ok, quit, err := askChange(out, in, p, ch)
			if err != nil {
				return ExitUsage, err
			}
			if quit {
				fmt.Fprintf(env.Stderr, "mcp-lockcheck: stopped: nothing written\n")
				return ExitOK, nil
			}
			if ok {
				chosen = append(chosen, ch)
			} else {
				left = append(left, ch)
			}
		}
	}
	approval.Record(lk, lives, chosen, who)
	if len(left) > 0 {
		fmt.Fprintln(out, "\nStill unapproved (a following check reports them):")
		for _, ch := range left {
			fmt.Fprintf(out, "  %s %s\n", changeMark(ch.Op), changeTitle(ch))
		}
	}
	if len(chosen) == 0 {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing approved: %s is unchanged\n", c.lockPath)
		return ExitOK, nil
	}
	if err := writeLock(env, c, lk); err != nil {
		return ExitUsage, err
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: approved %d change(s) in %s as %s\n", len(chosen), c.lockPath, shown(who.By, 0))
	return ExitOK, nil
}

// readSavedReport reads a saved `check --format json` report. A held server
// in it was never reviewed; its findings approve nothing.
func readSavedReport(path string) (*report.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, asUsage(fmt.Errorf("--from: %w", err))
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, usageErr("--from %s: not a check --format json report: %v", path, err)
	}
	if r.LockfileVersion != lock.Version {
		return nil, usageErr("--from %s: lockfileVersion %d, want %d", path, r.LockfileVersion, lock.Version)
	}
	return &r, nil
}

// askChange prompts for one change: approve, skip, show the full text, or
// quit. End of input is an error: silence is not consent.
func askChange(w io.Writer, in *bufio.Reader, p painter, ch approval.Change) (ok, quit bool, err error) {
	for {
		fmt.Fprintf(w, "Approve %s? [y]es, [n]o (skip), [f]ull text, [q]uit: ", shown(ch.ID(), 0))
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(w)
			return false, false, usageErr("no answer for %s (end of input): nothing written", ch.ID())
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, false, nil
		case "n", "no", "s", "skip":
			return false, false, nil
		case "f", "full", "show":
			writeChange(w, p, ch, true)
		case "q", "quit":
			return false, true, nil
		}
	}
}

// approveAck records an acknowledgement of one inspection finding, bound
// to the hash of the content the live probe raised it on.
func approveAck(env Env, c *common, lk *lock.File, lives []*approval.Live, req approval.Request, who approval.Approver) (int, error) {
	acks, err := req.Acknowledge(lk, c.lockPath, lives, who)
	if err != nil {
		return ExitUsage, asUsage(err)
	}
	if err := writeLock(env, c, lk); err != nil {
		return ExitUsage, err
	}
	sel := req.Selectors[0]
	for _, a := range acks {
		fmt.Fprintf(env.Stdout, "acknowledged %s on %s for content sha256 %s: %s\n", a.Rule, shown(sel.String(), 0), a.SHA256[:12], shown(a.Reason, cutText))
	}
	return ExitOK, nil
}

func writeLock(env Env, c *common, lk *lock.File) error {
	pinned.RedactLock(lk, env.red)
	data, err := lk.Marshal()
	if err != nil {
		return err
	}
	return lock.WriteAtomic(c.path(env, c.lockPath), data)
}
