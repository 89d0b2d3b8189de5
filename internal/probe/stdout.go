package probe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
)

// Servers write things to stdout that are not JSON-RPC: a banner, a log
// line, telemetry (Elastic's server). The MCP stdio transport says a
// server MUST NOT, but mainstream clients carry on: the TypeScript SDK's
// ReadBuffer takes one line at a time, and a line that does not parse as a
// JSON-RPC message is reported to onerror and skipped; the Python SDK's
// stdio client sends the parse error into the session's stream and reads
// on. (The Go SDK's IOTransport decodes the stream as one JSON sequence and
// stops at the first value that is not a message.) The probe does what
// Claude Code, Claude Desktop, Cursor and VS Code do: it skips such lines,
// and a note quotes them as the server's own output.
//
// Skipped is only a line no client reads as a message: one that is not
// JSON, or a JSON object with no top-level member that even folds to
// "jsonrpc", "method", "result" or "error". A line that might be a message
// to some client ("jsonrpc" beside a wrong version, a member spelled
// "JSONRPC" the Go SDK's case-insensitive decoding accepts, an answer with
// no "jsonrpc" a lenient client takes, a batch array) goes to the SDK as
// before: if it cannot read it, the server is held, with the line quoted.

// lineFilter sits between a server's stdout and the SDK's transport and
// drops the lines that are not JSON-RPC messages.
type lineFilter struct {
	r   *bufio.Reader
	max int // a line longer than this ends the stream (errLineTooLong)
	out []byte
	err error
	// depth and inStr track the JSON value passed on so far: depth is
	// above 0 while a value that started on an earlier line is open.
	depth int
	inStr bool
	drops *dropLog

	mu      sync.Mutex
	suspect []byte // the start of the first line passed on that is not plainly a message
	tooLong bool   // the stream ended at a line over max
}

func newLineFilter(r io.Reader, max int, drops *dropLog) *lineFilter {
	return &lineFilter{r: bufio.NewReaderSize(r, 64<<10), max: max, drops: drops}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.fill()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// errLineTooLong ends a server's stdout at a line longer than the
// largest message the probe reads (Options.MaxMessageBytes). The SDK's
// transport would refuse the message all the same, but only once it had
// buffered it again: the line is dropped as soon as it is too long, so a
// server that answers with 48 MB costs the checker the limit once, not
// several times over.
var errLineTooLong = errors.New("inbound JSON-RPC frame exceeded the configured maximum line length")

// fill reads one line into out, or ends the stream (err) at a line longer
// than max. A long line is read in the bufio.Reader's chunks, copied once
// each, and joined once at its end: growing one slice by appending would
// copy it again at every doubling and leave the old copies to the
// collector, up to three times the line at once.
func (f *lineFilter) fill() {
	chunk, err := f.r.ReadSlice('\n')
	var line []byte
	if errors.Is(err, bufio.ErrBufferFull) {
		parts := [][]byte{bytes.Clone(chunk)}
		n := len(chunk)
		for errors.Is(err, bufio.ErrBufferFull) {
			if n > f.max+len("\r\n") {
				f.stopLong()
				return
			}
			chunk, err = f.r.ReadSlice('\n')
			parts = append(parts, bytes.Clone(chunk))
			n += len(chunk)
		}
		if n > f.max+len("\r\n") {
			// (A line the SDK may still take, its line end aside, is
			// left to it.)
			f.stopLong()
			return
		}
		line = make([]byte, 0, n)
		for _, p := range parts {
			line = append(line, p...)
		}
	} else {
		if len(chunk) > f.max+len("\r\n") {
			f.stopLong()
			return
		}
		line = bytes.Clone(chunk)
	}
	if err != nil {
		f.err = err
	}
	if len(line) == 0 {
		return
	}
	if f.depth > 0 || isMessageLine(line) {
		// A value spread over several lines (pretty-printed JSON, a
		// string with a raw newline) goes through whole, as the SDK's
		// stream decoder reads it: the lines after the first are not
		// judged on their own.
		if f.depth == 0 && len(bytes.TrimSpace(line)) > 0 && !bytes.Contains(line, []byte(`"jsonrpc":"2.0"`)) {
			// Passed on, but not plainly a message: if the SDK
			// cannot read what it gets, this line is the likely
			// cause (the transport reads ahead, so the line it
			// failed on is not the last one passed).
			f.mu.Lock()
			if f.suspect == nil {
				f.suspect = bytes.Clone(line[:min(len(line), 512)])
			}
			f.mu.Unlock()
		}
		f.track(line)
		f.out = line
		return
	}
	f.drops.add(line)
}

// stopLong ends the stream at a line over max.
func (f *lineFilter) stopLong() {
	f.err = fmt.Errorf("%w (%d bytes)", errLineTooLong, f.max)
	f.mu.Lock()
	f.tooLong = true
	f.mu.Unlock()
}

// stoppedLong reports whether the stream ended at a line over max: the
// tail of stdout is then the end of that line, no reason to quote.
func (f *lineFilter) stoppedLong() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tooLong
}

// track follows the nesting of the JSON passed on, so that the lines of a
// value spread over several lines all go through. It jumps from one
// structural byte to the next (a large tools/list answer is mostly string
// contents): inside a string only to the next quote, counting the
// backslashes before it.
func (f *lineFilter) track(line []byte) {
	i := 0
	for i < len(line) {
		if f.inStr {
			j := bytes.IndexByte(line[i:], '"')
			if j < 0 {
				return
			}
			q := i + j
			bs := 0
			for k := q - 1; k >= i && line[k] == '\\'; k-- {
				bs++
			}
			i = q + 1
			if bs%2 == 0 {
				f.inStr = false
			}
			continue
		}
		j := bytes.IndexAny(line[i:], `"{}[]`)
		if j < 0 {
			break
		}
		c := line[i+j]
		i += j + 1
		switch c {
		case '"':
			f.inStr = true
		case '{', '[':
			f.depth++
		case '}', ']':
			if f.depth > 0 {
				f.depth--
			}
		}
	}
	if f.depth == 0 {
		// A string never spans lines in JSON: a quote left open at the
		// end of a value is the value's own problem (the SDK's).
		f.inStr = false
	}
}

// suspectLine is the start of the first line passed to the SDK that was
// not plainly a JSON-RPC message ("" if none): what to quote when the
// SDK's read fails.
func (f *lineFilter) suspectLine() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.TrimSpace(string(f.suspect))
}

// isMessageLine is transport.IsMessageLine: the lines a client reads.
func isMessageLine(line []byte) bool { return transport.IsMessageLine(line) }

// dropLog counts the lines skipped across a probe's launches and keeps the
// first few for the note. tap, when set, sees every skipped line (canary
// detection: the server's stdout is its output too).
type dropLog struct {
	mu    sync.Mutex
	n     int
	first []string
	tap   func(phase string, line []byte)
	phase string // the probe's phase, for tap
	// closed is set by close: a line read after it is neither counted
	// nor tapped. taps counts the taps under way.
	closed bool
	taps   sync.WaitGroup
}

// setPhase tells the log the probe's current phase: lines are read on the
// transport's goroutine, which cannot read the probe's own.
func (d *dropLog) setPhase(p string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.phase = p
	d.mu.Unlock()
}

const keptDrops = 3

func (d *dropLog) add(line []byte) {
	if d == nil {
		return
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.n++
	if len(d.first) < keptDrops {
		d.first = append(d.first, quoteLine(line, 160))
	}
	tap, phase := d.tap, d.phase
	d.taps.Add(1)
	d.mu.Unlock()
	defer d.taps.Done()
	if tap != nil {
		tap(phase, line)
	}
}

// close ends the log when the probe is over, and returns once no tap is
// under way. A server's stdout is read on the transport's goroutine, which
// goes on reading after a launch is stopped, until the pipe ends or the
// next message: without close, a line the server wrote as it was killed
// could reach tap after the probe returned, and after its caller had
// collected what tap saw (a canary leaked on stdout).
func (d *dropLog) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.taps.Wait()
}

// note is the probe note about the skipped lines ("" if none).
func (d *dropLog) note() string {
	if d == nil {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		return ""
	}
	more := ""
	if d.n > len(d.first) {
		more = fmt.Sprintf(", and %d more", d.n-len(d.first))
	}
	return fmt.Sprintf("the server wrote %d line(s) to stdout that are not JSON-RPC messages (its own output: a log, a banner, telemetry): %s%s. Clients skip such lines (the MCP TypeScript and Python SDKs do), and so did the probe; what the model sees was checked", d.n, strings.Join(d.first, ", "), more)
}

// quoteLine quotes a line the server wrote, escaped (Go syntax, ASCII
// only: no control or invisible character survives) and cut to max bytes
// of the original at a rune boundary.
func quoteLine(line []byte, max int) string {
	s := strings.TrimRight(string(line), "\r\n")
	cut := ""
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], "..."
	}
	return fmt.Sprintf("%+q", s) + cut
}
