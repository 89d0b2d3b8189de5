package github

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

const testMarker = "<!-- mcp-lockcheck:deep-drift lock=mcp-lock.json -->"

func driftBody(what string) string {
	return testMarker + "\nstatus: " + what + "\n" + report.IssueStatusEnd + "\n\nevidence: " + what + "\n"
}

func drift(what string) DriftIssue {
	return DriftIssue{Repo: Repo{"o", "r"}, Marker: testMarker, Title: "drift", Outcome: Drifted, Body: driftBody(what), RunURL: "https://github.example/o/r/actions/runs/1"}
}

func status(o Outcome, text string) DriftIssue {
	return DriftIssue{Repo: Repo{"o", "r"}, Marker: testMarker, Title: "drift", Outcome: o, Status: text, RunURL: "https://github.example/o/r/actions/runs/1"}
}

// TestSyncDriftIssue walks the drift issue through its life against the
// fake API: opened, updated, noted by a held run (the evidence kept),
// closed by a clean run, reopened when drift comes back, and a new issue
// when a person closed the last one.
func TestSyncDriftIssue(t *testing.T) {
	ctx := context.Background()
	s, c := fake(t, nil)
	// Noise the lookup must see past: a re-pin pull request with the same
	// label, another author's issue carrying the marker, pages of one.
	s.PageSize = 1
	s.AddPull(githubtest.Pull{Title: "re-pin", Head: "mcp-lockcheck/repin", Base: "main"})
	s.AddIssue(githubtest.Issue{Title: "fake", Body: driftBody("mallory's"), Author: "mallory"}, DefaultIssueLabel)

	step := func(d DriftIssue, did string) *IssueResult {
		t.Helper()
		res, err := SyncDriftIssue(ctx, c, d)
		if err != nil {
			t.Fatalf("%s: %v", did, err)
		}
		if res.Did != did {
			t.Fatalf("did %q, want %q", res.Did, did)
		}
		return res
	}
	ours := func() []githubtest.Issue {
		var out []githubtest.Issue
		for _, i := range s.Issues() {
			if i.Author == ActionsBot {
				out = append(out, i)
			}
		}
		return out
	}

	first := step(drift("after-call-40"), "opened")
	if got := ours(); len(got) != 1 || got[0].Number != first.Number || !strings.Contains(got[0].Body, "after-call-40") || got[0].State != "open" {
		t.Fatalf("issues %+v", got)
	}
	if l := s.Labels(first.Number); len(l) != 1 || l[0] != DefaultIssueLabel {
		t.Errorf("labels %v", l)
	}

	step(drift("launch-4/initial"), "updated")
	if got := ours(); len(got) != 1 || !strings.Contains(got[0].Body, "launch-4/initial") || strings.Contains(got[0].Body, "after-call-40") {
		t.Fatalf("not updated in place: %+v", got)
	}

	step(status(Inconclusive, "held: text"), "noted")
	got := ours()[0]
	if got.State != "open" || !strings.Contains(got.Body, "held: text") || !strings.Contains(got.Body, "evidence: launch-4/initial") || strings.Contains(got.Body, "status: launch-4") {
		t.Fatalf("a held run must keep the issue open and its evidence, and replace the status:\n%s", got.Body)
	}
	if !strings.HasPrefix(got.Body, testMarker+"\n") {
		t.Errorf("the marker is no longer first:\n%s", got.Body)
	}

	step(status(Clean, "clean"), "closed")
	got = ours()[0]
	if got.State != "closed" || got.StateReason != "completed" || !strings.Contains(got.Body, "clean") {
		t.Fatalf("not closed: %+v", got)
	}
	if cs := s.Comments(first.Number); len(cs) != 1 || !strings.Contains(cs[0].Body, "clean") || !strings.Contains(cs[0].Body, "actions/runs/1") {
		t.Errorf("closing comment %+v", cs)
	}

	writes := len(s.Requests())
	step(status(Clean, "clean"), "none")
	step(status(Inconclusive, "could not run"), "none")
	for _, r := range s.Requests()[writes:] {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a run with nothing to say wrote: %s", r)
		}
	}

	// Closed by this workflow: the drift is back, the same issue reopens.
	res := step(drift("clock+7d"), "reopened")
	if res.Number != first.Number || ours()[0].State != "open" || len(s.Comments(first.Number)) != 2 {
		t.Fatalf("reopened %+v: %+v", res, ours())
	}

	// Closed by a person: their decision stands; new drift is a new issue.
	s.CloseIssue(first.Number, "maintainer")
	res = step(drift("after-call-12"), "opened")
	if res.Number == first.Number || len(ours()) != 2 {
		t.Fatalf("a person's closed issue was reopened: %+v", ours())
	}
	// And that newest issue is the one later runs find.
	step(drift("after-call-13"), "updated")
	if ours()[0].State != "closed" || !strings.Contains(ours()[1].Body, "after-call-13") {
		t.Errorf("%+v", ours())
	}

	for _, i := range s.Issues() {
		if i.Author == "mallory" && (i.State != "open" || i.Body != driftBody("mallory's")) {
			t.Errorf("another author's issue carrying the marker was touched: %+v", i)
		}
	}
}

// TestSyncDriftIssueMarkerPerLock: a second lock's nightly check keeps its
// own issue.
func TestSyncDriftIssueMarkerPerLock(t *testing.T) {
	s, c := fake(t, nil)
	if _, err := SyncDriftIssue(context.Background(), c, drift("a")); err != nil {
		t.Fatal(err)
	}
	other := drift("b")
	other.Marker = "<!-- mcp-lockcheck:deep-drift lock=sub/mcp-lock.json -->"
	other.Body = strings.Replace(other.Body, testMarker, other.Marker, 1)
	res, err := SyncDriftIssue(context.Background(), c, other)
	if err != nil || res.Did != "opened" || len(s.Issues()) != 2 {
		t.Fatalf("%+v %v %+v", res, err, s.Issues())
	}
}

func TestSyncDriftIssueReadOnly(t *testing.T) {
	s, c := fake(t, nil)
	s.ReadOnly = true
	if _, err := SyncDriftIssue(context.Background(), c, drift("a")); !errors.Is(err, ErrForbidden) {
		t.Fatalf("err = %v, want ErrForbidden", err)
	}
}

// TestSyncDriftIssueLabelsDropped: labels GitHub dropped on creation are
// added explicitly, so the next run finds the issue instead of opening
// another.
func TestSyncDriftIssueLabelsDropped(t *testing.T) {
	s, c := fake(t, nil)
	s.DropNewIssueLabels = true
	for range 2 {
		if _, err := SyncDriftIssue(context.Background(), c, drift("a")); err != nil {
			t.Fatal(err)
		}
	}
	if is := s.Issues(); len(is) != 1 || len(s.Labels(is[0].Number)) != 1 {
		t.Fatalf("issues %+v, labels %v", is, s.Labels(1))
	}
}
