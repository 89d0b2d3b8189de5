package redact

import (
	"sort"
	"strings"
)

// PathSub is one path a server can see that differs from launch to launch
// or from machine to machine (its working directory, HOME, TMPDIR), and the
// stable placeholder that stands for it ("${PWD}", "${HOME}").
type PathSub struct {
	Path        string
	Placeholder string
}

// WithPaths returns a Redactor that also puts placeholders in place of the
// given paths, before it looks for secrets. The sandbox gives every run a
// random directory (/tmp/tmp.<random>/home/user/project); a server that
// shows its working directory or HOME in a description would otherwise be
// pinned with one run's path and drift on the next run, on another
// checkout path, and under guard. Paths that are empty, relative or the
// root are left out (they would match ordinary text). A path is replaced
// only where it stands as a whole path: not inside a longer name
// (/home/user2 for /home/user), not after another path segment
// (/x/tmp for /tmp), but inside a file:// URI and before "/", "\",
// punctuation or the end.
func (r *Redactor) WithPaths(subs []PathSub) *Redactor {
	var keep []PathSub
	seen := map[string]bool{}
	for _, s := range subs {
		p := strings.TrimRight(s.Path, `/\`)
		if !absolute(p) || seen[p] || s.Placeholder == "" {
			continue
		}
		seen[p] = true
		keep = append(keep, PathSub{Path: p, Placeholder: s.Placeholder})
	}
	// Longest first: the working directory inside HOME is the working
	// directory, not HOME and a tail.
	// Of two equal paths the first given wins (seen above).
	sort.SliceStable(keep, func(i, j int) bool { return len(keep[i].Path) > len(keep[j].Path) })
	out := &Redactor{}
	if r != nil {
		*out = *r
	}
	out.paths = keep
	return out
}

// absolute reports whether p is an absolute path other than a root: "/x",
// "C:\x", `\\host\share`.
func absolute(p string) bool {
	switch {
	case len(p) >= 2 && p[0] == '/':
		return true
	case len(p) >= 4 && (p[1] == ':' && (p[2] == '\\' || p[2] == '/')):
		return true
	case len(p) >= 3 && strings.HasPrefix(p, `\\`):
		return true
	}
	return false
}

// placePaths replaces each path of r in s with its placeholder.
func (r *Redactor) placePaths(s string) string {
	for _, sub := range r.paths {
		if !strings.Contains(s, sub.Path) {
			continue
		}
		var b strings.Builder
		last := 0
		for i := 0; i <= len(s)-len(sub.Path); {
			k := strings.Index(s[i:], sub.Path)
			if k < 0 {
				break
			}
			a, z := i+k, i+k+len(sub.Path)
			if pathStart(s, a) && pathEnd(s, z) {
				b.WriteString(s[last:a])
				b.WriteString(sub.Placeholder)
				last = z
				i = z
				continue
			}
			i = a + 1
		}
		if last > 0 {
			b.WriteString(s[last:])
			s = b.String()
		}
	}
	return s
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '~' || c == '+' || c == '@' || c >= 0x80
}

// pathStart: s[a:] starts a whole path, not the tail of a longer one.
func pathStart(s string, a int) bool {
	if a == 0 {
		return true
	}
	c := s[a-1]
	if c == '/' || c == '\\' {
		return strings.HasSuffix(s[:a], "://") // file:///home/user
	}
	return !nameByte(c) && c != '.'
}

// pathEnd: the path ends at s[z], or goes on with a separator.
func pathEnd(s string, z int) bool {
	if z == len(s) {
		return true
	}
	c := s[z]
	if c == '/' || c == '\\' {
		return true
	}
	if c == '.' {
		// A sentence's full stop ends the path; ".x" goes on with a name.
		return z+1 == len(s) || !nameByte(s[z+1])
	}
	return !nameByte(c)
}
