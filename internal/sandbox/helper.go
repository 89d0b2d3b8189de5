package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// HelperExitStatus and HelperPrefix are how a helper that could not apply
// its restrictions or exec the server fails the launch: it exits with
// HelperExitStatus, and its reason is the line of the cmd's stderr that
// begins with HelperPrefix. The probe reads them to say why a launch ended
// before the server ran.
const (
	HelperExitStatus = 125
	HelperPrefix     = "mcp-lockcheck sandbox: "
)

const (
	// envPolicy carries the helper's policy as JSON. It is the marker
	// together with argv[0]; the helper removes it before exec, so the
	// server never sees it.
	envPolicy = "MCP_LOCKCHECK_SANDBOX_POLICY"
	// helperArg0 is argv[0] of the helper: `ps` shows what it is, and an
	// inherited envPolicy alone never turns the CLI into a helper.
	helperArg0 = "mcp-lockcheck-sandbox-helper"
	// selfTestOK is what a helper in self-test mode prints.
	selfTestOK = "mcp-lockcheck-sandbox-helper-ok"
)

// policy is what Command hands the helper.
type policy struct {
	Path     string // the resolved server executable
	Limits   Limits // rlimits; a zero field takes its default here too
	Landlock bool   `json:",omitempty"` // Strict: restrict to RO and RW
	// WriteOnly (Basic): restrict writes to RW, leave reads alone; best
	// effort, like the rest of Basic.
	WriteOnly bool     `json:",omitempty"`
	RO        []string `json:",omitempty"` // read + execute, dirs or files
	RW        []string `json:",omitempty"` // read + write + execute
	SelfTest  bool     `json:",omitempty"` // apply everything, print selfTestOK, exit
	// Gate: with everything applied, wait for one byte on gateFD before
	// the exec (HeldCommand).
	Gate bool `json:",omitempty"`
	// MapIDs (Strict on Linux): the helper was cloned into a new user
	// namespace without id maps, and writes these itself (setNamespaces).
	MapIDs *idMap `json:",omitempty"`
	// Net (Strict on Linux, with a network allowance): set up loopback,
	// the resolver's files and the listeners, and hand the listeners to
	// the checker on netFD (netns_linux.go).
	Net *netPolicy `json:",omitempty"`
}

// idMap is the checker's uid and gid, which the helper maps to themselves.
type idMap struct{ UID, GID int }

// The helper's errors start with the step that failed, so the checker can
// tell a refused user namespace from a refused mount or Landlock
// (strictCause).
const (
	stageMaps     = "user namespace id maps:"
	stageMount    = "mount:"
	stageLandlock = "landlock:"
	stageSeccomp  = "seccomp:"
)

// gateFD is the helper's end of a held launch's gate: its one extra file.
const gateFD = 3

// HelperMain must be called first thing in main (and in TestMain of any test
// binary that launches servers through this package). If this process was
// started as the sandbox helper, it applies the rlimits (and in Strict the
// Landlock ruleset; the namespaces were made at clone) and execs the server:
// it never returns. Otherwise it returns at once.
//
// Doing this in a re-executed helper rather than in the checker keeps the
// restrictions off the checker itself and in place before the server's first
// instruction: os/exec has no hook between fork and exec, and setting the
// limits with prlimit after Start would race a server that forks at once.
func HelperMain() {
	raw, ok := os.LookupEnv(envPolicy)
	if !ok || len(os.Args) == 0 || os.Args[0] != helperArg0 {
		return
	}
	err := runHelper(raw)
	fmt.Fprintf(os.Stderr, "%s%v\n", HelperPrefix, err)
	os.Exit(HelperExitStatus)
}

func runHelper(raw string) error {
	p, err := decodePolicy(raw)
	if err != nil {
		return err
	}
	if !p.SelfTest && (p.Path == "" || len(os.Args) < 2) {
		return errors.New("bad helper invocation: no command")
	}
	if p.MapIDs != nil {
		if err := writeIDMaps(p.MapIDs); err != nil {
			return err
		}
	}
	if err := setLimits(p.Limits); err != nil {
		return err
	}
	if err := closeOnExecAbove3(); err != nil {
		return err
	}
	// restrictSelf locks the goroutine to its thread and never unlocks:
	// the exec below must happen on the thread that was restricted.
	if err := restrictSelf(p); err != nil {
		return err
	}
	if p.SelfTest {
		fmt.Println(selfTestOK)
		os.Exit(0)
	}
	if p.Gate {
		if err := waitGate(); err != nil {
			return err
		}
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPolicy+"=") {
			env = append(env, kv)
		}
	}
	return execServer(p.Path, os.Args[1:], env)
}

// decodePolicy reads the helper's policy. A zero limit is the default, as
// in [Limits], never a limit of zero: RLIMIT_DATA or RLIMIT_NOFILE at 0
// would kill the helper itself at its first allocation or open, as a
// runtime crash rather than an error.
func decodePolicy(raw string) (policy, error) {
	var p policy
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return policy{}, fmt.Errorf("bad helper policy: %w", err)
	}
	p.Limits = p.Limits.withDefaults()
	return p, nil
}

// waitGate blocks until the checker opens the gate: one byte, then the
// server may start. The gate is closed before the exec, so the server
// never holds it. A gate closed without its byte (the launch was not
// needed) or broken ends the helper without starting anything.
func waitGate() error {
	f := os.NewFile(gateFD, "gate")
	if f == nil {
		return errors.New("held launch without its gate")
	}
	defer f.Close()
	var b [1]byte
	if n, err := f.Read(b[:]); n != 1 {
		if errors.Is(err, io.EOF) {
			os.Exit(0) // discarded: nothing ran, nothing to say
		}
		return fmt.Errorf("waiting for the gate: %v", err)
	}
	return nil
}

// Available reports whether level can be applied on this machine, by
// starting the helper once in self-test mode (the result is cached). The
// CLI asks before probing anything: strict that cannot be applied stops
// the run with the reason and the fix, instead of holding every server.
func Available(level Level) error {
	if level == Off {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("sandbox: locating the helper executable: %w", err)
	}
	return preflight(self, level)
}

var (
	preflightMu   sync.Mutex
	preflightDone = map[Level]error{}
)

// preflight starts the helper once per process and level in self-test mode,
// so a missing HelperMain, a kernel without Landlock or a denied user
// namespace is one clear error at New instead of every launch dying with an
// exit status.
func preflight(self string, level Level) error {
	preflightMu.Lock()
	defer preflightMu.Unlock()
	if err, ok := preflightDone[level]; ok {
		return err
	}
	err := selfTest(self, level)
	if !killed(err) {
		preflightDone[level] = err
	}
	return err
}

// killed says the self-test's helper died of a signal: the end-of-run
// sweep, or an interrupt, killed it half-way. That says nothing of the
// machine, so it is not cached: the next launch tests again.
func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(interface{ Signaled() bool })
	return ok && ws.Signaled()
}

func selfTest(self string, level Level) error {
	if level == Strict {
		if err := strictSupported(); err != nil {
			return err
		}
	}
	p := policy{SelfTest: true, Limits: Limits{}.withDefaults(), Landlock: level == Strict}
	cmd := exec.Command(self)
	cmd.SysProcAttr = groupAttr()
	if level == Strict {
		setNamespaces(cmd.SysProcAttr, &p)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	cmd.Args = []string{helperArg0}
	cmd.Env = []string{envPolicy + "=" + string(raw), "PATH=" + defaultPATH}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		if level == Strict {
			return strictCause(err, "")
		}
		return fmt.Errorf("sandbox: starting the helper %s: %w", self, err)
	}
	err = cmd.Wait()
	if strings.TrimSpace(stdout.String()) == selfTestOK && err == nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == HelperExitStatus {
		msg := strings.TrimSpace(stderr.String())
		if level == Strict {
			return strictCause(nil, strings.TrimPrefix(msg, HelperPrefix))
		}
		return fmt.Errorf("sandbox: the helper could not set limits: %s", msg)
	}
	return fmt.Errorf("sandbox: %w: %s did not act as the helper (exit: %v); call sandbox.HelperMain() first thing in main and in TestMain",
		ErrNoHelper, self, err)
}
