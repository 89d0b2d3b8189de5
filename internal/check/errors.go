package check

import (
	"errors"
	"fmt"
)

// ErrUsage is wrapped by every error that says the run could not go as
// asked: bad options, an unreadable or invalid config, lock or policy, a
// base branch that cannot be read, a sandbox that cannot be applied. The
// command line exits 2 on it. The error's own text says which.
var ErrUsage = errors.New("usage")

// usageError is an error that is the caller's: its text is the cause
// alone, and errors.Is(err, ErrUsage) holds.
type usageError struct{ err error }

func (u *usageError) Error() string        { return u.err.Error() }
func (u *usageError) Unwrap() error        { return u.err }
func (u *usageError) Is(target error) bool { return target == ErrUsage }

// Usagef makes an error that wraps ErrUsage, formatted as fmt.Errorf
// formats it.
func Usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// AsUsage marks err as the caller's (nil stays nil).
func AsUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err}
}
