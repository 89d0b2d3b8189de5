package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// loadBase reads the base branch's lock for --base-lock FILE or --base REF
// (the pull request's base SHA in the Action). It runs before any server is
// probed, so a mistyped flag fails at once. Anything that keeps the
// comparison from running as asked (an unknown REF, an unreadable or
// invalid base lock) is an exit-2 error: a review that silently compared
// with nothing would pass a PR that approves everything. A nil lock with a
// nil error is first adoption.
func (s *Sources) loadBase(ctx context.Context, baseLock, baseRef string) (*lock.File, error) {
	if baseLock != "" && baseRef != "" {
		return nil, Usagef("--base and --base-lock both name the base lock: give one")
	}
	if baseLock != "" {
		f, _, err := lock.Read(s.Path(baseLock))
		if errors.Is(err, os.ErrNotExist) {
			return nil, Usagef("--base-lock %s does not exist (for a base branch without a lock, use --base REF)", baseLock)
		}
		if err != nil {
			return nil, AsUsage(fmt.Errorf("--base-lock: %w", err))
		}
		return f, nil
	}
	data, name, err := fileAtRef(ctx, s.WorkDir(), baseRef, s.Path(s.Lock), "lock")
	if err != nil {
		return nil, AsUsage(err)
	}
	if data == nil {
		s.warnf("%s does not exist: first adoption, everything in the lock is a new approval", name)
		return nil, nil
	}
	f, err := lock.Parse(name, data)
	if err != nil {
		return nil, AsUsage(fmt.Errorf("--base %s: %w", baseRef, err))
	}
	return f, nil
}

// loadBasePolicy reads the base branch's policy for --base-policy FILE or
// --base REF (at the path the pull request's policy is read from). ok is
// false when neither is given (--base-lock alone): the policy is then not
// reviewed. A nil policy with ok set is a base without a policy file.
func (s *Sources) loadBasePolicy(ctx context.Context, basePolicy, baseRef string) (p *policy.Policy, ok bool, err error) {
	if basePolicy == "" && baseRef == "" {
		return nil, false, nil
	}
	if basePolicy != "" {
		data, err := os.ReadFile(s.Path(basePolicy))
		if err != nil {
			return nil, false, Usagef("--base-policy: %v", err)
		}
		p, err := policy.Parse(basePolicy, data)
		if err != nil {
			return nil, false, AsUsage(fmt.Errorf("--base-policy: %w", err))
		}
		return p, true, nil
	}
	data, name, err := fileAtRef(ctx, s.WorkDir(), baseRef, s.Path(s.PolicyName()), "policy")
	if err != nil {
		return nil, false, AsUsage(err)
	}
	if data == nil {
		return nil, true, nil
	}
	p, err = policy.Parse(name, data)
	if err != nil {
		return nil, false, AsUsage(fmt.Errorf("--base %s: %w", baseRef, err))
	}
	return p, true, nil
}

// fileAtRef reads the file at path (the lock or the policy: what) as it
// is in commit ref of the git repository holding dir. It returns the bytes
// (nil when the commit has no file there: first adoption) and the name
// errors and messages use ("REF:path/in/repo"). An unknown ref, a
// directory outside any repository or a path outside the repository is an
// error.
func fileAtRef(ctx context.Context, dir, ref, lockPath, what string) ([]byte, string, error) {
	// A ref starting with "-" would be read by git as an option.
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return nil, "", fmt.Errorf("--base %q: not a git revision", ref)
	}
	commit, err := gitOutput(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		if _, e := gitOutput(ctx, dir, "rev-parse", "--git-dir"); e != nil {
			return nil, "", fmt.Errorf("--base %s: %s is not in a git repository: %w", ref, dir, e)
		}
		return nil, "", fmt.Errorf("--base %s: no such commit in the repository at %s (in a shallow clone, fetch the base first)", ref, dir)
	}
	commit = strings.TrimSpace(commit)
	prefix, err := gitOutput(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, "", fmt.Errorf("--base %s: %w", ref, err)
	}
	rel, err := filepath.Rel(dir, lockPath)
	if err != nil {
		return nil, "", fmt.Errorf("--base %s: %w", ref, err)
	}
	p := path.Clean(strings.TrimSpace(prefix) + filepath.ToSlash(rel))
	name := ref + ":" + p
	if p == ".." || strings.HasPrefix(p, "../") {
		return nil, "", fmt.Errorf("--base %s: the %s %s is outside the git repository at %s", ref, what, lockPath, dir)
	}
	// --literal-pathspecs: a lock named "*.json" is that file, not a glob.
	out, err := gitOutput(ctx, dir, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", p)
	if err != nil {
		return nil, "", fmt.Errorf("--base %s: %w", ref, err)
	}
	if out == "" {
		return nil, name, nil
	}
	// "<mode> SP <type> SP <object> TAB <path> NUL"
	meta, _, _ := strings.Cut(out, "\t")
	fields := strings.Fields(meta)
	if len(fields) != 3 || fields[1] != "blob" || fields[0] == "120000" {
		return nil, "", fmt.Errorf("--base %s: %s is not a regular file in that commit", ref, name)
	}
	data, err := gitOutput(ctx, dir, "cat-file", "blob", fields[2])
	if err != nil {
		return nil, "", fmt.Errorf("--base %s: reading %s: %w", ref, name, err)
	}
	return []byte(data), name, nil
}

// gitOutput runs git in dir and returns its stdout; an error carries git's
// stderr, which names what went wrong better than an exit status.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.String(), nil
}
