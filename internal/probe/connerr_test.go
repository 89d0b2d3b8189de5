package probe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
)

// TestPlainConnErr: a server that exits at once is seen by our read or by
// our write first, depending on scheduling; both must say the same thing,
// and never Go's own pipe text.
func TestPlainConnErr(t *testing.T) {
	for _, err := range []error{
		nil,
		io.EOF,
		&os.PathError{Op: "read", Path: "|0", Err: os.ErrClosed},
		&os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE},
		fmt.Errorf("writing: %w", io.ErrClosedPipe),
		io.ErrUnexpectedEOF,
	} {
		if got := plainConnErr(err); got != io.EOF {
			t.Errorf("plainConnErr(%v) = %v, want EOF", err, got)
		}
	}
	other := errors.New("invalid message version tag")
	if got := plainConnErr(other); got != other {
		t.Errorf("plainConnErr(%v) = %v, want it unchanged", other, got)
	}
}
