//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"syscall"
)

func landlockABI() int { return 0 }

// strictSupported: Strict is Landlock plus Linux namespaces.
func strictSupported() error {
	return fmt.Errorf("sandbox: %w: strict needs Linux (Landlock and namespaces) or macOS (Seatbelt); use --sandbox basic", ErrNoLandlock)
}

func setNamespaces(*syscall.SysProcAttr, *policy) {}

// writeIDMaps: no user namespaces here.
func writeIDMaps(*idMap) error { return nil }

func strictCause(startErr error, helperMsg string) error {
	if startErr != nil {
		return fmt.Errorf("sandbox: %w: %v", ErrNoUserNamespace, startErr)
	}
	return fmt.Errorf("sandbox: %w: %s", ErrNoLandlock, helperMsg)
}

func restrictSelf(p policy) error {
	if p.Landlock {
		return fmt.Errorf("%w: strict needs Linux", ErrNoLandlock)
	}
	return nil
}
