package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestIsMessageLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`  {"id":1,"result":{},"jsonrpc":"2.0"}` + "\r\n", true},
		{`[{"jsonrpc":"2.0","method":"x"}]`, true},
		{"", true},
		{"\r\n", true},
		// A client might read these as messages: the SDK decides.
		{`{"jsonrpc":"1.0","event":"x"}`, true},
		{`{"JSONRPC":"2.0","id":1,"result":{}}`, true},
		{`{"jsonrp\u0063":"2.0","id":1,"result":{}}`, true},
		{`{"j\u017fonrpc":"2.0","id":1,"result":{}}`, true}, // long s folds to s
		{`{"jsonrpc":"2.0", broken`, true},
		// No client reads these as messages: skipped.
		{"Starting server v1.0 ...", false},
		{"\x1b[32minfo\x1b[0m: telemetry", false},
		{`{"@timestamp":"2026-12-01T22:40:01Z","message":"telemetry"}`, false},
		{`{"event":"request","note":"rpc"}`, false},
		{`{"id":"span-1","event":"request"}`, false}, // an id alone answers nothing
		{`{broken telemetry`, true},                  // maybe a value spread over lines
		{`{"id":1,"result":{"tools":[]}}`, true},     // a lenient client's answer
		{`{"ID":1,"Error":{"code":1}}`, true},
		{`{"method":"notifications/tools/list_changed"}`, true},
		{`"just a string"`, false},
		{`42`, false},
	} {
		if got := isMessageLine([]byte(tc.line)); got != tc.want {
			t.Errorf("isMessageLine(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// TestLineFilter: skipped lines never reach the transport, messages reach
// it byte for byte, a last line without a newline is judged too, and a line
// longer than the limit goes through whole for the SDK to refuse.
func TestLineFilter(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("a", 100<<10) + `"}}` + "\n"
	pretty := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"result\": {\"a\": \"x}\\\"{\"\n}}\n"
	in := "banner line\n" + msg + `{"event":"t"}` + "\n\n" + pretty + msg + "tail without newline"
	var tapped []string
	var mu sync.Mutex
	drops := &dropLog{tap: func(phase string, line []byte) {
		mu.Lock()
		tapped = append(tapped, phase+":"+strings.TrimSpace(string(line)))
		mu.Unlock()
	}}
	drops.setPhase("launch-1/initial")
	out, err := io.ReadAll(newLineFilter(strings.NewReader(in), 1<<20, drops))
	if err != nil {
		t.Fatal(err)
	}
	if want := msg + "\n" + pretty + msg; string(out) != want {
		t.Errorf("passed %d bytes, want %d", len(out), len(want))
	}
	if len(tapped) != 3 || tapped[0] != "launch-1/initial:banner line" || tapped[2] != "launch-1/initial:tail without newline" {
		t.Errorf("tapped %q", tapped)
	}
	n := drops.note()
	for _, want := range []string{"3 line(s)", `"banner line"`, `"{\"event\":\"t\"}"`, "its own output"} {
		if !strings.Contains(n, want) {
			t.Errorf("note %q lacks %q", n, want)
		}
	}

	// A line over the limit ends the stream with the SDK's words, and
	// none of it is passed on: the SDK would only buffer it to refuse it.
	small := `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	long := small + `{"jsonrpc":"2.0","x":"` + strings.Repeat("b", 300<<10) + `"}` + "\nafter\n"
	out, err = io.ReadAll(newLineFilter(strings.NewReader(long), 100<<10, &dropLog{}))
	if !errors.Is(err, errLineTooLong) || !strings.Contains(err.Error(), "exceeded the configured maximum") || string(out) != small {
		t.Errorf("an over-long line: passed %d bytes, err %v", len(out), err)
	}
	// One at the limit goes through, joined from its chunks.
	atLimit := `{"jsonrpc":"2.0","x":"` + strings.Repeat("c", 100<<10-len(`{"jsonrpc":"2.0","x":""}`)) + `"}` + "\n"
	out, err = io.ReadAll(newLineFilter(strings.NewReader(atLimit+small), 100<<10, &dropLog{}))
	if err != nil || string(out) != atLimit+small {
		t.Errorf("a line at the limit: passed %d bytes of %d, err %v", len(out), len(atLimit+small), err)
	}
}

// TestQuoteLine: what a note quotes is escaped and cut.
func TestQuoteLine(t *testing.T) {
	got := quoteLine([]byte("\x1b[31mred\u202e\U000E0041"+strings.Repeat("é", 200)+"\r\n"), 40)
	if strings.ContainsAny(got, "\x1b\u202e\U000E0041") || !strings.HasSuffix(got, "...") || len(got) > 200 {
		t.Errorf("quoteLine = %q", got)
	}
}

// TestStdoutNoiseNoted: a server that writes telemetry to stdout is probed
// as a client reads it, and the note quotes its lines as its own output.
func TestStdoutNoiseNoted(t *testing.T) {
	launch, _ := fake(t, "stdout-noise")
	var mu sync.Mutex
	var stdout []string
	res := Run(context.Background(), launch, Options{WarmupCalls: 1, Calls: []Call{{Tool: "summarize"}}, Tap: func(phase, method, _ string, _ json.RawMessage, b []byte) {
		if method == "stdout" {
			mu.Lock()
			stdout = append(stdout, phase)
			mu.Unlock()
		}
	}})
	if res.Err != nil {
		t.Fatalf("held: %v", res.Err)
	}
	note := strings.Join(res.Notes, "\n")
	if !strings.Contains(note, "not JSON-RPC messages (its own output") || !strings.Contains(note, `starting telemetry exporter`) || strings.Contains(note, "\x1b") {
		t.Errorf("notes: %s", note)
	}
	mu.Lock()
	seen := len(stdout)
	mu.Unlock()
	if seen < 3 {
		t.Errorf("tap saw %d stdout lines", seen)
	}

	launch, _ = fake(t, "stdout-noise", "FAKE_VARIANT=jsonrpc-1")
	res = Run(context.Background(), launch, Options{})
	if res.Err == nil || !strings.Contains(res.Err.Error(), `the server's own stdout line`) || !strings.Contains(res.Err.Error(), `\"jsonrpc\":\"1.0\"`) {
		t.Errorf("err = %v", res.Err)
	}
}

// BenchmarkLineFilter: what the filter costs on a large tools/list answer
// (one 4 MiB line) and on a stream of small messages between telemetry.
func BenchmarkLineFilter(b *testing.B) {
	big := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"` + strings.Repeat("a", 4<<20) + `"}]}}` + "\n")
	var small bytes.Buffer
	for range 1000 {
		small.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"event":"request","durationMs":3}` + "\n")
	}
	for name, in := range map[string][]byte{"big": big, "small+noise": small.Bytes()} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := io.Copy(io.Discard, newLineFilter(bytes.NewReader(in), 16<<20, &dropLog{})); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDropLogClose: once close returns, no tap is under way and none
// starts, however the transport's goroutine goes on reading.
func TestDropLogClose(t *testing.T) {
	var tapped atomic.Int64
	started := make(chan struct{})
	d := &dropLog{tap: func(string, []byte) {
		time.Sleep(50 * time.Microsecond) // a tap takes a while (a canary scan)
		if tapped.Add(1) == 10 {
			close(started)
		}
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100000 {
			d.add([]byte("telemetry"))
		}
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no tap")
	}
	d.close()
	after := tapped.Load()
	<-done // the reader goes on reading, to the end of its bounded loop
	if n := tapped.Load(); n != after {
		t.Errorf("%d taps after close returned", n-after)
	}
	d.mu.Lock()
	counted := d.n
	d.mu.Unlock()
	if int64(counted) != after {
		t.Errorf("counted %d lines, tapped %d", counted, after)
	}
}
