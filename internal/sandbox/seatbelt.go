package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// seatbeltSystemRO are the macOS paths every process needs to start (the
// dynamic linker's shared cache, frameworks, the CA bundle, time zones),
// read-only. They hold no user data. Apple keeps /etc and /var under
// /private; the profile names the real paths, since Seatbelt matches after
// symlinks are resolved.
var seatbeltSystemRO = []string{
	"/System", "/usr", "/bin", "/sbin", "/Library/Apple",
	"/Library/Preferences/Logging", "/private/etc/ssl", "/private/etc/hosts",
	"/private/etc/passwd", "/private/etc/group", "/private/etc/services",
	"/private/etc/protocols", "/private/etc/resolv.conf", "/private/etc/localtime",
	"/private/var/db/timezone", "/private/var/db/dyld", "/dev/random", "/dev/urandom",
	"/dev/null", "/dev/zero", "/dev/fd",
}

// seatbeltProfile is the Seatbelt (SBPL) profile of Strict on macOS,
// applied with `sandbox-exec -p`: deny by default, so no network of any
// kind (not even loopback or a Unix socket), no IPC lookups but the few the
// C library needs; reads and execution limited to the system paths above,
// ro and rw; writes to rw only (and /dev/null). Paths are made absolute and
// cleaned; one that cannot be written as an SBPL string (a control
// character, not valid UTF-8) is an error: the server is held rather than
// run under a profile that means something else.
func seatbeltProfile(ro, rw []string) (string, error) {
	var b strings.Builder
	b.WriteString(`(version 1)
(deny default)
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.notification_center") (global-name "com.apple.system.logger"))
(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))
(allow file-write-data (literal "/dev/null") (literal "/dev/zero"))
(allow file-ioctl (literal "/dev/null"))
`)
	readable := append(slices.Clone(seatbeltSystemRO), ro...)
	rules := []struct {
		ops   string
		paths []string
	}{
		{"file-read* process-exec", readable},
		{"file-read* file-write* process-exec", rw},
	}
	// Resolving a path reads the metadata of every directory above it
	// (realpath, node's module lookup): metadata only, not contents.
	var parents []string
	for _, r := range rules {
		for _, p := range r.paths {
			for d := filepath.Dir(filepath.Clean(p)); d != "/" && d != "." && d != ""; d = filepath.Dir(d) {
				parents = append(parents, d)
			}
		}
	}
	parents = append(parents, "/")
	lines := []struct {
		ops, kind string
		paths     []string
	}{
		{"file-read-metadata", "literal", parents},
		{rules[0].ops, "subpath", rules[0].paths},
		{rules[1].ops, "subpath", rules[1].paths},
	}
	for _, l := range lines {
		paths, err := sbplPaths(l.paths)
		if err != nil {
			return "", err
		}
		if len(paths) == 0 {
			continue
		}
		fmt.Fprintf(&b, "(allow %s", l.ops)
		for _, p := range paths {
			fmt.Fprintf(&b, "\n  (%s %s)", l.kind, p)
		}
		b.WriteString(")\n")
	}
	return b.String(), nil
}

// sbplPaths cleans, dedupes, sorts and quotes paths.
func sbplPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox: seatbelt path %q is not absolute", p)
		}
		q, err := sbplString(filepath.Clean(p))
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// sbplString writes s as an SBPL (Scheme) string literal: in double
// quotes, with backslash and double quote escaped, so nothing in a path
// can end the string and start an expression. Control characters and
// invalid UTF-8 are refused rather than escaped: no escape of them is
// needed by a real path, and a refusal cannot be misread.
func sbplString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("sandbox: seatbelt path %q is not valid UTF-8", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			return "", fmt.Errorf("sandbox: seatbelt path %q holds a control character", s)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}
