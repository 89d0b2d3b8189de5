package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// DefaultIssueLabel labels the drift issue; it is also how the issue is
// found again (the marker and the author decide among what it lists).
const DefaultIssueLabel = "mcp-lockcheck"

// Outcome is what a scheduled deep run found, as the drift issue sees it.
type Outcome int

const (
	// Drifted: a server drifted (exit 1); the issue is opened, updated or
	// reopened with the new body.
	Drifted Outcome = iota
	// Clean: every server matched (exit 0); an open issue is closed.
	Clean
	// Inconclusive: held servers (exit 3) or no report at all (the run
	// failed): nothing is closed and nothing is opened; an open issue's
	// status says so, and its evidence stays.
	Inconclusive
)

// DriftIssue is the one issue a scheduled deep check keeps about drift.
type DriftIssue struct {
	Repo Repo
	// Marker is an HTML comment on the body's first line naming the
	// lock the issue is about, so two nightly checks of two locks keep
	// two issues.
	Marker string
	Title  string
	// Labels are set when the issue is opened; the first is what the
	// issue is looked up by (DefaultIssueLabel when nil).
	Labels []string
	// Outcome decides what happens; Body is the whole body for Drifted,
	// Status the status paragraph for the others (it replaces the top of
	// an open issue's body, up to report.IssueStatusEnd).
	Outcome      Outcome
	Body, Status string
	// RunURL is the workflow run's address, for the comments made when the
	// issue is closed or reopened ("" leaves it out).
	RunURL string
}

// IssueResult is what SyncDriftIssue did: "opened", "updated",
// "reopened", "closed", "noted" (an open issue's status updated) or
// "none", and on which issue (0 for none).
type IssueResult struct {
	Did    string
	Number int
	URL    string
}

// SyncDriftIssue brings the drift issue in line with a run's outcome.
//
// The issue is the newest one (open or closed) labelled Labels[0],
// written by the token's own user and carrying the marker: anyone can
// paste the marker into an issue of their own, and that must not steer
// what the run edits or closes.
//
// Drift on a closed issue: when this workflow closed it (a clean run), the
// drift came back and the same issue is reopened, so its history stays in
// one place. When a person closed it, that decision stands over the old
// evidence only: a new issue is opened for the drift found now.
//
// A run that is not clean never closes the issue: a held server may be
// the very one that drifts, and "could not probe" is not "clean".
func SyncDriftIssue(ctx context.Context, client *gh.Client, d DriftIssue) (*IssueResult, error) {
	if d.Labels == nil {
		d.Labels = []string{DefaultIssueLabel}
	}
	if d.Marker == "" || len(d.Labels) == 0 || d.Labels[0] == "" {
		return nil, fmt.Errorf("drift issue: a marker and a label are required")
	}
	me, err := login(ctx, client)
	if err != nil {
		return nil, err
	}
	iss, err := findIssue(ctx, client, d, me)
	if err != nil {
		return nil, err
	}
	open := iss != nil && iss.GetState() == "open"
	switch d.Outcome {
	case Drifted:
		return reportDrift(ctx, client, d, iss, me)
	case Clean:
		if !open {
			return &IssueResult{Did: "none"}, nil
		}
		return closeClean(ctx, client, d, iss)
	default:
		if !open {
			return &IssueResult{Did: "none"}, nil
		}
		got, _, err := client.Issues.Edit(ctx, d.Repo.Owner, d.Repo.Name, iss.GetNumber(), &gh.IssueRequest{Body: gh.String(withStatus(iss.GetBody(), d.Marker, d.Status))})
		if err != nil {
			return nil, apiErr(fmt.Sprintf("updating issue #%d", iss.GetNumber()), err)
		}
		return &IssueResult{"noted", got.GetNumber(), got.GetHTMLURL()}, nil
	}
}

// reportDrift updates the open drift issue iss, reopens it when this
// workflow (user me) closed it, or else opens a new one.
func reportDrift(ctx context.Context, client *gh.Client, d DriftIssue, iss *gh.Issue, me string) (*IssueResult, error) {
	o, r := d.Repo.Owner, d.Repo.Name
	body := d.Body
	if !strings.HasPrefix(body, d.Marker) {
		body = d.Marker + "\n" + body
	}
	req := &gh.IssueRequest{Title: gh.String(d.Title), Body: gh.String(body)}
	if iss != nil && iss.GetState() == "open" {
		got, _, err := client.Issues.Edit(ctx, o, r, iss.GetNumber(), req)
		if err != nil {
			return nil, apiErr(fmt.Sprintf("updating issue #%d", iss.GetNumber()), err)
		}
		return &IssueResult{"updated", got.GetNumber(), got.GetHTMLURL()}, nil
	}
	if iss != nil {
		closedByUs, err := closedBy(ctx, client, d.Repo, iss.GetNumber(), me)
		if err != nil {
			return nil, err
		}
		if closedByUs {
			return reopenDrift(ctx, client, d, iss, req)
		}
	}
	return openDrift(ctx, client, d, req)
}

// reopenDrift reopens iss, which this workflow closed, with req.
func reopenDrift(ctx context.Context, client *gh.Client, d DriftIssue, iss *gh.Issue, req *gh.IssueRequest) (*IssueResult, error) {
	req.State = gh.String("open")
	got, _, err := client.Issues.Edit(ctx, d.Repo.Owner, d.Repo.Name, iss.GetNumber(), req)
	if err != nil {
		return nil, apiErr(fmt.Sprintf("reopening issue #%d", iss.GetNumber()), err)
	}
	if err := comment(ctx, client, d, got.GetNumber(), "The drift is back: a deep run found it again after a clean one. The description shows what it found now."); err != nil {
		return nil, err
	}
	return &IssueResult{"reopened", got.GetNumber(), got.GetHTMLURL()}, nil
}

// openDrift opens a new drift issue with req and d's labels.
func openDrift(ctx context.Context, client *gh.Client, d DriftIssue, req *gh.IssueRequest) (*IssueResult, error) {
	o, r := d.Repo.Owner, d.Repo.Name
	req.Labels = &d.Labels
	got, _, err := client.Issues.Create(ctx, o, r, req)
	if err != nil {
		return nil, apiErr("opening the drift issue", err)
	}
	// GitHub drops the labels of a new issue silently when the token
	// may not set them; without the first one the issue is never found
	// again and every night would open another. Adding them explicitly
	// fails loudly instead.
	if !hasLabel(got, d.Labels[0]) {
		if _, _, err := client.Issues.AddLabelsToIssue(ctx, o, r, got.GetNumber(), d.Labels); err != nil {
			return nil, apiErr(fmt.Sprintf("labelling issue #%d %q (the next run finds it by that label)", got.GetNumber(), d.Labels[0]), err)
		}
	}
	return &IssueResult{"opened", got.GetNumber(), got.GetHTMLURL()}, nil
}

// closeClean comments on the open issue iss that a deep run was clean,
// and closes it with the new status.
func closeClean(ctx context.Context, client *gh.Client, d DriftIssue, iss *gh.Issue) (*IssueResult, error) {
	if err := comment(ctx, client, d, iss.GetNumber(), "A deep run was clean: every server matches the lock. Closing; a later drift reopens this issue."); err != nil {
		return nil, err
	}
	req := &gh.IssueRequest{Body: gh.String(withStatus(iss.GetBody(), d.Marker, d.Status)), State: gh.String("closed"), StateReason: gh.String("completed")}
	got, _, err := client.Issues.Edit(ctx, d.Repo.Owner, d.Repo.Name, iss.GetNumber(), req)
	if err != nil {
		return nil, apiErr(fmt.Sprintf("closing issue #%d", iss.GetNumber()), err)
	}
	return &IssueResult{"closed", got.GetNumber(), got.GetHTMLURL()}, nil
}

// withStatus replaces the status at the top of body (everything before
// report.IssueStatusEnd) and keeps the rest. A body without the end
// marker (edited by hand) gets the status on top of all of it.
func withStatus(body, marker, status string) string {
	rest := body
	if _, after, ok := strings.Cut(body, report.IssueStatusEnd); ok {
		rest = after
	} else {
		rest = "\n\n" + strings.TrimPrefix(body, marker)
	}
	return marker + "\n" + status + "\n" + report.IssueStatusEnd + rest
}

func comment(ctx context.Context, client *gh.Client, d DriftIssue, n int, text string) error {
	if d.RunURL != "" {
		text += " (" + d.RunURL + ")"
	}
	if _, _, err := client.Issues.CreateComment(ctx, d.Repo.Owner, d.Repo.Name, n, &gh.IssueComment{Body: gh.String(text)}); err != nil {
		return apiErr(fmt.Sprintf("commenting on issue #%d", n), err)
	}
	return nil
}

// findIssue pages through the issues labelled Labels[0], newest first,
// and returns the first that is an issue (not a pull request), written by
// author and carrying the marker on its first line.
func findIssue(ctx context.Context, client *gh.Client, d DriftIssue, author string) (*gh.Issue, error) {
	opts := &gh.IssueListByRepoOptions{State: "all", Labels: d.Labels[:1], Sort: "created", Direction: "desc", ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		list, resp, err := client.Issues.ListByRepo(ctx, d.Repo.Owner, d.Repo.Name, opts)
		if err != nil {
			return nil, apiErr("listing issues", err)
		}
		for _, iss := range list {
			if iss.IsPullRequest() || !strings.EqualFold(iss.GetUser().GetLogin(), author) {
				continue
			}
			if first, _, _ := strings.Cut(iss.GetBody(), "\n"); strings.TrimSpace(first) == d.Marker {
				return iss, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// closedBy reports whether issue n was last closed by login. The list
// does not carry closed_by; the issue itself does.
func closedBy(ctx context.Context, client *gh.Client, repo Repo, n int, login string) (bool, error) {
	iss, _, err := client.Issues.Get(ctx, repo.Owner, repo.Name, n)
	if err != nil {
		return false, apiErr(fmt.Sprintf("reading issue #%d", n), err)
	}
	return strings.EqualFold(iss.GetClosedBy().GetLogin(), login), nil
}

func hasLabel(iss *gh.Issue, name string) bool {
	for _, l := range iss.Labels {
		if strings.EqualFold(l.GetName(), name) {
			return true
		}
	}
	return false
}
