package report

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// IssueStatusEnd closes the status paragraph at the top of the drift
// issue. A run that can say nothing new about the servers (it was held,
// or could not run) replaces only what comes before it, so the evidence
// of the last drift stays below.
const IssueStatusEnd = "<!-- mcp-lockcheck:status-end -->"

// IssueLimit caps the drift issue's body in bytes. GitHub refuses a body
// over 65,536 characters; a byte is at most one character, and the rest is
// room for redaction, which can lengthen a short secret.
const IssueLimit = 60000

// issueRows caps the table of drifted servers: past it the full report
// below still names every server.
const issueRows = 40

// IssueOptions are the drift issue's parts that are not the report.
type IssueOptions struct {
	Options
	// Marker is the first line, an HTML comment that finds the issue
	// again; Status is the paragraph under it (IssueStatus).
	Marker, Status string
}

// WriteIssue writes the body of the issue a scheduled deep check keeps
// open while servers drift: the marker and the status, then what a deep
// run found that a quick one would not bait (one row per drifted server:
// the first phases that gave it away, with the clock of a clock launch,
// and its rules), then the PR comment's report with the word diffs,
// within IssueLimit. All server text is escaped as in the PR comment.
func WriteIssue(w io.Writer, r *Report, opts IssueOptions) error {
	opts.Options = opts.withDefaults()
	red := opts.redactor()
	r = Redacted(r, red)
	var b strings.Builder
	b.WriteString(opts.Marker + "\n")
	b.WriteString(opts.Status + "\n" + IssueStatusEnd + "\n\n")
	b.WriteString("The scheduled deep check (`mcp-lockcheck check --profile deep`: many warm-up calls with varied arguments, more launches, a moved clock, every client identity) found servers that show the model something other than `" +
		strings.ReplaceAll(escape(opts.LockPath), "`", "") + "` approves. ")
	b.WriteString("**Drift found only by deep baiting is a finding against the server, not a version to approve**: find out why it changes before re-pinning anything.\n\n")
	b.WriteString("This issue is updated by every deep run and closed by the first clean one.\n\n")

	failOn, err := finding.ParseSeverity(r.Summary.FailOn)
	if err != nil {
		failOn = finding.Error
	}
	rows := 0
	for _, s := range r.Servers {
		if s.Status != StatusDrift {
			continue
		}
		if rows == 0 {
			b.WriteString("| Server | Found at | Rules | Findings |\n|---|---|---|---|\n")
		}
		rows++
		if rows > issueRows {
			continue
		}
		phases, rules, n := driftAt(s, failOn)
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", MarkdownCell(s.Name), strings.Join(phases, ", "), strings.Join(rules, ", "), n)
	}
	if rows > issueRows {
		fmt.Fprintf(&b, "\n%d more servers drifted: the report below names them.\n", rows-issueRows)
	}
	if rows > 0 {
		b.WriteString("\n")
	}
	md := opts.Options
	md.MarkdownLimit = max(IssueLimit-b.Len(), 4000)
	var rep strings.Builder
	if err := writeMarkdown(&rep, r, md); err != nil {
		return err
	}
	b.WriteString(strings.TrimPrefix(rep.String(), Marker+"\n\n"))
	_, err = io.WriteString(w, red.String(b.String()))
	return err
}

// driftAt is where a server's drift showed (its findings at or above
// failOn): up to three distinct phases in the order found, a clock
// launch's offset beside its phase, and the rules, as markdown; n counts
// the findings.
func driftAt(s Server, failOn finding.Severity) (phases, rules []string, n int) {
	clocks := clockLaunches(s.Notes)
	seen := map[string]bool{}
	more := 0
	for _, f := range live(s.Findings) {
		if f.Acknowledged || f.Severity < failOn {
			continue
		}
		n++
		if !seen["rule "+string(f.Rule)] {
			seen["rule "+string(f.Rule)] = true
			rules = append(rules, MarkdownCell(string(f.Rule)))
		}
		if f.Phase == "" || seen[f.Phase] {
			continue
		}
		seen[f.Phase] = true
		if len(phases) == 3 {
			more++
			continue
		}
		p := MarkdownCell(f.Phase)
		launch, _, _ := strings.Cut(f.Phase, "/")
		if c, ok := clocks[launch]; ok {
			p += " (clock " + c + ")"
		}
		phases = append(phases, p)
	}
	if more > 0 {
		phases = append(phases, fmt.Sprintf("%d more", more))
	}
	if len(phases) == 0 {
		phases = []string{"(no phase)"}
	}
	return phases, rules, n
}

// clockNote is the note check writes for a clock launch.
var clockNote = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(launch-[0-9]{1,4}) ran with the clock moved forward ([0-9hms.]{1,32}) `)
})

// clockLaunches maps a launch ("launch-3") to its clock offset ("+7d")
// from the server's notes. Only digits and our own units come out of a
// note, so nothing a note holds reaches the issue unescaped.
func clockLaunches(notes []string) map[string]string {
	out := map[string]string{}
	for _, n := range notes {
		m := clockNote().FindStringSubmatch(n)
		if m == nil {
			continue
		}
		d, err := time.ParseDuration(m[2])
		if err != nil {
			continue
		}
		if d%(24*time.Hour) == 0 {
			out[m[1]] = "+" + strconv.Itoa(int(d/(24*time.Hour))) + "d"
		} else {
			out[m[1]] = "+" + d.String()
		}
	}
	return out
}

// IssueStatus is the status paragraph for a run that produced a report:
// when, a link to the run, and its verdict, naming the drifted and held
// servers (escaped).
func IssueStatus(r *Report, at time.Time, runURL string) string {
	var drifted, held []string
	for _, s := range r.Servers {
		switch s.Status {
		case StatusDrift:
			drifted = append(drifted, codeSpan(escape(s.Name)))
		case StatusHeld:
			held = append(held, codeSpan(escape(s.Name)))
		}
	}
	var verdict string
	switch r.Summary.ExitCode {
	case ExitOK:
		verdict = "clean: every server matches the lock."
	case ExitDrift:
		verdict = "drift"
		if len(drifted) > 0 {
			verdict += " in " + capList(drifted)
		}
		verdict += "."
	default:
		verdict = "no drift found, but not every server could be probed: this issue stays open until a deep run is clean."
	}
	if len(held) > 0 {
		verdict += " Held (could not be probed): " + capList(held) + "."
	}
	return IssueRunLine(at, runURL) + verdict
}

// IssueRunLine starts a status paragraph: when the run was, and a link to
// it when runURL is a plain https URL.
func IssueRunLine(at time.Time, runURL string) string {
	line := "**Last deep run:** " + at.UTC().Format("2006-01-02 15:04 UTC")
	if u := safeURL(runURL); u != "" {
		line += " ([run](" + u + "))"
	}
	return line + ": "
}

// capList joins up to ten names and says how many more.
func capList(names []string) string {
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}
