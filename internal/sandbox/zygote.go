package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// The zygote is a sandbox helper started before the checker knows what it
// will launch: Prestart starts it while the checker is still initializing
// (the JSON Schema library alone takes about 10 ms of that), and it waits
// at its gate for a launch. A helper costs about 20 ms before the server's
// first instruction (the Go runtime's start and package inits of this
// binary); started this early, that time runs beside the checker's own
// start instead of after it. The zygote makes one launch, the first one
// asked for at the level it was started for ([Run.Prestarted]); every
// other launch has its own helper, as before.
//
// Nothing about the launch is decided early. The zygote starts with no
// environment but its marker, and receives everything a helper gets from
// [Run.Command] on the gate: the policy, the server's argv, its whole
// environment and its working directory. It then applies the policy as a
// helper does and execs the server. A zygote nobody takes is discarded
// (DiscardZygote); one whose checker dies reads EOF and exits.

const (
	// zygoteArg0 is the zygote's argv[0]; with envPolicy set to
	// zygoteMarker, it makes this binary a zygote (HelperMain).
	zygoteArg0   = "mcp-lockcheck-sandbox-zygote"
	zygoteMarker = "zygote"
	// maxZygoteLaunch bounds what the zygote reads from its gate.
	maxZygoteLaunch = 16 << 20
)

// zygoteLaunch is what the checker sends the zygote.
type zygoteLaunch struct {
	Policy policy
	Argv   []string // the server's argv, argv[0] as configured
	Env    []string // the server's whole environment
	Dir    string   // the server's working directory
}

// runZygote is the zygote: it waits for its launch, then applies the
// policy and execs the server. A gate closed with nothing written (the
// zygote was not needed) ends it without a word.
func runZygote() error {
	// Not dumpable while it waits, like the checker (ProtectSelf): a
	// process of the same user (another server of the run) could
	// otherwise ptrace it and change the launch it is about to make. The
	// exec makes the server dumpable again, as any helper's server is.
	if err := ProtectSelf(); err != nil {
		return err
	}
	f := os.NewFile(gateFD, "gate")
	if f == nil {
		return errors.New("zygote without its gate")
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxZygoteLaunch+1))
	f.Close()
	if err != nil {
		return fmt.Errorf("zygote: reading the launch: %v", err)
	}
	if len(raw) == 0 {
		os.Exit(0) // discarded: nothing ran, nothing to say
	}
	if len(raw) > maxZygoteLaunch {
		return errors.New("zygote: launch too large")
	}
	var l zygoteLaunch
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("zygote: bad launch: %w", err)
	}
	if l.Policy.Path == "" || len(l.Argv) == 0 || l.Policy.SelfTest || l.Policy.Gate {
		return errors.New("zygote: bad launch: no command")
	}
	if l.Dir != "" {
		if err := os.Chdir(l.Dir); err != nil {
			return fmt.Errorf("zygote: working directory: %w", err)
		}
	}
	return applyAndExec(l.Policy, l.Argv, l.Env)
}

// zygote is the checker's side of a started zygote.
type zygote struct {
	level  Level  // Basic or Strict (its namespaces are made at clone)
	self   string // the executable it runs, the helper's
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *os.File // read end
	gate   *os.File // write end
}

// zygotes is the process's one zygote: busy from Prestart until a launch
// takes it or it is discarded; started is closed once its start is over
// (z is nil if it failed).
var zygotes struct {
	sync.Mutex
	busy    bool
	started chan struct{}
	z       *zygote
}

// Prestart starts a zygote for launches at level, unless one is already
// there. It returns at once: the start (a clone, with Strict's namespaces,
// and the exec) runs in the background, since the caller is still
// initializing. Call it as early as possible in a process about to launch
// servers (the CLI does, from an init function ordered before the costly
// ones); a process that may not take it calls DiscardZygote before it
// sweeps. A zygote that cannot start costs nothing but the attempt: the
// first launch then starts its own helper, which fails closed as ever.
func Prestart(level Level) {
	if !canPrestart || (level != Basic && level != Strict) {
		return
	}
	zygotes.Lock()
	defer zygotes.Unlock()
	if zygotes.busy {
		return
	}
	zygotes.busy = true
	started := make(chan struct{})
	zygotes.started = started
	go func() {
		z, _ := startZygote(level)
		zygotes.Lock()
		zygotes.z = z
		zygotes.Unlock()
		close(started)
	}()
}

func startZygote(level Level) (*zygote, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: locating the helper executable: %w", err)
	}
	cmd := exec.Command(self)
	cmd.Args = []string{zygoteArg0}
	cmd.Env = []string{envPolicy + "=" + zygoteMarker}
	cmd.SysProcAttr = groupAttr()
	if level == Strict {
		setNamespaces(cmd.SysProcAttr)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}
	// The gate is a socket, not a pipe: a pipe can be opened again
	// through /proc/PID/fd by any process allowed to read the zygote's
	// /proc entry, and written a launch of its own; a socket cannot.
	gateR, gateW, err := gateSockets()
	if err != nil {
		stdin.Close()
		stdout.Close()
		errR.Close()
		errW.Close()
		return nil, err
	}
	cmd.Stderr = errW
	cmd.ExtraFiles = []*os.File{gateR} // gateFD
	err = cmd.Start()
	errW.Close()
	gateR.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		errR.Close()
		gateW.Close()
		return nil, fmt.Errorf("sandbox: starting the zygote: %w", err)
	}
	return &zygote{level: level, self: self, cmd: cmd, stdin: stdin, stdout: stdout, stderr: errR, gate: gateW}, nil
}

// takeZygote hands the zygote to one launch at level, once its start is
// over; nil when there is none, or it is for another level (it then
// waits for a launch at its own).
func takeZygote(level Level) *zygote {
	zygotes.Lock()
	started := zygotes.started
	zygotes.Unlock()
	if started == nil {
		return nil
	}
	<-started
	zygotes.Lock()
	defer zygotes.Unlock()
	z := zygotes.z
	if z == nil || (level != "" && z.level != level) {
		return nil
	}
	zygotes.z, zygotes.started, zygotes.busy = nil, nil, false
	return z
}

// DiscardZygote ends a zygote nobody took and reaps it, so that the run's
// sweep finds neither a live process nor a zombie of it. Nothing of a
// server ever ran in it.
func DiscardZygote() {
	if z := takeZygote(""); z != nil {
		z.discard()
	}
	zygotes.Lock()
	zygotes.started, zygotes.busy = nil, false
	zygotes.Unlock()
}

func (z *zygote) discard() {
	z.gate.Close()
	_ = KillGroup(z.cmd, syscall.SIGKILL)
	z.stdin.Close()
	_ = z.cmd.Wait() // closes stdout
	z.stderr.Close()
}

// Started is a launch whose process already runs: its cmd, started (Wait
// it, never Start it), and the checker's ends of its stdin, stdout and
// stderr.
type Started struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr *os.File
}

// Prestarted is [Run.Command] for a launch the zygote makes: the same
// helper policy, argv, environment and working directory, handed to the
// waiting zygote, which applies them and execs the server. It returns nil
// and no error when no zygote can make it: none is waiting (another launch
// took it, or none was started), the zygote was started for another level
// (Strict's namespaces are made at clone), the level is Off (no helper),
// or the zygote could not be reached; the caller then uses Command.
func (r *Run) Prestarted(command string, args []string, env map[string]string, cwd string) (*Started, error) {
	if r.opts.Level == Off {
		return nil, nil
	}
	path, childEnv, dir, err := r.resolve(command, env, cwd)
	if err != nil {
		return nil, err
	}
	pol := r.helperPolicy(path, args, dir, childEnv, false)
	raw, err := json.Marshal(zygoteLaunch{
		Policy: pol,
		Argv:   append([]string{command}, args...),
		Env:    flatten(childEnv),
		Dir:    dir,
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: encoding the launch: %w", err)
	}
	z := takeZygote(r.opts.Level)
	if z == nil {
		return nil, nil
	}
	if z.self != r.self {
		z.discard()
		return nil, nil
	}
	_, err = z.gate.Write(raw)
	if cerr := z.gate.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// It died waiting (killed from outside): nothing ran in it.
		z.discard()
		return nil, nil
	}
	return &Started{Cmd: z.cmd, Stdin: z.stdin, Stdout: z.stdout, Stderr: z.stderr}, nil
}
