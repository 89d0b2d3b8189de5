package launchid

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// DefaultPyIndex is the simple index uvx and pipx install from when
// nothing names another.
const DefaultPyIndex = "https://pypi.org/simple/"

// PyRelease is what a Python package index resolves a uvx / pipx run
// spec to today: the version a fresh install runs, and the one
// distribution file of it that the identity is of.
type PyRelease struct {
	Version string
	// File is the distribution's file name; SHA256 its hex sha256 as the
	// index gives it (uv and pip refuse a download that does not match).
	File   string
	SHA256 string
	// Page is the index page the release was read from.
	Page string
}

// Integrity is the lock's form of the identity: "sha256:" and the hex.
func (r PyRelease) Integrity() string { return "sha256:" + r.SHA256 }

// PyIndex is the simple index a uvx / pipx run launch installs from: the
// launch's own option, else its environment (env: the whole environment
// the launch gets, see sandbox.Run.Environ), else PyPI. more is
// non-empty when the launch can also install from other sources (an
// extra index, find-links): which source wins is then the installer's
// choice, and the identity is not read.
func PyIndex(manager string, args []string, env map[string]string) (index, more string) {
	get := func(k string) string { return env[k] }
	uv := strings.HasPrefix(manager, "uv")
	var keys, extra []string
	if uv {
		keys = []string{"UV_DEFAULT_INDEX", "UV_INDEX_URL"}
		extra = []string{"UV_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS"}
	} else {
		keys = []string{"PIP_INDEX_URL"}
		extra = []string{"PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"}
	}
	for _, k := range keys {
		if v := get(k); v != "" && index == "" {
			index = v
		}
	}
	for _, k := range extra {
		if get(k) != "" && more == "" {
			more = k
		}
	}
	// Options before the package (or --from/--spec) apply to the
	// install; pipx's --pip-args carries pip's own.
	var toks []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		if k, v, ok := strings.Cut(a, "="); ok && k == "--pip-args" {
			toks = append(toks, strings.Fields(v)...)
			continue
		}
		if a == "--pip-args" && i+1 < len(args) {
			toks = append(toks, strings.Fields(args[i+1])...)
			i++
			continue
		}
		toks = append(toks, a)
		if !strings.Contains(a, "=") && pyValueFlags[a] && i+1 < len(args) {
			toks = append(toks, args[i+1])
			i++
		}
	}
	for i := 0; i < len(toks); i++ {
		k, v, ok := strings.Cut(toks[i], "=")
		if !ok && i+1 < len(toks) && !strings.HasPrefix(toks[i+1], "-") {
			v = toks[i+1]
		}
		switch k {
		case "--index-url", "-i", "--default-index":
			index = v
		case "--extra-index-url", "--index", "--find-links", "-f":
			more = k
		}
	}
	if index == "" {
		index = DefaultPyIndex
	}
	return index, more
}

// pyNormalize is a project name as PEP 503 normalizes it.
func pyNormalize(name string) string {
	return strings.ToLower(regexp.MustCompile(`[-_.]+`).ReplaceAllString(name, "-"))
}

// pySpecifier splits a uvx / pipx spec into the project name and its
// version specifiers ("name[extra]>=1,<2", "name==1.0", "name@1.0").
func pySpecifier(spec string) (name string, clauses []string) {
	spec = strings.TrimSpace(spec)
	i := strings.IndexAny(spec, "[=<>~!@ ;")
	if i < 0 {
		return spec, nil
	}
	name, rest := spec[:i], spec[i:]
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			rest = rest[j+1:]
		}
	}
	rest, _, _ = strings.Cut(rest, ";") // an environment marker
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "@") {
		v := strings.TrimSpace(rest[1:])
		if v == "latest" {
			return name, nil
		}
		return name, []string{"==" + v}
	}
	for _, c := range strings.Split(rest, ",") {
		if c = strings.ReplaceAll(strings.TrimSpace(c), " ", ""); c != "" {
			clauses = append(clauses, c)
		}
	}
	return name, clauses
}

// indexFile is one distribution file an index lists.
type indexFile struct {
	Name   string
	SHA256 string
	Yanked bool
}

// ResolvePy asks the simple index which release of spec a fresh uvx /
// pipx run installs today, reading the index's JSON (PEP 691) or HTML
// (PEP 503) page of the project: the highest version the specifiers
// allow (pre-releases only when a specifier names one or nothing else
// matches; yanked files only for an exact ==), and of it the
// distribution an installer picks on any machine: a pure-Python wheel,
// else the source distribution. A release of platform wheels only is an
// error: which of them runs depends on the machine.
func ResolvePy(ctx context.Context, client *http.Client, index, spec string) (PyRelease, error) {
	name, clauses := pySpecifier(spec)
	if name == "" {
		return PyRelease{}, fmt.Errorf("no project name in %q", spec)
	}
	page := strings.TrimSuffix(index, "/") + "/" + pyNormalize(name) + "/"
	files, err := fetchIndexPage(ctx, client, page)
	if err != nil {
		return PyRelease{}, err
	}
	rel, err := pickRelease(name, clauses, files)
	if err != nil {
		return PyRelease{}, fmt.Errorf("%s: %w", page, err)
	}
	rel.Page = page
	return rel, nil
}

// maxIndexPage bounds what is read of an index page (PyPI's largest
// project pages are a few MB).
const maxIndexPage = 64 << 20

func fetchIndexPage(ctx context.Context, client *http.Client, page string) ([]indexFile, error) {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, PrefetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.pypi.simple.v1+json, text/html;q=0.1")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", page, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIndexPage+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", page, err)
	}
	if len(body) > maxIndexPage {
		return nil, fmt.Errorf("GET %s: page over %d bytes", page, maxIndexPage)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if strings.HasSuffix(ct, "+json") || ct == "application/json" {
		return parseIndexJSON(body, page)
	}
	return parseIndexHTML(body, page)
}

// parseIndexJSON reads a PEP 691 project page.
func parseIndexJSON(body []byte, page string) ([]indexFile, error) {
	var p struct {
		Files []struct {
			Filename string            `json:"filename"`
			Hashes   map[string]string `json:"hashes"`
			Yanked   json.RawMessage   `json:"yanked"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("%s: unreadable PEP 691 page: %w", page, err)
	}
	var out []indexFile
	for _, f := range p.Files {
		y := strings.TrimSpace(string(f.Yanked))
		out = append(out, indexFile{Name: f.Filename, SHA256: strings.ToLower(f.Hashes["sha256"]), Yanked: y != "" && y != "false" && y != "null"})
	}
	return out, nil
}

var anchorRe = regexp.MustCompile(`(?is)<a\s([^>]*)>(.*?)</a>`)
var hrefRe = regexp.MustCompile(`(?is)\bhref\s*=\s*("([^"]*)"|'([^']*)')`)
var yankedRe = regexp.MustCompile(`(?is)\bdata-yanked\b`)

// parseIndexHTML reads a PEP 503 project page: one anchor per file, its
// text the file name, its href's fragment the hash.
func parseIndexHTML(body []byte, page string) ([]indexFile, error) {
	var out []indexFile
	for _, m := range anchorRe.FindAllSubmatch(body, -1) {
		attrs := m[1]
		h := hrefRe.FindSubmatch(attrs)
		if h == nil {
			continue
		}
		href := html.UnescapeString(string(h[2]) + string(h[3]))
		f := indexFile{Name: strings.TrimSpace(html.UnescapeString(string(m[2]))), Yanked: yankedRe.Match(attrs)}
		if u, err := url.Parse(href); err == nil {
			if k, v, ok := strings.Cut(u.Fragment, "="); ok && k == "sha256" {
				f.SHA256 = strings.ToLower(v)
			}
			if f.Name == "" {
				f.Name = u.Path[strings.LastIndexByte(u.Path, '/')+1:]
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 && !strings.Contains(strings.ToLower(string(body)), "<a") {
		return nil, fmt.Errorf("%s: not a PEP 503 page (no file links)", page)
	}
	return out, nil
}

// fileVersion is the version a distribution file of project name carries,
// "" for a file that is not one of its distributions.
// A file name is index text; one with other characters than a
// distribution's name can hold is not taken (it would reach the report).
func fileVersion(name, file string) (version string, wheel, pure bool) {
	if file == "" || strings.ContainsFunc(file, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+!-", r))
	}) {
		return "", false, false
	}
	norm := pyNormalize(name)
	switch {
	case strings.HasSuffix(file, ".whl"):
		parts := strings.Split(strings.TrimSuffix(file, ".whl"), "-")
		if len(parts) < 5 || pyNormalize(parts[0]) != norm {
			return "", false, false
		}
		return parts[1], true, parts[len(parts)-2] == "none" && parts[len(parts)-1] == "any"
	case strings.HasSuffix(file, ".tar.gz"), strings.HasSuffix(file, ".zip"):
		base := strings.TrimSuffix(strings.TrimSuffix(file, ".tar.gz"), ".zip")
		for i := len(base) - 1; i > 0; i-- {
			if base[i] == '-' && pyNormalize(base[:i]) == norm {
				return base[i+1:], false, false
			}
		}
	}
	return "", false, false
}

// pickRelease chooses the release and its distribution (see ResolvePy).
func pickRelease(name string, clauses []string, files []indexFile) (PyRelease, error) {
	specs, exact, err := parseSpecClauses(clauses)
	if err != nil {
		return PyRelease{}, err
	}
	byVersion, parsed := releasesByVersion(name, files, exact)
	allowPre := false
	for _, s := range specs {
		allowPre = allowPre || s.v.pre()
	}
	key, ok := bestVersion(parsed, specs, allowPre)
	if !ok && !allowPre {
		key, ok = bestVersion(parsed, specs, true)
	}
	if !ok {
		return PyRelease{}, fmt.Errorf("no release of %s matches %q", name, strings.Join(clauses, ","))
	}
	fs := byVersion[key]
	slices.SortFunc(fs, func(a, b indexFile) int { return strings.Compare(a.Name, b.Name) })
	pick := pickDistribution(name, fs)
	if pick == nil {
		return PyRelease{}, fmt.Errorf("%s %s has platform wheels only (%d): which one is installed depends on the machine", name, key, len(fs))
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(pick.SHA256) {
		return PyRelease{}, fmt.Errorf("the index gives no sha256 for %s", pick.Name)
	}
	v, _, _ := fileVersion(name, pick.Name)
	return PyRelease{Version: v, File: pick.Name, SHA256: pick.SHA256}, nil
}

// parseSpecClauses parses the version clauses; exact says one pins a
// version (== or ===), which lets a yanked release count.
func parseSpecClauses(clauses []string) (specs []pySpecClause, exact bool, err error) {
	for _, c := range clauses {
		s, err := parseSpecClause(c)
		if err != nil {
			return nil, false, err
		}
		exact = exact || s.op == "==" || s.op == "==="
		specs = append(specs, s)
	}
	return specs, exact, nil
}

// releasesByVersion groups the distributions of name by normalized
// version, leaving out yanked ones unless exact, and what does not parse.
func releasesByVersion(name string, files []indexFile, exact bool) (map[string][]indexFile, map[string]pep440) {
	byVersion := map[string][]indexFile{}
	parsed := map[string]pep440{}
	for _, f := range files {
		v, _, _ := fileVersion(name, f.Name)
		if v == "" || (f.Yanked && !exact) {
			continue
		}
		pv, err := parsePEP440(v)
		if err != nil {
			continue
		}
		key := pv.String()
		byVersion[key] = append(byVersion[key], f)
		parsed[key] = pv
	}
	return byVersion, parsed
}

// bestVersion is the highest version every spec allows, pre-releases only
// with pre.
func bestVersion(parsed map[string]pep440, specs []pySpecClause, pre bool) (string, bool) {
	var cands []pep440
	for _, v := range parsed {
		if v.pre() && !pre {
			continue
		}
		ok := true
		for _, s := range specs {
			ok = ok && s.allows(v)
		}
		if ok {
			cands = append(cands, v)
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	return slices.MaxFunc(cands, comparePEP440).String(), true
}

// pickDistribution picks of the release's sorted files a pure wheel
// (py3-none-any first), else the first sdist; nil when all are platform
// wheels.
func pickDistribution(name string, fs []indexFile) *indexFile {
	var pick *indexFile
	for i, f := range fs {
		if _, wheel, pure := fileVersion(name, f.Name); wheel && pure {
			if pick == nil || strings.Contains(f.Name, "-py3-none-any") {
				pick = &fs[i]
			}
		}
	}
	if pick != nil {
		return pick
	}
	for i, f := range fs {
		if _, wheel, _ := fileVersion(name, f.Name); !wheel {
			return &fs[i]
		}
	}
	return nil
}

// errNotPEP440 is a version string the ordering cannot place.
var errNotPEP440 = errors.New("not a PEP 440 version")
