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
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
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

func (l *launchRun) note(s string) {
	for _, n := range l.res.Notes {
		if n == s {
			return
		}
	}
	l.res.Notes = append(l.res.Notes, s)
}
