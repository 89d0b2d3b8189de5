//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

var netCaps []uintptr

// errNoAllowance: a network allowance is forwarded from a Linux network
// namespace; elsewhere strict has no network at all.
var errNoAllowance = errors.New("a network allowance needs Linux: strict on " + runtime.GOOS + " has no network at all")

func netSupported() error { return fmt.Errorf("sandbox: %w", errNoAllowance) }

func setupNet(*netPolicy) error { return errNoAllowance }

func netSockets() (parent, child *os.File, err error) { return nil, nil, errNoAllowance }

func (f *forwarder) receive(parent, child *os.File) {}
