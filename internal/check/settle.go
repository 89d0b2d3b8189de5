package check

import (
	"encoding/json"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/review"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// settle is the one path from a server's raw findings to the findings it
// reports, for check, pin, approve and the --base review alike: dedup,
// bind server-level findings to the launch they are about (so they can be
// acknowledged), the policy's rules, the lock's acknowledgements, a place
// in the repository (place; nil keeps what the findings say), sort. Then
// the redacted server entry gets its status from the same findings, so
// that pin and check, given the same servers, lock and flags, reach the
// same verdict. note is what the policy did, for the server's notes.
//
// review is the server's share of the base review (nil: none): what the
// pull request's lock approves over the base branch's. Its inspection
// findings go through the same steps, against the PR lock's entry for the
// server, and join the others; its approval notes come last, re-levelled
// by the same rules. So an unacknowledged error in a new approval fails
// the run, while approvals alone (notes) leave a server ok.
func (opts *Options) settle(srv report.Server, fs []finding.Finding, launch *lock.Launch, ls *lock.Server, place func([]finding.Finding), review *review.ServerApprovals) report.Server {
	fs, note := opts.settleFindings(srv.Name, fs, launch, ls, place)
	srv.Findings = fs
	if note != "" {
		srv.Notes = append(srv.Notes, note)
	}
	srv = redactServer(srv, opts.Redactor)
	if review != nil {
		srv.Findings = opts.withReview(srv.Findings, review)
	}
	srv.Status = report.StatusOf(srv, opts.FailOn)
	return srv
}

// settleFindings is settle's work on one list of findings: dedup, launch
// binding, the policy's rules, acknowledgements, place, sort. note is what
// the policy did.
func (opts *Options) settleFindings(server string, fs []finding.Finding, launch *lock.Launch, ls *lock.Server, place func([]finding.Finding)) ([]finding.Finding, string) {
	fs = finding.Dedup(fs)
	bindLaunch(fs, launch)
	fs, note := opts.applyRules(server, fs)
	review.ApplyAcks(fs, ls)
	if place != nil {
		place(fs)
	}
	finding.Sort(fs)
	return fs, note
}

// settleRepository is settle for the findings about the repository: the
// same dedup, the policy's top-level rules (a policy may raise them, never
// lower them: policy.enforcesLock), and the acknowledgements the policy in
// force gives, by rule and subject, since the lock's are a server's.
func (opts *Options) settleRepository(fs []finding.Finding) []finding.Finding {
	fs = finding.Dedup(fs)
	fs, _ = opts.applyRules("", fs)
	if opts.repositoryAcks != nil {
		for i := range fs {
			if reason, ok := opts.repositoryAcks.Acknowledged(fs[i]); ok {
				fs[i].Acknowledged, fs[i].AckReason = true, reason
			}
		}
	}
	finding.Sort(fs)
	return redactServer(report.Server{Findings: fs}, opts.Redactor).Findings
}

// withReview adds the base review's findings to a server's settled ones
// (fs). The inspection of the approved content is settled as the live
// findings were, with the PR lock's acknowledgements, and keeps the place
// in the PR's lock Approvals gave it; one the live inspection already
// reported is not repeated. The approval notes follow, in the review's
// order.
func (opts *Options) withReview(fs []finding.Finding, a *review.ServerApprovals) []finding.Finding {
	var pr *lock.Server
	if opts.Lock != nil {
		pr = opts.Lock.Servers[a.Server]
	}
	inspection, _ := opts.settleFindings(a.Server, a.Inspection, nil, pr, nil)
	inspection = redactServer(report.Server{Name: a.Server, Findings: inspection}, opts.Redactor).Findings
	fs = append([]finding.Finding(nil), fs...)
	for _, f := range inspection {
		if !repeats(fs, f, opts.FailOn) {
			fs = append(fs, f)
		}
	}
	finding.Sort(fs)
	notes, _ := opts.applyRules(a.Server, a.Findings)
	return append(fs, notes...)
}

// repeats reports whether f adds nothing to fs: the live inspection
// already reported the same rule, subject, field and message, and that
// finding fails the run whenever f would. A duplicate that would fail where
// the reported one does not (the live content was acknowledged, the PR's
// content is different and is not) is kept: nothing fails open.
func repeats(fs []finding.Finding, f finding.Finding, failOn finding.Severity) bool {
	for _, e := range fs {
		if e.Key() == f.Key() && e.Message == f.Message && (report.Fails(e, failOn) || !report.Fails(f, failOn)) {
			return true
		}
	}
	return false
}

// bindLaunch gives a server-level finding that an acknowledgement can
// silence, and that has no definition to be bound to (a canary the server
// sent back, an unpinned or environment-dependent launch), the hash of the
// launch it was raised on: the acknowledgement lapses when the command,
// its arguments or the resolved package change, as one on a definition
// lapses when the text changes. canary-returned, though about one tool, is
// bound the same way: what a read hands back is the code's doing, not the
// definition's. A canary is bound to the resolved version
// too (new code may leak for new reasons); launch hygiene to the launch as
// configured only, or every new release of an unpinned package would bring
// the warning back.
func bindLaunch(fs []finding.Finding, launch *lock.Launch) {
	if launch == nil {
		return
	}
	asConfigured := launch.WithoutArtifact()
	for i := range fs {
		f := &fs[i]
		if f.ContentSHA256 != "" || f.Kind != finding.KindServer && f.Rule != finding.CanaryReturned || finding.Resolution(f.Rule) != finding.ResolveAck {
			continue
		}
		l := asConfigured
		if f.Rule == finding.CanaryLeak || f.Rule == finding.CanaryUsed || f.Rule == finding.CanaryReturned {
			l = *launch
		}
		b, err := json.Marshal(l)
		if err != nil {
			continue
		}
		f.ContentSHA256 = lock.Canonicalize(b).SHA256
	}
}

// runLaunch is the launch a server run was raised on, for bindLaunch.
func runLaunch(run *serverRun) *lock.Launch {
	l := launchRecord(run)
	return &l
}
