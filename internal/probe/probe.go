// Package probe drives one MCP server through the phases an agent session
// goes through and records what the server showed the model in each:
// the handshake, every page of every list, warm-up tool calls with a
// re-list after each, a re-list after every list_changed notification, and
// relaunches. What it records stays raw JSON, byte for byte.
//
// Where the server runs is a Target (target.go): a command over stdio or
// an endpoint over HTTP. Run drives every launch of either the same way.
package probe

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Protocol versions, newest first. The stateless 2026-07-28 revision has
// no initialize handshake: it is reached through server/discover.
const (
	Stateless    = "2026-07-28"
	LatestLegacy = "2025-11-25"
)

var legacyVersions = []string{LatestLegacy, "2025-06-18", "2025-03-26", "2024-11-05"}

// Kinds of listed definitions, in the order they are listed: the lock's.
const (
	KindTool     = lock.KindTool
	KindPrompt   = lock.KindPrompt
	KindResource = lock.KindResource
	KindTemplate = lock.KindTemplate
)

var Kinds = lock.Kinds

// listSpec says how each kind is listed: method, result array, key field,
// and the capability that advertises it (lock.KindInfo).
func listSpec(kind lock.Kind) listInfo {
	k, _ := lock.InfoOf(kind)
	return listInfo{method: k.Method, field: k.Field, key: k.Key, capability: k.Capability}
}

type listInfo struct{ method, field, key, capability string }

// Def is one listed definition as received.
type Def struct {
	Key string
	Raw json.RawMessage
}

// Observation is what the server showed in one phase.
type Observation struct {
	Phase    string
	Launch   int
	Identity Identity
	// ProtocolVersion is the version in use; ServerInfo, Capabilities and
	// Instructions are raw JSON from initialize (or server/discover).
	ProtocolVersion string
	ServerInfo      json.RawMessage
	Capabilities    json.RawMessage
	Instructions    json.RawMessage
	// Lists holds the definitions of each kind in the order listed; a
	// kind the server does not advertise is absent.
	Lists map[lock.Kind][]Def
	// PromptGets holds the answer to prompts/get for each prompt the probe
	// could ask for (no required arguments, or string ones it fills in),
	// keyed by prompt name: the session pin of what a prompt expands to.
	// An error answer is recorded as {"error": message}.
	PromptGets map[string]json.RawMessage
	// PromptArgs holds the arguments sent for each prompt whose prompts/get
	// got a result (not an error): what pin-prompts pins the answer for.
	PromptArgs map[string]json.RawMessage
	// ResourceReads holds the answer to resources/read for the listed
	// resources the probe read in this phase (the first MaxResourceReads
	// in list order), keyed by uri; an error answer is recorded as
	// {"error": {code, message}}. What a resource holds is text the model
	// reads, so it is inspected, but not pinned: a resource's contents are
	// data, and change with it.
	ResourceReads map[string]json.RawMessage
}

// Call is one warm-up tools/call.
type Call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// CallRecord is a call the probe made and how it went.
type CallRecord struct {
	Phase string
	Call
	// Outcome is "ok", "tool-error" or "rpc-error".
	Outcome string
	// Result is the raw result (up to 256 KiB; nil when cut or absent):
	// what a tool returns is model input too, and is inspected.
	Result json.RawMessage
}

// maxKeptResult bounds the tool results kept for inspection.
const maxKeptResult = 256 << 10

// Identity is the client a probe presents itself as.
type Identity struct {
	Name    string
	Version string
	// Capabilities is the client capabilities object to declare.
	Capabilities map[string]any
}

func (id Identity) String() string { return id.Name + "/" + id.Version }

// unadvertisedWait bounds a list the server does not advertise: a server
// may drop what it did not advertise without an answer, and a client that
// asks only what is advertised never waits for it.
const unadvertisedWait = 2 * time.Second

// DefaultCallTimeout is how long a warm-up tools/call is waited for when
// Options.CallTimeout is not set.
const DefaultCallTimeout = 3 * time.Second

// Options shape a probe. Zero values take the defaults noted.
type Options struct {
	Launches    int // default 1
	WarmupCalls int // 0: none
	// Calls are explicit warm-up calls; they come before planned ones.
	Calls []Call
	// Plan chooses n calls from the listed tools (raw definitions): the
	// timed calls of a launch after Calls, and the burst's. Each plan goes
	// on where the one before stopped. nil plans none.
	Plan func(tools []json.RawMessage, n int) []Call
	// BurstCalls is how many calls the burst makes (0: no burst). The
	// burst runs in the first launch, after its timed warm-up calls, in
	// the same process: planned calls only (reads, never a call a policy
	// names, which may write), without gaps, with a re-list after each of
	// the process's first ten calls, at every power of two and after the
	// last. It reaches a counter that the timed calls, bounded by their
	// gaps, never would, for a few seconds on a fast server.
	BurstCalls int
	// Identity is presented on every launch; ExtraIdentities each add one
	// launch under another client identity.
	Identity        Identity
	ExtraIdentities []Identity
	// Protocol: "auto" (initialize, as the presented client opens; then
	// server/discover only if initialize is refused), "legacy" or
	// "stateless".
	Protocol       string
	RequestTimeout time.Duration // default 30s
	// StartTimeout, when longer than RequestTimeout, is how long the
	// first launch's initialize may take: a launcher that installs into a
	// cold cache (npx on a fresh runner, a new account) downloads the
	// package before the server's first instruction.
	StartTimeout time.Duration
	// MaxMessageBytes bounds one inbound JSON-RPC message (default
	// 16 MiB); the target enforces it on each launch's transport.
	MaxMessageBytes int
	MaxPages        int // default 100
	MaxListChanged  int // re-lists on list_changed per launch, default 10
	// CallTimeout bounds one warm-up tools/call (default 3s). Its answer
	// does not matter, only that the server counted it: a call that times
	// out is a note, and the re-list after it is made all the same.
	CallTimeout time.Duration
	// CallGap is how long the first launch's session idles before each
	// warm-up call after the first (0: none), so a server that waits for
	// wall time within a session is given it. The probe's context still
	// bounds the wait. The other launches make their calls without
	// gaps: what tells them apart from the first is the launch count,
	// the client identity or the clock, none of which needs a session to
	// last, and gaps in each of them made most of deep's wall time (34 of
	// 35 minutes with its 21 launches).
	CallGap time.Duration
	// Roots are the root URIs answered to roots/list.
	Roots []string
	// Tap sees every payload the server sends, with the current phase, the
	// method it answers or notifies, and for an answer to our tools/call,
	// prompts/get or resources/read the tool, prompt or uri it named
	// (canary detection tells a read the probe asked for from the rest),
	// and for an answer the params of the request it answers (nil
	// otherwise): what exactly was asked for.
	Tap func(phase, method, subject string, request json.RawMessage, payload []byte)
	// Observed, when set, is given each observation as soon as it is
	// recorded, in order, from the probe's goroutine (the engine
	// canonicalizes and inspects it while the probe goes on).
	Observed func(Observation)
	// Progress is told each phase as it starts.
	Progress func(phase string)
	// ExtraLaunches adds launches after the identity launches under the
	// default identity; the target decides what differs in them (the
	// clock launch runs with a moved clock).
	ExtraLaunches int
	// NoPromptGets turns off the prompts/get session pin.
	NoPromptGets bool
	// MaxResourceReads bounds the resources read in each phase (0:
	// DefaultResourceReads; negative: none).
	MaxResourceReads int
}

// DefaultResourceReads is how many listed resources a phase reads when
// Options.MaxResourceReads is not set: enough for a server's documents
// and status resources, not a file server's whole tree every phase.
const DefaultResourceReads = 32

// resourceReadWait bounds one resources/read: a resource may stand for a
// slow backend (a database, a remote file) the sandbox cuts off, and a
// read that does not answer is noted, never a reason to hold the server.
const resourceReadWait = 5 * time.Second

func (o *Options) defaults() {
	if o.Launches <= 0 {
		o.Launches = 1
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 16 << 20
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 100
	}
	if o.MaxListChanged <= 0 {
		o.MaxListChanged = 10
	}
	if o.MaxResourceReads == 0 {
		o.MaxResourceReads = DefaultResourceReads
	}
	if o.Identity.Name == "" {
		// Who a probe without an identity claims to be is config's
		// default, clientInfo and capabilities together.
		name, version := config.ClientInfo(config.ClientUnknown)
		o.Identity = Identity{Name: name, Version: version, Capabilities: config.ClientCapabilities(config.ClientUnknown)}
	}
	if o.Protocol == "" {
		o.Protocol = "auto"
	}
}

// Result is everything one probe saw.
type Result struct {
	Observations []Observation
	Calls        []CallRecord
	// Err is set when the probe could not finish: the server is held.
	Err error
	// Phase is where Err happened.
	Phase string
	// Stderr is the (bounded) stderr of the launch that failed, or of the
	// last launch.
	Stderr string
	// Notes are things a reader should know (no tool could be called, a
	// list method not implemented, ...).
	Notes []string
	// Unfinished says what of the plan the probe could not carry out
	// although it went on (a burst the server cut short): the probe is
	// not one a pass may rest on.
	Unfinished []string
}

// Run probes one server through every launch and phase. Every launch
// comes from target, and is driven the same way whatever the target.
func Run(ctx context.Context, target Target, opts Options) *Result {
	opts.defaults()
	res := &Result{}
	ids := []Identity{}
	for range opts.Launches {
		ids = append(ids, opts.Identity)
	}
	ids = append(ids, opts.ExtraIdentities...)
	for range opts.ExtraLaunches {
		ids = append(ids, opts.Identity)
	}
	// Launches that are not the last are reaped in the background; none
	// outlives Run.
	var reaps sync.WaitGroup
	defer reaps.Wait()
	drops := &dropLog{}
	if opts.Tap != nil {
		drops.tap = func(phase string, line []byte) { opts.Tap(phase, "stdout", "", nil, line) }
	}
	defer func() {
		drops.close()
		if n := drops.note(); n != "" {
			res.Notes = append(res.Notes, n)
		}
	}()
	// Each launch after the first is started held while the one before
	// it runs (Stdio.Hold), and let run when its turn comes; one the
	// probe does not reach is dropped.
	var next *nextLaunch
	defer func() {
		if next != nil {
			next.drop()
		}
	}()
	for i, id := range ids {
		n := i + 1
		l := &launchRun{opts: &opts, res: res, n: n, id: id, last: n == len(ids), reaps: &reaps, drops: drops, held: next}
		next = nil
		if h, ok := target.(holder); ok && !l.last {
			l.holdNext = func() {
				next = holdNext(ctx, h, LaunchSpec{N: n + 1, MaxMessageBytes: opts.MaxMessageBytes, drops: drops})
			}
		}
		if err := l.run(ctx, target); err != nil {
			res.Err = err
			res.Phase = l.phase
			return res
		}
	}
	return res
}

// launchRun is one launch of the server.
type launchRun struct {
	opts        *Options
	res         *Result
	n           int
	id          Identity
	phase       string
	s           *session
	base        Observation // handshake part, copied into every phase
	listChanged int
	// unsupported are the lists the server does not advertise and did
	// not answer in this launch: not asked again.
	unsupported map[lock.Kind]bool
	last        bool            // the last launch of the probe
	reaps       *sync.WaitGroup // background reaps of earlier launches
	drops       *dropLog        // stdout lines skipped, across launches
	// held is this launch, started held during the one before (nil:
	// started at its turn); holdNext starts the next one held.
	held     *nextLaunch
	holdNext func()
	// shared is phase for the session's reader goroutine (the tap runs
	// there, while run moves from phase to phase).
	shared atomic.Pointer[string]
}

func (l *launchRun) setPhase(name string) {
	l.quietPhase(name)
	if l.opts.Progress != nil {
		l.opts.Progress(l.phase)
	}
}

// quietPhase is setPhase without telling Progress: the burst's calls are
// a thousand phases a progress line has no use for.
func (l *launchRun) quietPhase(name string) {
	l.phase = fmt.Sprintf("launch-%d/%s", l.n, name)
	phase := l.phase
	l.shared.Store(&phase)
	l.drops.setPhase(l.phase)
}

func (l *launchRun) run(ctx context.Context, target Target) (err error) {
	l.setPhase("start")
	ln, err := l.launch(ctx, target)
	if err != nil {
		return err
	}
	defer func() {
		ln.Stop()
		// The session's last tap is over before the launch is: a caller
		// of Run reads what Tap saw as soon as it returns.
		if l.s != nil {
			select {
			case <-l.s.dead:
			case <-time.After(stderrGrace):
			}
		}
		if err == nil && !l.last {
			// Nothing more is read from this launch (Stderr is the
			// last launch's): its teardown overlaps with the next.
			l.reaps.Add(1)
			go func() {
				defer l.reaps.Done()
				ln.Wait()
			}()
			return
		}
		l.res.Stderr = ln.Wait()
		if err != nil {
			err = ln.Explain(err)
		}
	}()
	l.s = newSession(ln.Conn())
	l.s.answer = l.answer
	l.s.tap = l.opts.Tap
	l.s.phase = func() string {
		if p := l.shared.Load(); p != nil {
			return *p
		}
		return ""
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go l.s.run(sctx)

	l.setPhase("initial")
	if err := l.handshake(ctx); err != nil {
		return err
	}
	if err := l.observe(ctx, "initial"); err != nil {
		return err
	}
	calls := l.plan()
	if l.holdNext != nil {
		// After the first lists, not before: the next launch's start
		// would compete with this server's for the CPU. And after the
		// plan, whose schema compiles it would slow down as much.
		l.holdNext()
	}
	if l.opts.WarmupCalls > 0 && len(calls) == 0 {
		// Why no tool was eligible is the planner's to say (its note
		// names the skipped tools and the reason for each).
		l.note("no warm-up call was made: no calls named in the policy, and no tool eligible for one")
	}
	if err := l.warmup(ctx, calls); err != nil {
		return err
	}
	if l.n == 1 && l.opts.BurstCalls > 0 {
		made := 0
		if len(calls) > 0 {
			made = l.opts.WarmupCalls
		}
		return l.burst(ctx, made)
	}
	return nil
}

// launch is the held launch if one is waiting, else a new start of
// target.
func (l *launchRun) launch(ctx context.Context, target Target) (Launch, error) {
	var ln Launch
	var err error
	if l.held != nil {
		held := l.held
		l.held = nil
		if ln, err = held.take(); err != nil {
			return nil, err
		}
	}
	if ln == nil {
		if ln, err = target.Start(ctx, LaunchSpec{N: l.n, MaxMessageBytes: l.opts.MaxMessageBytes, drops: l.drops}); err != nil {
			return nil, err
		}
	}
	return ln, nil
}

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

func (l *launchRun) note(s string) {
	for _, n := range l.res.Notes {
		if n == s {
			return
		}
	}
	l.res.Notes = append(l.res.Notes, s)
}

// answer responds to requests from the server so it never stalls on us.
func (l *launchRun) answer(method string, _ json.RawMessage) (any, *jsonrpc.Error) {
	switch method {
	case "ping":
		return struct{}{}, nil
	case "roots/list":
		roots := []map[string]string{}
		for _, r := range l.opts.Roots {
			roots = append(roots, map[string]string{"uri": r, "name": "workspace"})
		}
		return map[string]any{"roots": roots}, nil
	case "sampling/createMessage", "elicitation/create":
		return nil, &jsonrpc.Error{Code: -1, Message: "the user declined"}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
}

func (l *launchRun) request(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	rctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
	defer cancel()
	return l.s.call(rctx, method, params)
}

// clientCaps are the capabilities this launch declares: its identity's,
// or for an extra identity given without any, config's default.
func (l *launchRun) clientCaps() map[string]any {
	if l.id.Capabilities != nil {
		return l.id.Capabilities
	}
	return config.ClientCapabilities(config.ClientUnknown)
}

// handshake speaks the newest protocol the server accepts: the stateless
// revision's server/discover when the server answers it, else initialize.
func (l *launchRun) handshake(ctx context.Context) error {
	switch l.opts.Protocol {
	case "legacy":
		return l.initialize(ctx)
	case "stateless":
		ok, err := l.discover(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return errors.New("server/discover: the server does not speak the " + Stateless + " revision")
		}
		return nil
	}
	// auto: open the way the client we present opens, with initialize; a
	// checker that sent server/discover first would be recognisable as
	// one. Only a server that refuses initialize is asked server/discover.
	err := l.initialize(ctx)
	var rpc *RPCError
	if err == nil || !errors.As(err, &rpc) {
		return err
	}
	ok, derr := l.discover(ctx)
	if derr != nil {
		return derr
	}
	if !ok {
		return err
	}
	return nil
}

// discover tries server/discover. A server that does not know it answers
// with an error (or, for some, not at all within a short wait): fall back.
func (l *launchRun) discover(ctx context.Context) (bool, error) {
	wait := min(3*time.Second, l.opts.RequestTimeout)
	if l.opts.Protocol == "stateless" {
		wait = l.opts.RequestTimeout
	}
	dctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	raw, err := l.s.call(dctx, "server/discover", map[string]any{"_meta": l.statelessMeta()})
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) || errors.Is(err, context.DeadlineExceeded) {
			return false, nil
		}
		return false, err
	}
	var d struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		ServerInfo        json.RawMessage `json:"serverInfo"`
		Instructions      json.RawMessage `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return false, nil
	}
	for _, v := range d.SupportedVersions {
		if v == Stateless {
			l.base = Observation{ProtocolVersion: Stateless, ServerInfo: d.ServerInfo, Capabilities: d.Capabilities, Instructions: nullToNil(d.Instructions)}
			l.announceVersion(Stateless)
			l.s.meta = l.statelessMeta()
			return true, nil
		}
	}
	return false, nil
}

func (l *launchRun) statelessMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    Stateless,
		"io.modelcontextprotocol/clientCapabilities": l.clientCaps(),
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": l.id.Name, "version": l.id.Version},
	}
}

func (l *launchRun) initialize(ctx context.Context) error {
	timeout := l.opts.RequestTimeout
	if l.n == 1 {
		timeout = max(timeout, l.opts.StartTimeout)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := l.s.call(rctx, "initialize", map[string]any{
		"protocolVersion": LatestLegacy,
		"capabilities":    l.clientCaps(),
		"clientInfo":      map[string]string{"name": l.id.Name, "version": l.id.Version},
	})
	if err != nil {
		return err
	}
	var r struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    json.RawMessage `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("initialize: result is not an object: %v", err)
	}
	if r.ProtocolVersion == "" {
		return errors.New("initialize: result has no protocolVersion")
	}
	known := false
	for _, v := range legacyVersions {
		known = known || v == r.ProtocolVersion
	}
	if !known {
		// The spec says to disconnect from a version we do not support;
		// we still record what the server said, so the version is visible.
		l.note(fmt.Sprintf("server answered protocol version %q, which this mcp-lockcheck does not know", r.ProtocolVersion))
	}
	l.base = Observation{ProtocolVersion: r.ProtocolVersion, ServerInfo: r.ServerInfo, Capabilities: r.Capabilities, Instructions: nullToNil(r.Instructions)}
	l.announceVersion(r.ProtocolVersion)
	return l.s.notify(ctx, "notifications/initialized", nil)
}

func nullToNil(r json.RawMessage) json.RawMessage {
	if string(r) == "null" {
		return nil
	}
	return r
}

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
