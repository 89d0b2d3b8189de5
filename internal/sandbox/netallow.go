package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Dest is one destination a strict server may reach: a host and a TCP
// port. The host is an exact name (lower case, no trailing dot), an IP
// literal, or, with Wild, any name exactly one label below Host
// ("*.example.com" matches "api.example.com", not "example.com" and not
// "a.b.example.com").
type Dest struct {
	Host string
	Port uint16
	Wild bool
}

// String is the destination as a policy file writes it, and as the lock
// records it: "api.example.com:443", "*.example.com:443",
// "127.0.0.1:5432", "[::1]:5432".
func (d Dest) String() string {
	h := d.Host
	if d.Wild {
		h = "*." + h
	}
	return net.JoinHostPort(h, strconv.Itoa(int(d.Port)))
}

// IP is the destination's host as an IP literal, if it is one.
func (d Dest) IP() (netip.Addr, bool) {
	if d.Wild {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(d.Host)
	return a, err == nil
}

// Matches reports whether a connection to host:port is this destination.
// host is a name as a resolver is asked for it (any case, a trailing dot
// allowed) or an IP literal.
func (d Dest) Matches(host string, port uint16) bool {
	if port != d.Port {
		return false
	}
	h := normalHost(host)
	if !d.Wild {
		return h == d.Host
	}
	label, ok := strings.CutSuffix(h, "."+d.Host)
	return ok && label != "" && !strings.Contains(label, ".")
}

// DNSPort is the port the sandbox answers name lookups on itself: a
// destination may not name it.
const DNSPort = 53

// MaxDests bounds an allowance: a list of hundreds of destinations is not
// a reviewed allowance.
const MaxDests = 64

// ParseDest reads one destination as written: HOST:PORT, with HOST an
// exact name, "*." and a name of at least two labels, an IPv4 literal or
// a bracketed IPv6 literal. The errors say what is wrong in words a policy
// file's author can act on.
func ParseDest(s string) (Dest, error) {
	host, port, err := net.SplitHostPort(strings.TrimSpace(s))
	if err != nil {
		if !strings.Contains(s, ":") {
			return Dest{}, fmt.Errorf("%q has no port: write HOST:PORT (api.example.com:443)", s)
		}
		return Dest{}, fmt.Errorf("%q is not HOST:PORT (an IPv6 address goes in brackets: [::1]:5432)", s)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 || strings.HasPrefix(port, "+") {
		return Dest{}, fmt.Errorf("%q: port %q is not a number from 1 to 65535", s, port)
	}
	if p == DNSPort {
		return Dest{}, fmt.Errorf("%q: port 53 is name lookups, which the sandbox answers itself (an allowed name resolves inside it)", s)
	}
	d := Dest{Port: uint16(p)}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return Dest{}, fmt.Errorf("%q: an address with a zone (%%%s) is not a destination", s, a.Zone())
		}
		a = a.Unmap()
		if a.IsUnspecified() || a.IsMulticast() {
			return Dest{}, fmt.Errorf("%q: %s is not one host", s, a)
		}
		d.Host = a.String()
		return d, nil
	}
	if strings.Contains(host, ":") {
		return Dest{}, fmt.Errorf("%q: %q is neither a name nor an IP address", s, host)
	}
	name := normalHost(host)
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		d.Wild, name = true, rest
		if strings.Count(name, ".") < 1 {
			return Dest{}, fmt.Errorf("%q: a wildcard covers one label under a name of at least two (*.example.com), not under %q", s, name)
		}
	}
	if err := checkName(name); err != nil {
		return Dest{}, fmt.Errorf("%q: %v", s, err)
	}
	if _, err := netip.ParseAddr(name); err == nil && d.Wild {
		return Dest{}, fmt.Errorf("%q: a wildcard goes before a name, not an address", s)
	}
	d.Host = name
	return d, nil
}

func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// checkName accepts a DNS name: labels of letters, digits, hyphens and
// underscores, 1 to 63 bytes each, 253 in all, no label starting or
// ending with a hyphen. A "*" anywhere else than the leading label, or
// an all-digit top label (a mistyped address), is refused.
func checkName(name string) error {
	if name == "" {
		return errors.New("the host is empty")
	}
	if len(name) > 253 {
		return errors.New("the name is longer than 253 bytes")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" {
			return fmt.Errorf("%q has an empty label", name)
		}
		if len(l) > 63 {
			return fmt.Errorf("%q has a label longer than 63 bytes", name)
		}
		if strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return fmt.Errorf("%q has a label that starts or ends with a hyphen", name)
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				if c == '*' {
					return fmt.Errorf("%q: a wildcard is only \"*.\" at the start", name)
				}
				return fmt.Errorf("%q: %q is not a letter, digit, hyphen or underscore", name, c)
			}
		}
	}
	if top := labels[len(labels)-1]; strings.Trim(top, "0123456789") == "" {
		return fmt.Errorf("%q is not a name (an all-digit last label) nor an IP address", name)
	}
	return nil
}

// Allowance is a server's network allowance under strict: the
// destinations it may reach, sorted and without duplicates (ParseDests,
// NormalAllowance). Empty: no network at all.
type Allowance []Dest

// ParseDests reads a list of destinations and returns them as an
// Allowance. The error names the first bad one.
func ParseDests(list []string) (Allowance, error) {
	var out Allowance
	for _, s := range list {
		d, err := ParseDest(s)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	out = NormalAllowance(out)
	if len(out) > MaxDests {
		return nil, fmt.Errorf("%d destinations: an allowance may name at most %d", len(out), MaxDests)
	}
	return out, nil
}

// NormalAllowance sorts a and drops duplicates, in place.
func NormalAllowance(a Allowance) Allowance {
	slices.SortFunc(a, func(x, y Dest) int {
		if c := strings.Compare(x.String(), y.String()); c != 0 {
			return c
		}
		return 0
	})
	return slices.Compact(a)
}

// Strings is the allowance as the lock and the policy write it.
func (a Allowance) Strings() []string {
	if len(a) == 0 {
		return nil
	}
	out := make([]string, len(a))
	for i, d := range a {
		out[i] = d.String()
	}
	return out
}

// Allows reports whether host:port is allowed.
func (a Allowance) Allows(host string, port uint16) bool {
	return slices.ContainsFunc(a, func(d Dest) bool { return d.Matches(host, port) })
}

// AllowsName reports whether a name may resolve: some destination, on
// any port, is that name.
func (a Allowance) AllowsName(host string) bool {
	return slices.ContainsFunc(a, func(d Dest) bool {
		_, isIP := d.IP()
		return !isIP && d.Matches(host, d.Port)
	})
}

// Covers reports whether every connection d allows, a allows too: d is
// in a, or under one of its wildcards.
func (a Allowance) Covers(d Dest) bool {
	if slices.Contains(a, d) {
		return true
	}
	return !d.Wild && a.Allows(d.Host, d.Port)
}

// Ports are the distinct ports of the allowance, ascending.
func (a Allowance) Ports() []uint16 {
	var out []uint16
	for _, d := range a {
		out = append(out, d.Port)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Refusal is one destination a strict server tried and was refused: a
// name it looked up (Port 0), or a host and port it connected to.
type Refusal struct {
	Host   string
	Port   uint16
	Reason string
}

func (r Refusal) String() string {
	if r.Port == 0 {
		return r.Host + " (" + r.Reason + ")"
	}
	return net.JoinHostPort(r.Host, strconv.Itoa(int(r.Port))) + " (" + r.Reason + ")"
}
