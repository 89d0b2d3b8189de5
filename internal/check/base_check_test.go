package check

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestCheckReviewsBase: the base branch's lock is an input of Check, and
// what the pull request's lock approves over it is settled with the live
// findings, once: the same policy re-levels it, the same acknowledgements
// silence it, one finding the live inspection already made is not
// repeated, and the report's exit code says all of it. Hidden text a pull
// request approves fails the run unless the PR's lock acknowledges it.
func TestCheckReviewsBase(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	pinned := func(t *testing.T, scenario string) (Options, *lock.File) {
		t.Helper()
		s := config.Server{Name: "s", Type: "stdio", Command: os.Args[0], Env: map[string]string{"FAKE_SCENARIO": scenario}, File: ".mcp.json", Line: 1, Client: "claude-code"}
		opts := Options{Servers: []config.Server{s}, LockPath: "mcp-lock.json",
			Probe:   probe.Options{Launches: 1, RequestTimeout: 10 * time.Second, CallTimeout: time.Second},
			Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1}
		lk, r := Pin(context.Background(), opts, approval.Approver{By: "me", At: time.Unix(0, 0)})
		if lk == nil {
			t.Fatalf("nothing pinned: %+v", r)
		}
		return opts, lk
	}
	// withLock gives opts the PR's lock, as the CLI reads it from disk.
	withLock := func(t *testing.T, opts Options, lk *lock.File) Options {
		t.Helper()
		data, err := lk.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if opts.Lock, err = lock.Parse("mcp-lock.json", data); err != nil {
			t.Fatal(err)
		}
		opts.LockData = data
		return opts
	}
	count := func(fs []finding.Finding, rule finding.RuleID) int {
		n := 0
		for _, f := range fs {
			if f.Rule == rule {
				n++
			}
		}
		return n
	}
	approvals := func(fs []finding.Finding) int {
		return count(fs, finding.ApprovalAdded) + count(fs, finding.ApprovalChanged)
	}

	t.Run("honest", func(t *testing.T) {
		opts, lk := pinned(t, "honest")
		// The PR's lock holds a second server this run does not check
		// (--server): it is not reviewed.
		lk.Servers["other"] = lk.Servers["s"]
		opts = withLock(t, opts, lk)

		r := Compare(context.Background(), opts)
		if r.Summary.ExitCode != report.ExitOK || approvals(r.Servers[0].Findings) != 0 {
			t.Fatalf("no review: exit %d, %v", r.Summary.ExitCode, briefs(r.Servers[0].Findings))
		}

		opts.Base = &BaseLock{Lock: opts.Lock}
		if r := Compare(context.Background(), opts); approvals(r.Servers[0].Findings) != 0 {
			t.Errorf("nothing new over the base: %v", briefs(r.Servers[0].Findings))
		}

		opts.Base = &BaseLock{} // first adoption: the base has no lock
		r = Compare(context.Background(), opts)
		if len(r.Servers) != 1 || r.Servers[0].Name != "s" {
			t.Fatalf("servers: %+v", r.Servers)
		}
		srv := r.Servers[0]
		if r.Summary.ExitCode != report.ExitOK || srv.Status != report.StatusOK || approvals(srv.Findings) == 0 {
			t.Fatalf("approvals alone: exit %d status %s, %v", r.Summary.ExitCode, srv.Status, briefs(srv.Findings))
		}
		// The approval notes come last, in the review's order: the
		// server's launch first.
		first := len(srv.Findings) - approvals(srv.Findings)
		for i, f := range srv.Findings {
			if (i >= first) != strings.HasPrefix(string(f.Rule), "approval-") {
				t.Fatalf("approval notes are not last: %v", briefs(srv.Findings))
			}
		}
		if f := srv.Findings[first]; f.Field != "launch" || f.File != "mcp-lock.json" || f.Line == 0 {
			t.Errorf("first note: %+v", f)
		}
		if r.Summary.ByRule[finding.ApprovalAdded] != approvals(srv.Findings) {
			t.Errorf("summary does not count the review: %+v", r.Summary)
		}

		// The policy re-levels the review's findings as it does the
		// live ones: one settle.
		opts.Policy = settingsFunc(func(string) policy.Settings {
			return policy.Settings{Rules: map[finding.RuleID]policy.RuleLevel{finding.ApprovalAdded: {Severity: finding.Error}}}
		})
		r = Compare(context.Background(), opts)
		if r.Summary.ExitCode != report.ExitDrift || r.Servers[0].Status != report.StatusDrift {
			t.Errorf("approval-added raised to error: exit %d status %s", r.Summary.ExitCode, r.Servers[0].Status)
		}
	})

	t.Run("hidden text approved", func(t *testing.T) {
		opts, lk := pinned(t, "desc-hidden")
		var hidden *finding.Finding
		r := Compare(context.Background(), withLock(t, opts, lk))
		live := r.Servers[0].Findings
		for i, f := range r.Servers[0].Findings {
			if f.Rule == finding.HiddenCharacters {
				hidden = &r.Servers[0].Findings[i]
			}
		}
		if hidden == nil || hidden.ContentSHA256 == "" {
			t.Fatalf("the live check sees no hidden text: %v", briefs(r.Servers[0].Findings))
		}

		opts = withLock(t, opts, lk)
		opts.Base = &BaseLock{}
		r = Compare(context.Background(), opts)
		fs := r.Servers[0].Findings
		if r.Summary.ExitCode != report.ExitDrift || r.Servers[0].Status != report.StatusDrift {
			t.Errorf("unacknowledged hidden text in a new approval: exit %d status %s", r.Summary.ExitCode, r.Servers[0].Status)
		}
		if n := count(fs, finding.HiddenCharacters); n != 1 {
			t.Errorf("%d hidden-characters findings, want the live one only: %v", n, briefs(fs))
		}

		// The PR's lock acknowledges it: live and review both silenced,
		// and the acknowledgement itself is listed for reviewers.
		// What the hidden text asks is judged too (model-instruction, an
		// error for what it asks): both are acknowledged.
		lk.Servers["s"].Acknowledgements = []lock.Ack{{Rule: string(hidden.Rule), Kind: hidden.Kind, Subject: hidden.Subject, SHA256: hidden.ContentSHA256, Reason: "reviewed"}}
		for _, f := range live {
			if f.Rule != finding.HiddenCharacters && f.Severity >= finding.Error && f.ContentSHA256 != "" {
				lk.Servers["s"].Acknowledgements = append(lk.Servers["s"].Acknowledgements, lock.Ack{Rule: string(f.Rule), Kind: f.Kind, Subject: f.Subject, SHA256: f.ContentSHA256, Reason: "reviewed"})
			}
		}
		opts = withLock(t, opts, lk)
		opts.Base = &BaseLock{}
		r = Compare(context.Background(), opts)
		fs = r.Servers[0].Findings
		if r.Summary.ExitCode != report.ExitOK {
			t.Errorf("acknowledged: exit %d, %v", r.Summary.ExitCode, briefs(fs))
		}
		acked := false
		for _, f := range fs {
			if f.Rule == finding.HiddenCharacters && !f.Acknowledged {
				t.Errorf("unacknowledged: %+v", f)
			}
			acked = acked || f.Rule == finding.ApprovalAdded && f.Field == "acknowledgements/"+string(finding.HiddenCharacters)
		}
		if !acked {
			t.Errorf("the new acknowledgement is not listed: %v", briefs(fs))
		}
	})
}
