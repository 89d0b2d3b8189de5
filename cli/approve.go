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

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

func init() {
	register(command{"approve", runApprove})
}

// approveFlags are approve's own flags.
type approveFlags struct {
	all         bool
	from        string
	ack         string
	reason      string
	approvedBy  string
	yes         bool
	interactive bool
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
	var c common
	var af approveFlags
	fs := newFlagSet("approve", env)
	c.register(fs)
	fs.BoolVar(&af.all, "all", false, "approve every change of every configured server")
	fs.StringVar(&af.from, "from", "", "approve exactly what this saved JSON report `FILE` showed (from check --json FILE)")
	fs.StringVar(&af.ack, "ack", "", "acknowledge the inspection finding `RULE` on one SERVER/KIND/NAME (needs --reason)")
	fs.StringVar(&af.reason, "reason", "", "why the acknowledged finding is acceptable (with --ack)")
	fs.StringVar(&af.approvedBy, "approved-by", "", "record the approval as given by `WHO` (default: git config user.email, else $USER)")
	fs.BoolVar(&af.yes, "yes", false, "do not prompt, even when stdin is a terminal")
	fs.BoolVar(&af.interactive, "interactive", false, "prompt for each change even when stdin is not a terminal")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	var sels []check.Selector
	for _, a := range pos {
		s, err := check.ParseSelector(a)
		if err != nil {
			return ExitUsage, asUsage(err)
		}
		if s.Kind == check.KindServer && af.ack == "" {
			return ExitUsage, usageErr("%s: the server's own fields are approved with the server (%s)", a, s.Server)
		}
		sels = append(sels, s)
	}
	switch {
	case af.ack != "" && (len(sels) != 1 || sels[0].Kind == "" || af.all || af.from != ""):
		return ExitUsage, usageErr("--ack takes exactly one SERVER/KIND/NAME (and no --all or --from)")
	case af.ack != "" && strings.TrimSpace(af.reason) == "":
		return ExitUsage, usageErr("--ack needs --reason: an acknowledgement says why")
	case af.ack == "" && af.reason != "":
		return ExitUsage, usageErr("--reason goes with --ack")
	case af.all && len(sels) > 0:
		return ExitUsage, usageErr("--all approves everything: name no servers or entries with it")
	case af.all && af.from != "":
		return ExitUsage, usageErr("--all and --from exclude each other")
	case !af.all && af.from == "" && len(sels) == 0:
		return ExitUsage, usageErr("name what to approve: SERVER, SERVER/KIND/NAME, --all or --from report.json")
	case af.yes && af.interactive:
		return ExitUsage, usageErr("--yes and --interactive exclude each other")
	}
	if af.ack != "" {
		if _, ok := finding.Lookup(af.ack); !ok {
			return ExitUsage, usageErr("--ack %q: no such rule", af.ack)
		}
	}
	var saved *report.Report
	if af.from != "" {
		saved, err = readSavedReport(c.path(env, af.from))
		if err != nil {
			return ExitUsage, err
		}
	}

	configured, _, err := c.loadServers(env)
	if err != nil {
		return ExitUsage, err
	}
	servers, err := approveServers(configured, sels, saved, af.all)
	if err != nil {
		return ExitUsage, err
	}
	if af.ack == finding.ToolShadowing || af.ack == finding.ConfusableName {
		// These findings are about one server beside the others: the
		// probe that raises them must see every configured server.
		servers = configured
	}
	lk, data, err := c.readLock(env, true)
	if err != nil {
		return ExitUsage, err
	}
	if lk == nil {
		if af.ack != "" {
			return ExitUsage, usageErr("lockfile %s does not exist: approve or pin the server before acknowledging its findings", c.lockPath)
		}
		lk = lock.New()
	}
	opts, err := c.options(env, env.Stderr)
	if err != nil {
		return ExitUsage, err
	}
	opts.Servers, opts.Lock, opts.LockData = servers, lk, data
	who := check.Approval{By: af.approvedBy, At: env.Now()}
	if who.By == "" {
		who.By = approver(c.dir(env), env.Getenv)
	}
	if c.deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.deadline)
		defer cancel()
	}
	lives, probeReport := check.ProbeLive(ctx, opts, who)

	out := env.Stdout
	p := newPainter(env, out)
	// Refuse before anything is shown as approvable: all or nothing. An
	// acknowledgement needs only its own server's probe to be complete
	// and stable; a planted secret it sent back is what it may be
	// acknowledging.
	refused := false
	for _, l := range lives {
		why := l.Refused
		if af.ack == "" && why == "" {
			why = l.Leaked
		}
		if af.ack != "" && l.Name != sels[0].Server {
			why = ""
		}
		if why != "" {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: refusing to approve %s: %s\n", shown(l.Name, 0), shownComposed(why, cutText))
			refused = true
		}
	}
	if refused {
		report.Write(env.Stderr, report.FormatText, probeReport, report.Options{LockPath: c.lockPath, Redactor: env.red, NoNext: true, Width: termWidth(env, env.Stderr)})
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged\n", c.lockPath)
		return ExitDrift, nil
	}

	if af.ack != "" {
		for _, l := range lives {
			if l.Name == sels[0].Server {
				return approveAck(env, &c, lk, l, sels[0], af, who)
			}
		}
		return ExitUsage, usageErr("%s: server %q was not probed", sels[0], sels[0].Server)
	}

	interactive := !af.yes && (af.interactive || isTerminal(env.Stdin))
	var in *bufio.Reader
	if interactive {
		in = bufio.NewReader(env.Stdin)
	}
	var chosen, left []check.Change
	for _, l := range lives {
		prev := lk.Servers[l.Name]
		changes := check.Changes(l.Name, prev, l.Server)
		var serverFindings []finding.Finding
		if saved != nil {
			serverFindings = reportFindings(saved, l.Name)
		}
		// Which of this server's changes were asked for.
		want := func(ch check.Change) bool {
			switch {
			case af.all:
				return true
			case len(sels) > 0:
				for _, s := range sels {
					if s.Matches(ch) {
						return true
					}
				}
				return false
			}
			return saved != nil && check.ReportShows(serverFindings, ch)
		}
		for _, s := range sels {
			if s.Server != l.Name {
				continue
			}
			if !s.Known(prev, l.Server) {
				return ExitUsage, usageErr("%s: server %q neither lists nor pins a %s named %q", s, s.Server, s.Kind, s.Name)
			}
			matched := false
			for _, ch := range changes {
				matched = matched || s.Matches(ch)
			}
			if !matched {
				fmt.Fprintf(out, "%s is unchanged: nothing to approve\n", shown(s.String(), 0))
			}
		}
		var mine []check.Change
		for _, ch := range changes {
			// A server the lock does not hold cannot exist without its
			// own fields: they come with any of its entries.
			if want(ch) || (prev == nil && ch.Kind == check.KindServer && len(changes) > 0 && anyWanted(changes, want)) {
				mine = append(mine, ch)
			} else {
				left = append(left, ch)
			}
		}
		if saved != nil {
			for _, ch := range mine {
				if prev == nil && ch.Kind == check.KindServer && !check.ReportShows(serverFindings, ch) {
					continue // comes with a new server; server-not-pinned in the report
				}
				if err := check.VerifyAgainstReport(serverFindings, ch); err != nil {
					fmt.Fprintf(env.Stderr, "mcp-lockcheck: refusing: %s\n", shownComposed(err.Error(), cutText))
					fmt.Fprintf(env.Stderr, "mcp-lockcheck: nothing written: %s is unchanged\n", c.lockPath)
					return ExitDrift, nil
				}
			}
		}
		for _, ch := range mine {
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
	for _, l := range lives {
		var mine []check.Change
		for _, ch := range chosen {
			if ch.Server == l.Name {
				mine = append(mine, ch)
			}
		}
		if len(mine) > 0 {
			check.ApplyChanges(lk, l.Name, l.Server, mine, who)
		}
	}
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
	if err := writeLock(env, &c, lk); err != nil {
		return ExitUsage, err
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: approved %d change(s) in %s as %s\n", len(chosen), c.lockPath, shown(who.By, 0))
	return ExitOK, nil
}

func anyWanted(changes []check.Change, want func(check.Change) bool) bool {
	for _, ch := range changes {
		if ch.Kind != check.KindServer && want(ch) {
			return true
		}
	}
	return false
}

// approveServers picks the configured servers the selection names, or
// every one for --all, or those a saved report names.
func approveServers(configured []config.Server, sels []check.Selector, saved *report.Report, all bool) ([]config.Server, error) {
	if all {
		return configured, nil
	}
	byName := map[string]config.Server{}
	for _, s := range configured {
		byName[s.Name] = s
	}
	seen := map[string]bool{}
	var out []config.Server
	add := func(name, where string) error {
		s, ok := byName[name]
		if !ok {
			return usageErr("%s: no configured server is named %q (configured: %s)", where, name, names(configured))
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, s)
		}
		return nil
	}
	for _, sel := range sels {
		if err := add(sel.Server, sel.String()); err != nil {
			return nil, err
		}
	}
	if saved != nil && len(sels) == 0 {
		for _, s := range saved.Servers {
			if _, ok := byName[s.Name]; !ok {
				continue // an orphaned entry: nothing to probe
			}
			if err := add(s.Name, "the report"); err != nil {
				return nil, err
			}
		}
		if len(out) == 0 {
			return nil, usageErr("the report names none of the configured servers")
		}
	}
	return out, nil
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

// reportFindings are a saved report's findings for one server.
func reportFindings(r *report.Report, server string) []finding.Finding {
	for _, s := range r.Servers {
		if s.Name == server {
			return s.Findings
		}
	}
	return nil
}

// askChange prompts for one change: approve, skip, show the full text, or
// quit. End of input is an error: silence is not consent.
func askChange(w io.Writer, in *bufio.Reader, p painter, ch check.Change) (ok, quit bool, err error) {
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
func approveAck(env Env, c *common, lk *lock.File, l *check.Live, sel check.Selector, af approveFlags, who check.Approval) (int, error) {
	ls := lk.Servers[l.Name]
	if ls == nil {
		return ExitUsage, usageErr("%s: server %q is not in %s: approve it before acknowledging its findings", sel, l.Name, c.lockPath)
	}
	acks, err := check.AckFor(l, af.ack, sel, af.reason, who)
	if err != nil {
		return ExitUsage, asUsage(err)
	}
	for _, a := range acks {
		check.AddAck(ls, a)
	}
	if err := writeLock(env, c, lk); err != nil {
		return ExitUsage, err
	}
	for _, a := range acks {
		fmt.Fprintf(env.Stdout, "acknowledged %s on %s for content sha256 %s: %s\n", a.Rule, shown(sel.String(), 0), a.SHA256[:12], shown(a.Reason, cutText))
	}
	return ExitOK, nil
}

func writeLock(env Env, c *common, lk *lock.File) error {
	check.RedactLock(lk, env.red)
	data, err := lk.Marshal()
	if err != nil {
		return err
	}
	return lock.WriteAtomic(c.path(env, c.lockPath), data)
}
