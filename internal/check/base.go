package check

import (
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/review"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// BaseLock is the base branch's side of a pull request's check: the
// check reviews what the PR's lock (Options.Lock) approves over Lock.
type BaseLock struct {
	// Lock is the base branch's lock; nil when the base has none (first
	// adoption: everything the PR's lock holds is a new approval).
	Lock *lock.File
}

// approvals is what the PR's lock approves over the base lock, by server:
// the base review's finding source, read by the one settle of each
// server the run reports. Servers the run does not report (left out by
// --server) are not reviewed. Nil without a review.
func (opts *Options) approvals() map[string]*review.ServerApprovals {
	if opts.Base == nil {
		return nil
	}
	by := map[string]*review.ServerApprovals{}
	for _, a := range review.Approvals(opts.Base.Lock, opts.Lock, opts.LockPath, opts.LockData) {
		by[a.Server] = &a
	}
	return by
}
