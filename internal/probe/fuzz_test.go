package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// A script line "METHOD JSON" answers the next request for METHOD, with
// idPlaceholder replaced by that request's id; any other line is sent
// unprompted (a notification, a request of the server's own, garbage) just
// before the first answer that follows it in the script. A request the
// script has no answer for gets "method not found". Keying answers by
// method keeps a transcript meaningful when the probe reorders its phases.
var idPlaceholder = []byte(`"$id"`)

var methodPrefix = regexp.MustCompile(`^([A-Za-z_/]+) `)

// scriptedServer answers each request the probe sends with the next script
// lines, over the SDK's IOTransport on in-memory pipes: the same decoder a
// stdio server's stdout goes through, without a process.
type scriptedServer struct {
	lines [][]byte
	done  chan struct{}
	// sent is everything the server wrote, read only after done.
	sent bytes.Buffer
}

// connect is a Connector that serves s for one launch. Closing
// closes the client's connection (and with it both pipes) and waits for
// the server to stop, so no goroutine outlives the probe.
func (s *scriptedServer) connect(ctx context.Context, _ int) (mcp.Connection, func(), error) {
	toClient, fromServer := io.Pipe()
	fromClient, toServer := io.Pipe()
	s.done = make(chan struct{})
	go s.serve(fromClient, fromServer)
	t := &mcp.IOTransport{Reader: toClient, Writer: toServer, MaxLineLength: 1 << 20}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return conn, func() {
		once.Do(func() {
			conn.Close()
			toClient.Close()
			fromClient.Close()
			<-s.done
		})
	}, nil
}

func (s *scriptedServer) serve(in *io.PipeReader, out *io.PipeWriter) {
	defer close(s.done)
	// Lines go out through their own goroutine, so the server always reads
	// what the probe writes: an OS pipe buffers 64 KiB, io.Pipe nothing, and
	// a server blocked writing while the probe writes would be a deadlock
	// of the harness, not of the probe.
	queue := make(chan []byte, 2*len(s.lines)+64)
	written := make(chan struct{})
	go func() {
		defer close(written)
		defer out.Close()
		for line := range queue {
			if _, err := out.Write(line); err != nil {
				in.Close()
				return
			}
		}
	}()
	defer func() {
		close(queue)
		<-written
	}()
	defer in.Close()
	send := func(line []byte) bool {
		line = append(line, '\n')
		s.sent.Write(line)
		select {
		case queue <- line:
			return true
		default:
			return false // more answers than the queue holds: hang up
		}
	}
	used := make([]bool, len(s.lines))
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		msg, err := jsonrpc.DecodeMessage(sc.Bytes())
		if err != nil {
			continue
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue // notifications and answers to our own requests
		}
		id, _ := json.Marshal(req.ID.Raw())
		answer := []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32601,"message":"method not found"}}`)
		for j, line := range s.lines {
			if used[j] {
				continue
			}
			m := methodPrefix.FindSubmatch(line)
			if m == nil {
				used[j] = true
				if !send(line) {
					return
				}
				continue
			}
			if string(m[1]) == req.Method {
				used[j] = true
				answer = bytes.ReplaceAll(line[len(m[0]):], idPlaceholder, id)
				break
			}
		}
		if !send(answer) {
			return
		}
	}
}

// fuzzSeeds are honest and hostile transcripts, one line per message:
// handshake, each list's pages, prompts/get, the warm-up tools/call, the
// barrier ping, re-lists.
var fuzzSeeds = []string{
	// Legacy server: discover refused, two tool pages, a prompt, a
	// list_changed after the call.
	`server/discover {"jsonrpc":"2.0","id":"$id","error":{"code":-32601,"message":"method not found"}}
initialize {"jsonrpc":"2.0","id":"$id","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{}},"serverInfo":{"name":"s","version":"1"},"instructions":"Use the tools."}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":"a","description":"first","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[ {"name" : "b",  "inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}} ]}}
prompts/list {"jsonrpc":"2.0","id":"$id","result":{"prompts":[{"name":"p","arguments":[{"name":"x","required":true}]}]}}
prompts/get {"jsonrpc":"2.0","id":"$id","result":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}}
{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
tools/call {"jsonrpc":"2.0","id":"$id","result":{"content":[],"isError":true}}
ping {"jsonrpc":"2.0","id":"$id","result":{}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":"a","description":"changed"}]}}
prompts/list {"jsonrpc":"2.0","id":"$id","result":{"prompts":[]}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":"a","description":"changed"}]}}
prompts/list {"jsonrpc":"2.0","id":"$id","result":{"prompts":[]}}`,
	// Stateless server answering server/discover.
	`server/discover {"jsonrpc":"2.0","id":"$id","result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"s","version":"2"}}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}
resources/list {"jsonrpc":"2.0","id":"$id","result":{"resources":[{"uri":"file:///a","name":"a"}]}}
resources/templates/list {"jsonrpc":"2.0","id":"$id","error":{"code":-32601,"message":"no templates"}}`,
	// Server requests and garbage before answers; a batch answer.
	`{"jsonrpc":"2.0","id":9,"method":"roots/list"}
not json at all
server/discover {"jsonrpc":"2.0","id":"$id","error":{"code":-32601,"message":"no"}}
{"jsonrpc":"2.0","id":10,"method":"sampling/createMessage","params":{}}
initialize [{"jsonrpc":"2.0","id":"$id","result":{"protocolVersion":"2024-11-05","capabilities":{"tools":null,"prompts":{}}}}]
prompts/list {"jsonrpc":"2.0","id":"$id","result":{"prompts":[{"name":"p"},{"name":"p"}],"nextCursor":null}}
prompts/get {"jsonrpc":"2.0","id":"$id","error":{"code":1,"message":"\u001b[2Jboom"}}`,
	// Cursor loop, keys of the wrong type, a non-object item.
	`server/discover {"jsonrpc":"2.0","id":"$id","error":{"code":-32601,"message":"no"}}
initialize {"jsonrpc":"2.0","id":"$id","result":{"protocolVersion":"2099-01-01","capabilities":{"tools":{}}}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":"a"}],"nextCursor":"c"}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":1},"x"],"nextCursor":"c"}}`,
	// Duplicate keys, lone surrogates and a huge number in definitions.
	`server/discover {"jsonrpc":"2.0","id":"$id","error":{"code":-32601,"message":"no"}}
initialize {"jsonrpc":"2.0","id":"$id","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}
tools/list {"jsonrpc":"2.0","id":"$id","result":{"tools":[{"name":"a","name":"b","d":"\ud800","n":1e400}]}}`,
}

// FuzzServerOutput plays an arbitrary transcript as a server's output to
// a full probe (handshake, paged lists, prompts/get, a warm-up call and the
// re-lists after it). Run must not panic, must stop within its deadline
// however the server misbehaves, and whatever it records must be the
// server's bytes exactly: each definition a byte-for-byte slice of what
// the server wrote, with a non-empty key.
func FuzzServerOutput(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		srv := &scriptedServer{lines: bytes.Split(script, []byte("\n"))}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		opts := Options{
			RequestTimeout: 200 * time.Millisecond,
			MaxPages:       3,
			MaxListChanged: 2,
			WarmupCalls:    1,
			Calls:          []Call{{Tool: "a"}},
		}
		done := make(chan *Result, 1)
		go func() { done <- Run(ctx, connected(srv.connect), opts) }()
		var res *Result
		select {
		case res = <-done:
		case <-time.After(8 * time.Second):
			// Under the fuzzing engine's own 10 s limit, which would
			// kill the worker without saying where it was stuck.
			buf := make([]byte, 1<<20)
			t.Fatalf("Run did not return 6 s after its 2 s deadline:\n%s", buf[:runtime.Stack(buf, true)])
		}
		if res.Err == nil && len(res.Observations) == 0 {
			t.Fatalf("no error and no observation")
		}
		sent := srv.sent.Bytes()
		for _, o := range res.Observations {
			for kind, defs := range o.Lists {
				for _, d := range defs {
					if d.Key == "" {
						t.Fatalf("%s %s listed with an empty key", o.Phase, kind)
					}
					if !bytes.Contains(sent, d.Raw) {
						t.Fatalf("%s %s %q: raw %q is not what the server sent", o.Phase, kind, d.Key, d.Raw)
					}
				}
			}
			for _, raw := range []json.RawMessage{o.ServerInfo, o.Capabilities, o.Instructions} {
				if len(raw) > 0 && !bytes.Contains(sent, raw) {
					t.Fatalf("%s: handshake field %q is not what the server sent", o.Phase, raw)
				}
			}
		}
		if res.Err != nil && strings.TrimSpace(res.Err.Error()) == "" {
			t.Fatalf("empty error")
		}
	})
}

// TestServerOutputSeeds runs the honest seed through the same harness and
// checks it is observed in full, so the fuzz target is known to reach the
// lists and not only fail early.
func TestServerOutputSeeds(t *testing.T) {
	srv := &scriptedServer{lines: bytes.Split([]byte(fuzzSeeds[0]), []byte("\n"))}
	res := Run(context.Background(), connected(srv.connect), Options{RequestTimeout: 2 * time.Second, WarmupCalls: 1, Calls: []Call{{Tool: "a"}}})
	if res.Err != nil {
		t.Fatalf("err = %v", res.Err)
	}
	var phases []string
	for _, o := range res.Observations {
		phases = append(phases, o.Phase+":"+strings.Join(toolNames(o), ","))
	}
	want := "launch-1/initial:a,b launch-1/after-list-changed-1:a launch-1/after-call-1:a"
	if got := strings.Join(phases, " "); got != want {
		t.Fatalf("phases = %s, want %s", got, want)
	}
	if raw := string(res.Observations[0].Lists[KindTool][1].Raw); raw != `{"name" : "b",  "inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}` {
		t.Fatalf("raw definition rewritten: %s", raw)
	}
}

// TestServerNeverReads: a stdio server that stops reading its stdin, with
// a prompt whose required argument has a 256 KiB name, makes the probe's
// prompts/get larger than the pipe; the write then blocks in the kernel
// where no context reaches it. The per-server deadline must still end the
// probe (by killing the server), and the server is held.
func TestServerNeverReads(t *testing.T) {
	launch := Stdio{Command: func(ctx context.Context, _ int) (*exec.Cmd, error) {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), neverReadsEnv+"=1")
		return c, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	done := make(chan *Result, 1)
	go func() { done <- Run(ctx, launch, Options{}) }()
	select {
	case res := <-done:
		if res.Err == nil {
			t.Fatalf("a server that stopped reading passed: %d observations", len(res.Observations))
		}
		t.Logf("held: %v", res.Err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run blocked writing to a server that stopped reading, past its 3 s deadline")
	}
}

// neverReadsEnv makes the test binary the server of TestServerNeverReads.
// It is checked in init, before TestMain, so it needs no fake scenario.
const neverReadsEnv = "PROBE_TEST_NEVER_READS"

func init() {
	if os.Getenv(neverReadsEnv) == "" {
		return
	}
	// A small buffer: the first request longer than it (the prompts/get)
	// is never read past its first 4 KiB.
	in := bufio.NewReaderSize(os.Stdin, 4096)
	for {
		data, err := in.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			testproc.BlockForever() // reads no more, until the probe kills it
		}
		if err != nil {
			os.Exit(0)
		}
		msg, err := jsonrpc.DecodeMessage(data)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !req.IsCall() {
			continue
		}
		var result any = map[string]any{}
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": LatestLegacy, "capabilities": map[string]any{"prompts": map[string]any{}}}
		case "prompts/list":
			result = map[string]any{"prompts": []any{map[string]any{"name": "p", "arguments": []any{map[string]any{"name": strings.Repeat("x", 256<<10), "required": true}}}}}
		}
		b, _ := json.Marshal(result)
		line, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: b})
		os.Stdout.Write(append(line, '\n'))
	}
}

// FuzzLineFilter: whatever a server writes, the filter passes on whole
// lines of it only (or, past the size limit, the raw rest of one line), and
// every line it skips is one no client reads as a message.
func FuzzLineFilter(f *testing.F) {
	f.Add([]byte("banner\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"event\":1}\n"))
	f.Add([]byte("{\n\"jsonrpc\": \"2.0\",\n\"id\": 1, \"result\": {\"a\": \"}\\\"{\"}\n}\nlog\n"))
	f.Add([]byte("{broken\n[1,2]\n\r\n\"x\"\n42"))
	f.Fuzz(func(t *testing.T, in []byte) {
		drops := &dropLog{}
		var skipped [][]byte
		drops.tap = func(_ string, line []byte) { skipped = append(skipped, bytes.Clone(line)) }
		out, err := io.ReadAll(newLineFilter(bytes.NewReader(in), 64, drops))
		if err != nil && !errors.Is(err, errLineTooLong) {
			t.Fatal(err)
		}
		if len(out) > len(in) {
			t.Fatalf("passed %d bytes of %d", len(out), len(in))
		}
		for _, l := range skipped {
			if isMessageLine(l) {
				t.Fatalf("skipped a possible message: %q", l)
			}
			if !bytes.Contains(in, l) {
				t.Fatalf("skipped %q, not in the input", l)
			}
		}
		if drops.n != len(skipped) {
			t.Fatalf("counted %d, tapped %d", drops.n, len(skipped))
		}
	})
}
