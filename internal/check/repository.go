package check

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// uncheckedConfigs reports each file of the repository that holds an MCP
// server map this run did not read (unchecked-config): a client that is
// not discovered, or a config path passed by nobody. With --server (one
// job of a matrix built by `servers --matrix` from discovery) the
// discovered files are another job's to read: only files discovery does
// not know are reported then. Outside a git work tree nothing is listed
// and nothing reported; a warning says so.
func (s *Sources) uncheckedConfigs(ctx context.Context, all bool) ([]finding.Finding, error) {
	dir := s.WorkDir()
	var holders []config.Holder
	for _, root := range scanRoots(dir, s.Configs) {
		hs, inRepo, err := config.Holders(ctx, root)
		if err != nil {
			return nil, Usagef("unchecked configs: %v", err)
		}
		if !inRepo {
			s.warnf("%s is not in a git work tree: files holding MCP servers that this run does not read are not looked for", root)
			continue
		}
		for _, h := range hs {
			if rel, err := filepath.Rel(dir, filepath.Join(root, filepath.FromSlash(h.File))); err == nil {
				h.File = filepath.ToSlash(rel)
			}
			holders = append(holders, h)
		}
	}
	read := map[string]bool{}
	for _, p := range s.readPaths {
		read[abs(dir, p)] = true
	}
	lockAbs := abs(dir, s.Lock)
	var out []finding.Finding
	for _, h := range holders {
		p := abs(dir, filepath.FromSlash(h.File))
		if read[p] || p == lockAbs || (!all && config.Discoverable(h.File)) {
			continue
		}
		f := finding.New(finding.UncheckedConfig, "")
		f.Subject, f.File, f.Line = h.File, h.File, h.Line
		what := fmt.Sprintf("%s holds MCP servers", h.File)
		if len(h.Servers) > 0 {
			what = fmt.Sprintf("%s holds MCP servers (%s: %s)", h.File, h.Key, quoteAll(h.Servers))
		}
		f.Message = what + " that this run did not read: whoever uses that client runs them unreviewed; pass the file with --config (and pin its servers) or remove it"
		out = append(out, f)
	}
	return out, nil
}

// scanRoots are the trees a run is about: the working directory when the
// configs are discovered there, else the projects of the configs named
// with --config (a config in examples/demo speaks for examples/demo, not
// for the whole repository it sits in). A config at the repository's top,
// as a workflow names it, still covers the whole repository.
func scanRoots(dir string, configs []string) []string {
	if len(configs) == 0 {
		return []string{dir}
	}
	var cands []string
	for _, p := range configs {
		cands = append(cands, config.ProjectRoot(abs(dir, p)))
	}
	// Shortest first, so a tree inside another is dropped, not scanned twice.
	slices.SortFunc(cands, func(a, b string) int { return len(a) - len(b) })
	var roots []string
	for _, r := range cands {
		covered := false
		for _, have := range roots {
			if rel, err := filepath.Rel(have, r); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				covered = true
			}
		}
		if !covered {
			roots = append(roots, r)
		}
	}
	return roots
}

func abs(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
