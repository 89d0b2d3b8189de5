package guard

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// errLineTooLong is a line over the size limit.
var errLineTooLong = errors.New("line too long")

// lineReader reads newline-terminated lines of bounded length. A line is
// returned with its newline, byte for byte; it is valid until the next call.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// hasLine reports whether a whole line is already read behind the one next
// returned: what is buffered holds a newline.
func (l *lineReader) hasLine() bool {
	n := l.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := l.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

func (l *lineReader) next() ([]byte, error) {
	if cap(l.buf) > 1<<20 {
		l.buf = nil // do not keep one big message's buffer for the session
	}
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(frag) > l.max+2 { // +2: the line's own "\r\n"
			l.buf = l.buf[:0]
			// Skip the rest of the line.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = l.r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			if len(l.buf) == 0 {
				return frag, nil
			}
			l.buf = append(l.buf, frag...)
			return l.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, frag...)
		default:
			l.buf = append(l.buf, frag...)
			return l.buf, err
		}
	}
}

// excerpt shows the start of untrusted bytes, escaped, for a log line.
func excerpt(b []byte) string {
	const n = 80
	s := string(b)
	if len(s) > n {
		s = s[:n] + "..."
	}
	return escape(s)
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
