package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// barrier makes sure every notification the server sent before now has
// been read: the server answers in order, so once a ping is answered,
// whatever it wrote before the answer is queued. The stateless revision has
// no ping; there the reader's own ordering has to do.
func (l *launchRun) barrier(ctx context.Context) {
	if l.base.ProtocolVersion == Stateless {
		return
	}
	bctx, cancel := context.WithTimeout(ctx, min(time.Second, l.opts.RequestTimeout))
	defer cancel()
	_, _ = l.s.call(bctx, "ping", nil)
}

// observe lists everything the server advertises and records it as phase
// name, then follows any list_changed notifications with their own phases.
func (l *launchRun) observe(ctx context.Context, name string) error {
	l.setPhase(name)
	if err := l.snapshot(ctx, name); err != nil {
		return err
	}
	return l.follow(ctx)
}

// follow re-lists once for each batch of pending list_changed
// notifications, each as its own after-list-changed-N phase.
func (l *launchRun) follow(ctx context.Context) error {
	for {
		changed := false
		for _, n := range l.s.takeNotifications() {
			if strings.HasSuffix(n.Method, "/list_changed") && n.Method != "notifications/roots/list_changed" {
				changed = true
			}
		}
		if !changed {
			return nil
		}
		if l.listChanged >= l.opts.MaxListChanged {
			l.note(fmt.Sprintf("the server sent more than %d list_changed notifications in one launch; the rest were not followed", l.opts.MaxListChanged))
			return nil
		}
		l.listChanged++
		name := fmt.Sprintf("after-list-changed-%d", l.listChanged)
		l.setPhase(name)
		if err := l.snapshot(ctx, name); err != nil {
			return err
		}
	}
}

// listFailed judges a failed list of kind: nil when the probe carries on
// without it (not advertised and refused or unanswered, which marks it
// unsupported for the launch; or advertised but not implemented), else
// err itself.
func (l *launchRun) listFailed(ctx context.Context, kind lock.Kind, advertised bool, err error) error {
	spec := listSpec(kind)
	var rpc *RPCError
	switch {
	case !advertised && (errors.As(err, &rpc) || errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil):
		// Not advertised, and refused or left unanswered:
		// not supported. It is not asked again in this
		// launch.
		if l.unsupported == nil {
			l.unsupported = map[lock.Kind]bool{}
		}
		l.unsupported[kind] = true
		if !errors.As(err, &rpc) {
			l.note(fmt.Sprintf("%s got no answer within %s and the server does not advertise %q: recorded as not supported, not asked again in launch %d", spec.method, min(unadvertisedWait, l.opts.RequestTimeout), spec.capability, l.n))
		}
		return nil
	case errors.As(err, &rpc) && rpc.Err.Code == jsonrpc.CodeMethodNotFound:
		// Advertised but not implemented (HubSpot's resources,
		// many servers' templates): mainstream clients carry on
		// without the list, and so does the probe. Nothing is
		// recorded, so a list the lock holds shows as removed.
		l.note(fmt.Sprintf("%s is not implemented by the server (method not found) although it advertises %q: recorded as unsupported, nothing listed", spec.method, spec.capability))
		return nil
	}
	return err
}

func (l *launchRun) snapshot(ctx context.Context, name string) error {
	obs := l.base
	obs.Phase = l.phase
	obs.Launch = l.n
	obs.Identity = l.id
	obs.Lists = map[lock.Kind][]Def{}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(l.base.Capabilities, &caps)
	// The four lists go out together: a server answers them in any order
	// (each is matched by its id), so the phase costs one round trip of
	// the slowest list instead of the sum. Pages of one list stay in
	// sequence (each needs the cursor before it). The answers are read
	// back in Kinds order, so notes and the error reported do not depend
	// on which answer came first.
	type listed struct {
		defs []Def
		err  error
	}
	answers := make([]listed, len(Kinds))
	advertised := make([]bool, len(Kinds))
	var wg sync.WaitGroup
	for i, kind := range Kinds {
		c, ok := caps[listSpec(kind).capability]
		advertised[i] = ok && string(c) != "null"
		if !advertised[i] && l.unsupported[kind] {
			continue // not advertised, and not answered earlier in this launch
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lctx := ctx
			if !advertised[i] {
				// A list the server did not advertise is asked
				// briefly: silence means "not supported", as it does
				// to a client that asks only what is advertised.
				var cancel context.CancelFunc
				lctx, cancel = context.WithTimeout(ctx, min(unadvertisedWait, l.opts.RequestTimeout))
				defer cancel()
			}
			defs, err := l.list(lctx, kind)
			answers[i] = listed{defs, err}
		}()
	}
	wg.Wait()
	for i, kind := range Kinds {
		spec := listSpec(kind)
		if !advertised[i] && l.unsupported[kind] {
			continue
		}
		defs, err := answers[i].defs, answers[i].err
		if err != nil {
			if err := l.listFailed(ctx, kind, advertised[i], err); err != nil {
				return err
			}
			continue
		}
		if !advertised[i] {
			// A server that answers a list it does not advertise still
			// shows a client that asks everything in it (clients do not
			// all enforce capabilities).
			if len(defs) == 0 {
				continue
			}
			l.note(fmt.Sprintf("the server answers %s without advertising the %q capability; what it lists is checked", spec.method, spec.capability))
		}
		obs.Lists[kind] = defs
	}
	if !l.opts.NoPromptGets {
		if err := l.promptGets(ctx, &obs); err != nil {
			return err
		}
	}
	if err := l.resourceReads(ctx, &obs); err != nil {
		return err
	}
	l.res.Observations = append(l.res.Observations, obs)
	if l.opts.Observed != nil {
		l.opts.Observed(obs)
	}
	return nil
}

// promptGets asks for every listed prompt once per phase, filling each
// required argument with a fixed placeholder (prompt arguments are strings).
// A prompt whose expansion changes later in the run is a rug pull the
// listing cannot show.
func (l *launchRun) promptGets(ctx context.Context, obs *Observation) error {
	prompts := obs.Lists[KindPrompt]
	if len(prompts) == 0 {
		return nil
	}
	// The gets are independent: a few at a time, each answer kept at its
	// prompt's place, so the result is the same whatever order the server
	// answers in.
	answers := make([]json.RawMessage, len(prompts))
	args := make([]json.RawMessage, len(prompts))
	errs := make([]error, len(prompts))
	sem := make(chan struct{}, maxParallelGets)
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			answers[i], args[i], errs[i] = l.promptGet(ctx, p)
		}()
	}
	wg.Wait()
	obs.PromptGets = map[string]json.RawMessage{}
	obs.PromptArgs = map[string]json.RawMessage{}
	for i, p := range prompts {
		if errs[i] != nil {
			return errs[i]
		}
		obs.PromptGets[p.Key] = answers[i]
		if args[i] != nil {
			obs.PromptArgs[p.Key] = args[i]
		}
	}
	return nil
}

// maxParallelGets bounds the prompts/get requests in flight at once: a
// server listing hundreds of prompts is not sent hundreds of requests in
// one burst.
const maxParallelGets = 8

// resourceReads reads the first MaxResourceReads listed resources, a few
// at a time, each answer kept under its uri. A poisoned server puts its
// payload where no definition shows it, in what a resource holds, and may
// do so only after some calls: every phase reads again. A read that gets
// no answer within resourceReadWait is noted and skipped; an error answer
// is recorded; a broken connection ends the probe as any request's does.
func (l *launchRun) resourceReads(ctx context.Context, obs *Observation) error {
	res := obs.Lists[KindResource]
	if l.opts.MaxResourceReads < 0 || len(res) == 0 {
		return nil
	}
	if len(res) > l.opts.MaxResourceReads {
		l.note(fmt.Sprintf("the server lists %d resources; each phase reads the first %d", len(res), l.opts.MaxResourceReads))
		res = res[:l.opts.MaxResourceReads]
	}
	answers := make([]json.RawMessage, len(res))
	errs := make([]error, len(res))
	sem := make(chan struct{}, maxParallelGets)
	var wg sync.WaitGroup
	for i, r := range res {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			answers[i], errs[i] = l.resourceRead(ctx, r.Key)
		}()
	}
	wg.Wait()
	obs.ResourceReads = map[string]json.RawMessage{}
	for i, r := range res {
		switch {
		case errors.Is(errs[i], errNoAnswer):
			l.note(fmt.Sprintf("resources/read %q got no answer within %s: not read, so not inspected, in that phase", clip.Bytes(r.Key, 120), min(resourceReadWait, l.opts.RequestTimeout)))
		case errs[i] != nil:
			return errs[i]
		case len(answers[i]) > maxKeptResult:
			l.note(fmt.Sprintf("resources/read %q answered %d bytes, over the %d KiB kept for inspection: not inspected", clip.Bytes(r.Key, 120), len(answers[i]), maxKeptResult>>10))
		default:
			obs.ResourceReads[r.Key] = answers[i]
		}
	}
	return nil
}

// errNoAnswer is a read the server did not answer in time.
var errNoAnswer = errors.New("no answer")

// resourceRead reads one resource; an error answer is recorded as
// {"error": {code, message}}.
func (l *launchRun) resourceRead(ctx context.Context, uri string) (json.RawMessage, error) {
	rctx, cancel := context.WithTimeout(ctx, min(resourceReadWait, l.opts.RequestTimeout))
	defer cancel()
	raw, err := l.s.call(rctx, "resources/read", map[string]any{"uri": uri})
	if err != nil {
		var rpc *RPCError
		switch {
		case errors.As(err, &rpc):
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": rpc.Err.Code, "message": rpc.Err.Message}})
			return b, nil
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return nil, errNoAnswer
		}
		return nil, err
	}
	return raw, nil
}

// promptGet asks for one prompt; an error answer is recorded as
// {"error": {code, message}}. args are the arguments it sent, nil when the
// server answered with an error (there is no answer to pin for them).
func (l *launchRun) promptGet(ctx context.Context, p Def) (raw, sent json.RawMessage, err error) {
	var def struct {
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(p.Raw, &def)
	args := map[string]string{}
	for _, a := range def.Arguments {
		if a.Required && a.Name != "" {
			args[a.Name] = "example"
		}
	}
	raw, err = l.request(ctx, "prompts/get", map[string]any{"name": p.Key, "arguments": args})
	if err != nil {
		var rpc *RPCError
		if !errors.As(err, &rpc) {
			return nil, nil, err
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": rpc.Err.Code, "message": rpc.Err.Message}})
		return b, nil, nil
	}
	sent, _ = json.Marshal(args)
	return raw, sent, nil
}

// list follows nextCursor through every page, refusing cursor loops and
// more than MaxPages pages.
func (l *launchRun) list(ctx context.Context, kind lock.Kind) ([]Def, error) {
	spec := listSpec(kind)
	var defs []Def
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > l.opts.MaxPages {
			return nil, fmt.Errorf("%s: more than %d pages", spec.method, l.opts.MaxPages)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := l.request(ctx, spec.method, params)
		if err != nil {
			return nil, err
		}
		got, next, err := listPage(raw, spec.field, spec.key)
		if err != nil {
			return nil, fmt.Errorf("%s page %d: %w", spec.method, page, err)
		}
		defs = append(defs, got...)
		if next == "" {
			return defs, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("%s: cursor loop: page %d returned cursor %q again", spec.method, page, clip.Bytes(next, 60))
		}
		seen[next] = true
		cursor = next
	}
}
