package check

import (
	"encoding/json"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
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
func (opts *Options) settle(srv report.Server, fs []finding.Finding, launch *lock.Launch, ls *lock.Server, place func([]finding.Finding)) report.Server {
	fs = finding.Dedup(fs)
	bindLaunch(fs, launch)
	fs, note := opts.applyRules(srv.Name, fs)
	applyAcks(fs, ls)
	if place != nil {
		place(fs)
	}
	finding.Sort(fs)
	srv.Findings = fs
	if note != "" {
		srv.Notes = append(srv.Notes, note)
	}
	srv = redactServer(srv, opts.Redactor)
	srv.Status = report.StatusOf(srv, opts.FailOn)
	return srv
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
	asConfigured := *launch
	asConfigured.Resolved = ""
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
