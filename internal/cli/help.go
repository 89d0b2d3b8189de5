package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// helpText is what `mcp-lockcheck help COMMAND` and `COMMAND -h` print
// beside the flags: the flag set says what each flag does, this says what
// the command is for and how it is called.
type helpText struct {
	summary  string   // one line, lower case, no final period
	usage    []string // usage lines without the program name, positional arguments in CAPS
	about    string   // optional: a short paragraph after the summary
	examples []string // two or three command lines, "# comment" lines allowed
	// grouped: the flags probing.register adds are listed apart from the
	// command's own, as "Servers and lock" and "Probe" flags.
	grouped bool
}

// helps is every command's help, by the name its flag set carries
// (`guard install` is its own entry). Commands register their summary
// for the overview from here.
var helps = map[string]helpText{
	"pin": {
		summary:  "probe each configured server and write the lock",
		usage:    []string{"pin [flags]"},
		about:    "Every server is launched (in the sandbox), listed in every phase, and written to the lock only when all phases agree. A server that could not be probed (held) is not pinned: the lock keeps its old entry, or has none, and the others are written. Findings are judged as check judges them (same policy, acknowledgements and --fail-on), so the lock pin writes checks as pin exited. Exit 0: written, nothing fails; 1: a finding at --fail-on (the lock is written and the approve --ack commands that settle it are printed), or a server changed during the probe (nothing written); 2: bad flags, config or lock; 3: a server could not be probed and is held (the others are written, the held one keeps its old entry or none, and check still holds it).",
		examples: []string{"mcp-lockcheck pin", "mcp-lockcheck pin --server filesystem --approved-by alice@example.com", "mcp-lockcheck pin --config .vscode/mcp.json --lock mcp-lock.json"},
		grouped:  true,
	},
	"check": {
		summary:  "probe each server and compare it with the lock",
		usage:    []string{"check [flags]"},
		about:    "Exit 0: every server matches its lock; 1: drift or a finding at --fail-on; 2: bad flags, config or lock; 3: a server could not be probed and is held.",
		examples: []string{"mcp-lockcheck check", "mcp-lockcheck check --format json --sarif lockcheck.sarif", "mcp-lockcheck check --server filesystem --fail-on warning"},
		grouped:  true,
	},
	"diff": {
		summary:  "show what check would report, as a readable diff",
		usage:    []string{"diff [flags]"},
		about:    "The same probe as check; prints each changed definition with its text changes as a word diff. Same exit codes as check.",
		examples: []string{"mcp-lockcheck diff", "mcp-lockcheck diff --server filesystem"},
		grouped:  true,
	},
	"lint": {
		summary:  "judge the text a lock records with today's rules, starting no server",
		usage:    []string{"lint [flags]"},
		about:    "Every definition, instructions string and pinned prompt answer in the lock goes through the text rules check applies, and the lock's servers are compared with each other (shadowing, confusable names); the policy's rules and the lock's acknowledgements settle the findings as in check. No config is read and no server is started: it does not say that a server still shows what the lock holds (check does). For a pre-commit hook, and to see what a new release of the rules says about the locks you have. Exit 0: no finding reaches --fail-on; 1: one does; 2: bad flags, or a lock or policy that is missing or invalid.",
		examples: []string{"mcp-lockcheck lint", "mcp-lockcheck lint --lock sub/mcp-lock.json --format sarif > lint.sarif", "mcp-lockcheck lint --server filesystem --fail-on warning"},
	},
	"approve": {
		summary: "review changes and write only the named ones into the lock",
		usage:   []string{"approve [flags] SERVER[/KIND/NAME]...", "approve [flags] --all", "approve [flags] --from FILE", "approve [flags] --ack RULE --reason TEXT SERVER/KIND/NAME"},
		about:   "KIND is tool, prompt, resource or template. The servers are probed again; what they show now is what is approved.",
		examples: []string{"mcp-lockcheck approve filesystem/tool/read_text_file",
			"mcp-lockcheck check --json report.json; mcp-lockcheck approve --from report.json",
			"mcp-lockcheck approve --ack model-instruction --reason 'asks to read only the given path' filesystem/tool/read_text_file"},
		grouped: true,
	},
	"servers": {
		summary:  "list the configured servers",
		usage:    []string{"servers [flags]"},
		about:    "One line per server: name, config file and line, transport, command or URL.",
		examples: []string{"mcp-lockcheck servers", "mcp-lockcheck servers --matrix", "mcp-lockcheck servers --config .cursor/mcp.json"},
	},
	"merge": {
		summary:  "combine per-server JSON reports into one and write every format",
		usage:    []string{"merge [flags] REPORT.json..."},
		about:    "Takes the JSON report files of several check runs (check --json FILE, one per server in a matrix) and writes the report one check of all of them would have made. Its exit code is the merged report's.",
		examples: []string{"mcp-lockcheck merge reports/*.json", "mcp-lockcheck merge --format none --sarif all.sarif --markdown comment.md reports/*.json"},
	},
	"comment": {
		summary:  "post a JSON report as the sticky pull request comment",
		usage:    []string{"comment --from FILE [flags]"},
		about:    "For the two-workflow setup: the check uploads report.json with a read-only token; a workflow_run job with pull-requests: write posts it without running the pull request's code.",
		examples: []string{"mcp-lockcheck comment --from report.json", "mcp-lockcheck comment --from report.json --repo acme/agents --pr 42 --best-effort"},
	},
	"issue": {
		summary:  "open, update or close the drift issue of a scheduled deep check",
		usage:    []string{"issue --from FILE [flags]"},
		about:    "For the nightly deep check: drift opens or updates one issue (reopened if this workflow closed it, new if a person did), a clean run closes it, and a run that held a server or wrote no report closes nothing and says so in the open issue. It launches no server: give it the token, not the check.",
		examples: []string{"mcp-lockcheck issue --from deep.json", "mcp-lockcheck issue --from deep.json --lock sub/mcp-lock.json --label mcp-lockcheck --label security"},
	},
	"repin": {
		summary:  "pin again and, with --open-pr, propose the new lock as a pull request",
		usage:    []string{"repin [flags]"},
		about:    "The scheduled re-pin: merging the pull request it opens is the reviewed approval; the schedule approves nothing itself.",
		examples: []string{"mcp-lockcheck repin", "mcp-lockcheck repin --open-pr", "mcp-lockcheck repin --markdown body.md; mcp-lockcheck repin --open-pr --from-body body.md"},
		grouped:  true,
	},
	"guard": {
		summary:  "run a server behind a proxy that refuses answers that drift from the lock",
		usage:    []string{"guard --server NAME [flags] -- COMMAND ARGS...", "guard --server NAME [--config FILE] [flags]", "guard install [flags]", "guard uninstall [flags]"},
		about:    "A stdio proxy between the client and the server: an answer that drifts from the lock entry is refused before the model reads it. Without a command, the config's url entry for NAME is a remote server and the guard is a stdio-to-HTTP bridge (streamable HTTP, falling back to HTTP+SSE) with the same checks; its headers are expanded from the environment and never shown, and it runs no OAuth flow. Exit 0: the client closed a clean session; 1: an answer was refused (or logged, or stripped), the server misbehaved, or the connection failed (401, dropped stream); 2: the guard could not run as asked.",
		examples: []string{"mcp-lockcheck guard --server filesystem -- npx -y @modelcontextprotocol/server-filesystem@2025.7.29 /data", "mcp-lockcheck guard --server memory --mode sanitize --sandbox basic -- node server.js", "mcp-lockcheck guard --server linear --config .mcp.json", "mcp-lockcheck guard install"},
	},
	"guard install": {
		summary:  "rewrite client configs so every pinned server runs behind the guard",
		usage:    []string{"guard install [flags]"},
		about:    "The command is written as mcp-lockcheck when PATH finds it, and --lock relative to the config's project. Each client config (JSON, JSONC, Codex TOML, Continue YAML) is edited in place, comments and layout kept, and saved as FILE.bak the first time only. guard uninstall restores the original bytes. A pinned url entry (the mcpServers and servers shapes of JSON and JSONC) becomes the stdio↔HTTP bridge: command mcp-lockcheck, args guard --server NAME --remote-env --transport http|sse (no --sandbox), its url and header templates in env, never in args, and its original bytes in env for guard uninstall; other formats' url entries are left alone and reported.",
		examples: []string{"mcp-lockcheck guard install", "mcp-lockcheck guard install --config .vscode/mcp.json --mode sanitize"},
	},
	"guard uninstall": {
		summary:  "undo guard install in the client configs",
		usage:    []string{"guard uninstall [flags]"},
		examples: []string{"mcp-lockcheck guard uninstall", "mcp-lockcheck guard uninstall --config .vscode/mcp.json"},
	},
}

// Flags probing.register adds, by group, in the order help lists them.
var (
	selectFlagNames = []string{"config", "server", "lock", "policy"}
	probeFlagNames  = []string{"sandbox", "pass-env", "network", "cache-dir", "profile", "warmup-calls", "launches", "client-identity", "clock-offset", "call-gap", "burst-calls", "protocol", "timeout", "request-timeout", "deadline", "max-message-bytes", "jobs", "progress", "quiet", "verbose"}
)

// helpWidth is the width help is wrapped to: fixed, so help reads the
// same everywhere and in the goldens.
const helpWidth = 80

// writeHelp writes name's help with the flags of fs.
func writeHelp(w io.Writer, name string, fs *flag.FlagSet) {
	h := helps[name]
	var b strings.Builder
	fmt.Fprintf(&b, "mcp-lockcheck %s: %s\n\nUsage:\n", name, h.summary)
	for _, u := range h.usage {
		fmt.Fprintf(&b, "  mcp-lockcheck %s\n", u)
	}
	if h.about != "" {
		b.WriteString("\n")
		b.WriteString(wrapText(h.about, helpWidth, ""))
	}
	if len(h.examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range h.examples {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	var own, sel, probe []*flag.Flag
	group := map[string]*[]*flag.Flag{}
	if h.grouped {
		for _, n := range selectFlagNames {
			group[n] = &sel
		}
		for _, n := range probeFlagNames {
			group[n] = &probe
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := group[f.Name]; ok {
			*g = append(*g, f)
			return
		}
		own = append(own, f)
	})
	order := func(fl []*flag.Flag, names []string) []*flag.Flag {
		pos := map[string]int{}
		for i, n := range names {
			pos[n] = i
		}
		sort.SliceStable(fl, func(i, j int) bool { return pos[fl[i].Name] < pos[fl[j].Name] })
		return fl
	}
	title := "Flags"
	if len(sel)+len(probe) > 0 && len(own) > 0 {
		title = "Flags of " + name
	}
	writeFlags(&b, title, own)
	writeFlags(&b, "Servers and lock", order(sel, selectFlagNames))
	writeFlags(&b, "Probe", order(probe, probeFlagNames))
	b.WriteString("\nRun \"mcp-lockcheck help\" for every command.\n")
	io.WriteString(w, b.String())
}

// writeFlags lists flags in --flag form: the name and its argument on one
// line, the description indented beneath, wrapped.
func writeFlags(b *strings.Builder, title string, fl []*flag.Flag) {
	if len(fl) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, f := range fl {
		arg, usage := flagArg(f)
		head := "  --" + f.Name
		if arg != "" {
			head += " " + arg
		}
		if d := shownDefault(f, usage); d != "" {
			usage += " (default " + d + ")"
		}
		b.WriteString(head + "\n")
		b.WriteString(wrapText(usage, helpWidth, "        "))
	}
}

// flagArg is the argument a flag takes as help shows it: the back-quoted
// word of its usage (flag.UnquoteUsage), else one named from its type;
// none for a boolean.
func flagArg(f *flag.Flag) (arg, usage string) {
	name, usage := flag.UnquoteUsage(f)
	switch name {
	case "":
		return "", usage
	case "value":
		return "VALUE", usage
	case "string":
		return "TEXT", usage
	case "int":
		return "N", usage
	case "duration":
		return "DURATION", usage
	}
	return strings.ToUpper(name), usage
}

// shownDefault is the default worth printing: none for a zero value, or
// when the usage text describes the default itself.
func shownDefault(f *flag.Flag, usage string) string {
	if strings.Contains(usage, "default") {
		return ""
	}
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	return f.DefValue
}

// wrapText wraps s at width, each line starting with indent.
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// overview is `mcp-lockcheck help`: every command with its summary.
func overview() string {
	var b strings.Builder
	b.WriteString("mcp-lockcheck: a lockfile for what MCP servers tell your model.\n\nUsage:\n  mcp-lockcheck COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commandTable() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, cmp.Or(c.summary, helps[c.name].summary))
	}
	b.WriteString("\nQuick start:\n  mcp-lockcheck pin                # probe every configured server, write mcp-lock.json\n  mcp-lockcheck check              # compare them with the lock\n  mcp-lockcheck diff               # see what changed, word by word\n  mcp-lockcheck approve SERVER     # take the reviewed change into the lock\n")
	b.WriteString("\nRun \"mcp-lockcheck help COMMAND\" (or COMMAND -h) for a command's usage, examples and flags.\n")
	b.WriteString("Exit codes: 0 ok, 1 drift or a finding at --fail-on, 2 usage or invalid input, 3 a server was held.\n")
	return b.String()
}

// runHelp is `mcp-lockcheck help [COMMAND [SUBCOMMAND]]`: the command's
// own -h, so the flags shown are exactly the ones it parses.
func runHelp(args []string, env Env, run func(name string, args []string) (int, error)) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stdout, overview())
		return ExitOK
	}
	name := args[0]
	if name == "help" || name == "version" {
		fmt.Fprint(env.Stdout, overview())
		return ExitOK
	}
	if _, ok := lookupCommand(name); !ok {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: help: unknown command %q\n\n%s", name, overview())
		return ExitUsage
	}
	sub := append(append([]string(nil), args[1:]...), "-h")
	// The command's own verdict is not help's: only whether it could
	// show its help counts.
	_, err := run(name, sub)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: help: %v\n", err)
	}
	return exitCode(ExitOK, err)
}

// dashFlag finds a flag named in one of the flag package's errors.
var dashFlag = regexp.MustCompile(`(flag|defined:|argument:) -([a-zA-Z])`)

// parseFlags parses flags only, without printing: an error is said once
// (by Run) with a pointer to help, and help itself is printed to stdout
// only when asked for.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return err
		}
		// The flag package names flags with one dash; help and the
		// README use two.
		msg := dashFlag.ReplaceAllString(err.Error(), "$1 --$2")
		return usageErr("%s (see mcp-lockcheck help %s)", msg, strings.TrimPrefix(fs.Name(), "mcp-lockcheck "))
	}
	return nil
}
