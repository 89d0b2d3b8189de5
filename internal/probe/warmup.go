package probe

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// warmup makes the warm-up calls in turn, each followed by a re-list.
func (l *launchRun) warmup(ctx context.Context, calls []Call) error {
	for i := range l.opts.WarmupCalls {
		if len(calls) == 0 {
			break
		}
		c := calls[i%len(calls)]
		name := fmt.Sprintf("after-call-%d", i+1)
		if i > 0 && l.opts.CallGap > 0 && l.n == 1 {
			t := time.NewTimer(l.opts.CallGap)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		l.setPhase(fmt.Sprintf("call-%d", i+1))
		outcome, result, err := l.callTool(ctx, c)
		if err != nil {
			return err
		}
		if outcome == "timeout" {
			l.note(fmt.Sprintf("warm-up tools/call %q got no answer within %s (--call-timeout): it still counts as a call, the re-list after it was made, and a late answer is dropped unread", c.Tool, l.opts.CallTimeout))
		}
		l.res.Calls = append(l.res.Calls, CallRecord{Phase: fmt.Sprintf("launch-%d/%s", l.n, name), Call: c, Outcome: outcome, Result: result})
		// A server that reacts to the call with list_changed is re-listed
		// for that notification first, as a client would.
		l.barrier(ctx)
		if err := l.follow(ctx); err != nil {
			return err
		}
		if err := l.observe(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// burst makes the burst's calls (Options.BurstCalls) after the done timed
// calls of this process. A phase is named by the count of calls the
// process has received (launch-1/burst-after-call-64): what a counter in
// the server would read.
//
// A tool whose call goes unanswered within CallTimeout leaves the
// rotation (its counter moved all the same): a thousand calls to a tool
// that hangs would cost the burst its deadline. When every tool has left,
// the burst is cut short, and Result.Unfinished says so: a burst a server
// can stop by not answering is not one a pass may rest on.
func (l *launchRun) burst(ctx context.Context, done int) error {
	n := l.opts.BurstCalls
	var calls []Call
	if l.opts.Plan != nil {
		calls = l.opts.Plan(l.tools(), n)
	}
	if len(calls) == 0 {
		if done > 0 || l.opts.WarmupCalls == 0 {
			// (Otherwise the timed calls' note has said it.)
			l.note("the burst made no call: no tool eligible for one (it calls reads only, never a call the policy names)")
		}
		return nil
	}
	// Results are kept once per tool and content: the burst's answers
	// are mostly the same few, and each kept one is inspected.
	kept := map[[sha256.Size]byte]bool{}
	last := done + n
	made, listed, j := done, 0, 0
	for k := done + 1; k <= last && len(calls) > 0; k++ {
		c := calls[j%len(calls)]
		j++
		// The tap reads the phase: a canary in this answer is placed at
		// this call. Progress is told only at the re-lists.
		l.quietPhase(fmt.Sprintf("burst-call-%d", k))
		outcome, result, err := l.callTool(ctx, c)
		if err != nil {
			return err
		}
		made = k
		result = keepOnce(kept, c.Tool, result)
		l.res.Calls = append(l.res.Calls, CallRecord{Phase: l.phase, Call: c, Outcome: outcome, Result: result})
		if outcome == "timeout" {
			calls = slices.DeleteFunc(calls, func(x Call) bool { return x.Tool == c.Tool })
			l.note(fmt.Sprintf("burst tools/call %q got no answer within %s (--call-timeout): the tool left the burst's rotation after call %d", c.Tool, l.opts.CallTimeout, k))
		}
		// A list_changed the server sent with its answer is followed at
		// once; the next re-list waits for its count.
		if err := l.follow(ctx); err != nil {
			return err
		}
		if k <= 10 || k&(k-1) == 0 || k == last {
			if err := l.relistBurst(ctx, k); err != nil {
				return err
			}
			listed = k
		}
	}
	if made < last {
		if listed != made {
			if err := l.relistBurst(ctx, made); err != nil {
				return err
			}
		}
		l.res.Unfinished = append(l.res.Unfinished, fmt.Sprintf("the burst made %d of its %d calls: every tool it may call left a call unanswered within %s (--call-timeout)", made-done, n, l.opts.CallTimeout))
	}
	return nil
}

// keepOnce is result the first time a tool answers it, nil after: the
// burst's answers are mostly the same few, and each kept one is inspected.
func keepOnce(kept map[[sha256.Size]byte]bool, tool string, result json.RawMessage) json.RawMessage {
	if result == nil {
		return nil
	}
	sum := sha256.Sum256(append([]byte(tool+"\x00"), result...))
	if kept[sum] {
		return nil
	}
	kept[sum] = true
	return result
}

// relistBurst re-lists after the k-th call of the process, in the burst.
func (l *launchRun) relistBurst(ctx context.Context, k int) error {
	l.barrier(ctx)
	if err := l.follow(ctx); err != nil {
		return err
	}
	return l.observe(ctx, fmt.Sprintf("burst-after-call-%d", k))
}

// plan returns the warm-up calls in order: explicit ones first, then the
// planner's from the tools listed at the start of this launch.
func (l *launchRun) plan() []Call {
	if l.opts.WarmupCalls == 0 {
		// No call is made, so none is planned: the planner compiles
		// every tool's schema, which a quick check would wait for.
		return nil
	}
	calls := append([]Call(nil), l.opts.Calls...)
	if l.opts.Plan == nil || len(l.res.Observations) == 0 {
		return calls
	}
	return append(calls, l.opts.Plan(l.tools(), l.opts.WarmupCalls)...)
}

// tools are the raw tool definitions of the last phase recorded.
func (l *launchRun) tools() []json.RawMessage {
	if len(l.res.Observations) == 0 {
		return nil
	}
	last := l.res.Observations[len(l.res.Observations)-1]
	var tools []json.RawMessage
	for _, d := range last.Lists[KindTool] {
		tools = append(tools, d.Raw)
	}
	return tools
}

// callTool makes one warm-up call. A call that errors or times out still
// counts: the counter in the server is what is being baited, and it moved
// when the request arrived. A late answer to a timed-out call finds no
// pending request with its id and is dropped (session.run).
func (l *launchRun) callTool(ctx context.Context, c Call) (string, json.RawMessage, error) {
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	cctx, cancel := context.WithTimeout(ctx, l.opts.CallTimeout)
	defer cancel()
	raw, err := l.s.call(cctx, "tools/call", map[string]any{"name": c.Tool, "arguments": args})
	if err != nil {
		var rpc *RPCError
		switch {
		case errors.As(err, &rpc):
			return "rpc-error", nil, nil
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			// A slow tool is not a broken server; the call still counts.
			return "timeout", nil, nil
		}
		return "", nil, err
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(raw, &r)
	outcome := "ok"
	if r.IsError {
		outcome = "tool-error"
	}
	if len(raw) > maxKeptResult {
		// Said, not passed over: an answer the checker did not read is
		// not one it found clean.
		l.note(fmt.Sprintf("warm-up tools/call %q answered %d bytes, over the %d KiB kept for inspection: not inspected", c.Tool, len(raw), maxKeptResult>>10))
		return outcome, nil, nil
	}
	return outcome, raw, nil
}
