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

func setNamespaces(*syscall.SysProcAttr) {}

func userNamespaceError(err error) error {
	return fmt.Errorf("sandbox: %w: %v", ErrNoUserNamespace, err)
}

func restrictSelf(p policy) error {
	if p.Landlock {
		return fmt.Errorf("%w: strict needs Linux", ErrNoLandlock)
	}
	return nil
}
