// Package githubtest is a fake of the GitHub REST API's pieces mcp-lockcheck
// uses, for tests: the real paths, methods, status codes, JSON shapes and
// Link-header pagination, with state kept in memory, so go-github talks to it
// exactly as it talks to api.github.com. It is a test double, not an
// emulator: it checks what GitHub would reject that our code could get wrong
// (a missing token, a write on a read-only token, a duplicate pull request,
// an existing ref) and nothing else.
package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Server is the fake API. Its exported fields may be set before requests
// are made; Requests and the state accessors may be read after.
type Server struct {
	*httptest.Server
	// Owner and Repo name the one repository served.
	Owner, Repo string
	// Login is who the token acts as. Empty: an installation token
	// (GITHUB_TOKEN): /user answers 403 and comments are authored by
	// github-actions[bot].
	Login string
	// ReadOnly makes every write answer 403, as a fork's pull request
	// token does.
	ReadOnly bool
	// PageSize caps per_page, so pagination is exercised with few items.
	PageSize int
	// DefaultBranch is the repository's default branch ("main").
	DefaultBranch string
	// DropNewIssueLabels drops the labels given when an issue is created,
	// silently, as GitHub does for a token that may not set them.
	DropNewIssueLabels bool

	mu       sync.Mutex
	requests []string
	comments []*Comment
	nextID   int64
	refs     map[string]string // "heads/main" -> commit sha
	blobs    map[string]string
	trees    map[string]map[string]string // tree sha -> path -> blob sha
	commits  map[string]Commit
	pulls    []*Pull
	issues   []*Issue
	labels   map[int][]string
}

// Issue is an issue (not a pull request: those are Pull, though GitHub
// lists both under /issues and numbers them in one sequence).
type Issue struct {
	Number      int
	Title, Body string
	Author      string
	State       string // open or closed
	StateReason string // completed, not_planned, reopened or ""
	// ClosedBy is who closed it last ("" while never closed); GitHub
	// returns it from GET /issues/{n} only, not from the list.
	ClosedBy string
}

// Comment is an issue comment.
type Comment struct {
	ID     int64
	Issue  int
	Author string
	Body   string
}

// Commit is a git commit.
type Commit struct {
	SHA, Tree, Message string
	Parents            []string
}

// Pull is a pull request.
type Pull struct {
	Number           int
	Title, Body      string
	Head, Base       string // branch names
	State            string
	HeadSHA, BaseSHA string
}

// New starts a fake for owner/repo whose default branch "main" holds one
// commit with files (path -> content). Close it with t.Cleanup(s.Close).
func New(owner, repo string, files map[string]string) *Server {
	s := &Server{Owner: owner, Repo: repo, DefaultBranch: "main", PageSize: 100, nextID: 1000,
		refs: map[string]string{}, blobs: map[string]string{}, trees: map[string]map[string]string{},
		commits: map[string]Commit{}, labels: map[int][]string{}}
	entries := map[string]string{}
	for p, c := range files {
		entries[p] = s.putBlob(c)
	}
	tree := s.putTree(entries)
	c := s.putCommit(Commit{Tree: tree, Message: "initial"})
	s.refs["heads/main"] = c
	s.Server = httptest.NewServer(s.mux())
	return s
}

// APIURL is the API root to put in GITHUB_API_URL.
func (s *Server) APIURL() string { return s.Server.URL + "/" }

// Requests lists "METHOD /path" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Comments returns the comments on issue n.
func (s *Server) Comments(n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == n {
			out = append(out, *c)
		}
	}
	return out
}

// AddComment adds a comment by author to issue n (setting up a scene).
func (s *Server) AddComment(n int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.comments = append(s.comments, &Comment{ID: s.nextID, Issue: n, Author: author, Body: body})
	return s.nextID
}

// AddPull opens a pull request (setting up a scene).
func (s *Server) AddPull(p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Number == 0 {
		p.Number = s.nextNumber()
	}
	if p.State == "" {
		p.State = "open"
	}
	s.pulls = append(s.pulls, &p)
}

// Pulls returns every pull request.
func (s *Server) Pulls() []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Pull
	for _, p := range s.pulls {
		out = append(out, *p)
	}
	return out
}

// Labels returns the labels of issue n.
func (s *Server) Labels(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.labels[n]...)
}

// Ref returns the commit a ref ("heads/main") points at, or "".
func (s *Server) Ref(ref string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refs[ref]
}

// CommitOf returns a commit.
func (s *Server) CommitOf(sha string) (Commit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.commits[sha]
	return c, ok
}

// File returns the content of path at the tip of branch.
func (s *Server) File(branch, path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.commits[s.refs["heads/"+branch]]
	if !ok {
		return "", false
	}
	b, ok := s.trees[c.Tree][path]
	if !ok {
		return "", false
	}
	return s.blobs[b], true
}

func hash(kind, content string) string {
	h := sha1.Sum([]byte(kind + "\x00" + content))
	return hex.EncodeToString(h[:])
}

func (s *Server) putBlob(content string) string {
	sha := hash("blob", content)
	s.blobs[sha] = content
	return sha
}

func (s *Server) putTree(entries map[string]string) string {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " " + entries[k] + "\n")
	}
	sha := hash("tree", b.String())
	s.trees[sha] = entries
	return sha
}

func (s *Server) putCommit(c Commit) string {
	c.SHA = hash("commit", fmt.Sprint(c.Tree, c.Parents, c.Message, len(s.commits)))
	s.commits[c.SHA] = c
	return c.SHA
}

func (s *Server) nextNumber() int {
	n := 1
	for _, p := range s.pulls {
		n = max(n, p.Number+1)
	}
	for _, i := range s.issues {
		n = max(n, i.Number+1)
	}
	return n
}

// AddIssue opens an issue (setting up a scene) with labels, and returns its number.
func (s *Server) AddIssue(i Issue, labels ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i.Number == 0 {
		i.Number = s.nextNumber()
	}
	if i.State == "" {
		i.State = "open"
	}
	s.issues = append(s.issues, &i)
	s.labels[i.Number] = append(s.labels[i.Number], labels...)
	return i.Number
}

// CloseIssue closes issue n as by (a person closing it by hand).
func (s *Server) CloseIssue(n int, by string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range s.issues {
		if i.Number == n {
			i.State, i.StateReason, i.ClosedBy = "closed", "completed", by
		}
	}
}

// Issues returns every issue, in the order they were opened.
func (s *Server) Issues() []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Issue
	for _, i := range s.issues {
		out = append(out, *i)
	}
	return out
}

// author is who writes with the token.
func (s *Server) author() string {
	if s.Login == "" {
		return "github-actions[bot]"
	}
	return s.Login
}

func (s *Server) mux() http.Handler {
	m := http.NewServeMux()
	repo := "/repos/{owner}/{repo}"
	m.HandleFunc("GET /user", s.getUser)
	m.HandleFunc("GET "+repo, s.getRepo)
	m.HandleFunc("GET "+repo+"/issues/{n}/comments", s.listComments)
	m.HandleFunc("POST "+repo+"/issues/{n}/comments", s.createComment)
	m.HandleFunc("PATCH "+repo+"/issues/comments/{id}", s.editComment)
	m.HandleFunc("POST "+repo+"/issues/{n}/labels", s.addLabels)
	m.HandleFunc("GET "+repo+"/issues", s.listIssues)
	m.HandleFunc("POST "+repo+"/issues", s.createIssue)
	m.HandleFunc("GET "+repo+"/issues/{n}", s.getIssue)
	m.HandleFunc("PATCH "+repo+"/issues/{n}", s.editIssue)
	m.HandleFunc("GET "+repo+"/git/ref/{ref...}", s.getRef)
	m.HandleFunc("GET "+repo+"/git/commits/{sha}", s.getCommit)
	m.HandleFunc("POST "+repo+"/git/blobs", s.createBlob)
	m.HandleFunc("POST "+repo+"/git/trees", s.createTree)
	m.HandleFunc("POST "+repo+"/git/commits", s.createCommit)
	m.HandleFunc("POST "+repo+"/git/refs", s.createRef)
	m.HandleFunc("PATCH "+repo+"/git/refs/{ref...}", s.updateRef)
	m.HandleFunc("GET "+repo+"/pulls", s.listPulls)
	m.HandleFunc("POST "+repo+"/pulls", s.createPull)
	m.HandleFunc("PATCH "+repo+"/pulls/{n}", s.editPull)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		auth := r.Header.Get("Authorization")
		if !strings.HasPrefix(auth, "Bearer ") && !strings.HasPrefix(auth, "token ") {
			apiError(w, http.StatusUnauthorized, "Requires authentication")
			return
		}
		if strings.HasPrefix(r.URL.Path, "/repos/") && !strings.HasPrefix(r.URL.Path, "/repos/"+s.Owner+"/"+s.Repo) {
			apiError(w, http.StatusNotFound, "Not Found")
			return
		}
		if r.Method != http.MethodGet && s.ReadOnly {
			apiError(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		m.ServeHTTP(w, r)
	})
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		apiError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func (s *Server) base(r *http.Request) string {
	return "http://" + r.Host
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	if s.Login == "" {
		apiError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	reply(w, http.StatusOK, map[string]any{"login": s.Login, "id": 1, "type": "User"})
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, map[string]any{"name": s.Repo, "full_name": s.Owner + "/" + s.Repo, "default_branch": s.DefaultBranch})
}

func (s *Server) commentJSON(r *http.Request, c *Comment) map[string]any {
	return map[string]any{
		"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.Author},
		"html_url":  fmt.Sprintf("https://github.example/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, c.Issue, c.ID),
		"url":       fmt.Sprintf("%s/repos/%s/%s/issues/comments/%d", s.base(r), s.Owner, s.Repo, c.ID),
		"issue_url": fmt.Sprintf("%s/repos/%s/%s/issues/%d", s.base(r), s.Owner, s.Repo, c.Issue),
	}
}

// page applies per_page/page to n items and sets the Link header the way
// GitHub does (next, last, first, prev), returning the slice bounds.
func (s *Server) page(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, s.PageSize)
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if pg <= 0 {
		pg = 1
	}
	last := max((n+per-1)/per, 1)
	link := func(p int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(pg-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((pg-1)*per, n)
	return lo, min(lo+per, n)
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	var cs []*Comment
	for _, c := range s.comments {
		if c.Issue == n {
			cs = append(cs, c)
		}
	}
	lo, hi := s.page(w, r, len(cs))
	out := []map[string]any{}
	for _, c := range cs[lo:hi] {
		out = append(out, s.commentJSON(r, c))
	}
	reply(w, http.StatusOK, out)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	var in struct {
		Body string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	s.nextID++
	c := &Comment{ID: s.nextID, Issue: n, Author: s.author(), Body: in.Body}
	s.comments = append(s.comments, c)
	reply(w, http.StatusCreated, s.commentJSON(r, c))
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Body string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	for _, c := range s.comments {
		if c.ID == id {
			if c.Author != s.author() {
				apiError(w, http.StatusForbidden, "Resource not accessible by integration")
				return
			}
			c.Body = in.Body
			reply(w, http.StatusOK, s.commentJSON(r, c))
			return
		}
	}
	apiError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) addLabels(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	var in struct {
		Labels []string `json:"labels"`
	}
	// go-github sends a bare array; the documented object form is accepted too.
	var raw json.RawMessage
	if !decode(w, r, &raw) {
		return
	}
	if err := json.Unmarshal(raw, &in.Labels); err != nil {
		if err := json.Unmarshal(raw, &in); err != nil {
			apiError(w, http.StatusUnprocessableEntity, "Invalid request")
			return
		}
	}
	have := map[string]bool{}
	for _, l := range s.labels[n] {
		have[l] = true
	}
	for _, l := range in.Labels {
		if !have[l] {
			s.labels[n] = append(s.labels[n], l)
			have[l] = true
		}
	}
	out := []map[string]any{}
	for _, l := range s.labels[n] {
		out = append(out, map[string]any{"name": l})
	}
	reply(w, http.StatusOK, out)
}

func (s *Server) refJSON(r *http.Request, ref, sha string) map[string]any {
	return map[string]any{
		"ref": "refs/" + ref, "node_id": "REF_" + ref,
		"url":    fmt.Sprintf("%s/repos/%s/%s/git/refs/%s", s.base(r), s.Owner, s.Repo, ref),
		"object": map[string]any{"type": "commit", "sha": sha, "url": fmt.Sprintf("%s/repos/%s/%s/git/commits/%s", s.base(r), s.Owner, s.Repo, sha)},
	}
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	sha, ok := s.refs[ref]
	if !ok {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	reply(w, http.StatusOK, s.refJSON(r, ref, sha))
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	c, ok := s.commits[r.PathValue("sha")]
	if !ok {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	reply(w, http.StatusOK, s.commitJSON(c))
}

func (s *Server) commitJSON(c Commit) map[string]any {
	parents := []map[string]any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p})
	}
	return map[string]any{"sha": c.SHA, "message": c.Message, "tree": map[string]any{"sha": c.Tree}, "parents": parents}
}

func (s *Server) createBlob(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Content == nil || (in.Encoding != "utf-8" && in.Encoding != "") {
		apiError(w, http.StatusUnprocessableEntity, "Invalid request: content and utf-8 encoding are required here")
		return
	}
	sha := s.putBlob(*in.Content)
	reply(w, http.StatusCreated, map[string]any{"sha": sha, "url": fmt.Sprintf("%s/repos/%s/%s/git/blobs/%s", s.base(r), s.Owner, s.Repo, sha)})
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path, Mode, Type string
			SHA              *string `json:"sha"`
		} `json:"tree"`
	}
	if !decode(w, r, &in) {
		return
	}
	entries := map[string]string{}
	if in.BaseTree != "" {
		base, ok := s.trees[in.BaseTree]
		if !ok {
			apiError(w, http.StatusUnprocessableEntity, "base_tree is not a valid tree")
			return
		}
		for k, v := range base {
			entries[k] = v
		}
	}
	for _, e := range in.Tree {
		if e.Mode != "100644" || e.Type != "blob" || e.Path == "" {
			apiError(w, http.StatusUnprocessableEntity, "unsupported tree entry")
			return
		}
		if e.SHA == nil {
			delete(entries, e.Path)
			continue
		}
		if _, ok := s.blobs[*e.SHA]; !ok {
			apiError(w, http.StatusUnprocessableEntity, "tree.sha "+*e.SHA+" is not a valid blob")
			return
		}
		entries[e.Path] = *e.SHA
	}
	sha := s.putTree(entries)
	reply(w, http.StatusCreated, map[string]any{"sha": sha, "truncated": false, "tree": []any{}})
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
	}
	if !decode(w, r, &in) {
		return
	}
	if _, ok := s.trees[in.Tree]; !ok || in.Message == "" {
		apiError(w, http.StatusUnprocessableEntity, "Invalid request: tree and message are required")
		return
	}
	for _, p := range in.Parents {
		if _, ok := s.commits[p]; !ok {
			apiError(w, http.StatusUnprocessableEntity, "parent "+p+" is not a commit")
			return
		}
	}
	sha := s.putCommit(Commit{Tree: in.Tree, Message: in.Message, Parents: in.Parents})
	reply(w, http.StatusCreated, s.commitJSON(s.commits[sha]))
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !decode(w, r, &in) {
		return
	}
	ref, ok := strings.CutPrefix(in.Ref, "refs/")
	if !ok {
		apiError(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/'")
		return
	}
	if _, exists := s.refs[ref]; exists {
		apiError(w, http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	if _, ok := s.commits[in.SHA]; !ok {
		apiError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	s.refs[ref] = in.SHA
	reply(w, http.StatusCreated, s.refJSON(r, ref, in.SHA))
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !decode(w, r, &in) {
		return
	}
	old, ok := s.refs[ref]
	if !ok {
		apiError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	if _, ok := s.commits[in.SHA]; !ok {
		apiError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if !in.Force && !s.descends(in.SHA, old) {
		apiError(w, http.StatusUnprocessableEntity, "Update is not a fast forward")
		return
	}
	s.refs[ref] = in.SHA
	reply(w, http.StatusOK, s.refJSON(r, ref, in.SHA))
}

func (s *Server) descends(sha, ancestor string) bool {
	if sha == ancestor {
		return true
	}
	for _, p := range s.commits[sha].Parents {
		if s.descends(p, ancestor) {
			return true
		}
	}
	return false
}

func (s *Server) pullJSON(p *Pull) map[string]any {
	return map[string]any{
		"number": p.Number, "state": p.State, "title": p.Title, "body": p.Body,
		"html_url": fmt.Sprintf("https://github.example/%s/%s/pull/%d", s.Owner, s.Repo, p.Number),
		"head":     map[string]any{"ref": p.Head, "sha": p.HeadSHA, "label": s.Owner + ":" + p.Head},
		"base":     map[string]any{"ref": p.Base, "sha": p.BaseSHA, "label": s.Owner + ":" + p.Base},
	}
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var ps []*Pull
	for _, p := range s.pulls {
		if state != "all" && p.State != state {
			continue
		}
		if h := q.Get("head"); h != "" && h != s.Owner+":"+p.Head {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		ps = append(ps, p)
	}
	lo, hi := s.page(w, r, len(ps))
	out := []map[string]any{}
	for _, p := range ps[lo:hi] {
		out = append(out, s.pullJSON(p))
	}
	reply(w, http.StatusOK, out)
}

func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title, Head, Base, Body string
	}
	if !decode(w, r, &in) {
		return
	}
	head, ok := s.refs["heads/"+in.Head]
	if !ok {
		apiError(w, http.StatusUnprocessableEntity, "Validation Failed: head does not exist")
		return
	}
	base, ok := s.refs["heads/"+in.Base]
	if !ok {
		apiError(w, http.StatusUnprocessableEntity, "Validation Failed: base does not exist")
		return
	}
	for _, p := range s.pulls {
		if p.State == "open" && p.Head == in.Head && p.Base == in.Base {
			apiError(w, http.StatusUnprocessableEntity, "Validation Failed: A pull request already exists for "+s.Owner+":"+in.Head+".")
			return
		}
	}
	p := &Pull{Number: s.nextNumber(), Title: in.Title, Body: in.Body, Head: in.Head, Base: in.Base, State: "open", HeadSHA: head, BaseSHA: base}
	s.pulls = append(s.pulls, p)
	reply(w, http.StatusCreated, s.pullJSON(p))
}

func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	for _, p := range s.pulls {
		if p.Number == n {
			if in.Title != nil {
				p.Title = *in.Title
			}
			if in.Body != nil {
				p.Body = *in.Body
			}
			p.HeadSHA = s.refs["heads/"+p.Head]
			reply(w, http.StatusOK, s.pullJSON(p))
			return
		}
	}
	apiError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) issueJSON(i *Issue, withClosedBy bool) map[string]any {
	labels := []map[string]any{}
	for _, l := range s.labels[i.Number] {
		labels = append(labels, map[string]any{"name": l})
	}
	out := map[string]any{
		"number": i.Number, "state": i.State, "title": i.Title, "body": i.Body,
		"user":     map[string]any{"login": i.Author},
		"labels":   labels,
		"html_url": fmt.Sprintf("https://github.example/%s/%s/issues/%d", s.Owner, s.Repo, i.Number),
	}
	if i.StateReason != "" {
		out["state_reason"] = i.StateReason
	}
	if withClosedBy {
		if i.ClosedBy != "" {
			out["closed_by"] = map[string]any{"login": i.ClosedBy}
		} else {
			out["closed_by"] = nil
		}
	}
	return out
}

// listIssues is GET /repos/{o}/{r}/issues: issues and pull requests (the
// latter with a pull_request key), filtered by state (default open) and
// labels (all of them), newest first unless direction=asc.
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	hasLabels := func(n int) bool {
		for _, w := range want {
			found := false
			for _, l := range s.labels[n] {
				found = found || strings.EqualFold(l, w)
			}
			if !found {
				return false
			}
		}
		return true
	}
	type item struct {
		n int
		v map[string]any
	}
	var items []item
	for _, i := range s.issues {
		if (state == "all" || i.State == state) && hasLabels(i.Number) {
			items = append(items, item{i.Number, s.issueJSON(i, false)})
		}
	}
	for _, p := range s.pulls {
		if (state == "all" || p.State == state) && hasLabels(p.Number) {
			v := s.pullJSON(p)
			v["user"] = map[string]any{"login": s.author()}
			v["pull_request"] = map[string]any{"url": fmt.Sprintf("%s/repos/%s/%s/pulls/%d", s.base(r), s.Owner, s.Repo, p.Number)}
			items = append(items, item{p.Number, v})
		}
	}
	sort.Slice(items, func(a, b int) bool {
		if q.Get("direction") == "asc" {
			return items[a].n < items[b].n
		}
		return items[a].n > items[b].n
	})
	lo, hi := s.page(w, r, len(items))
	out := []map[string]any{}
	for _, it := range items[lo:hi] {
		out = append(out, it.v)
	}
	reply(w, http.StatusOK, out)
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Title == "" {
		apiError(w, http.StatusUnprocessableEntity, "Validation Failed: title is missing")
		return
	}
	if len([]rune(in.Body)) > MaxBody {
		apiError(w, http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return
	}
	i := &Issue{Number: s.nextNumber(), Title: in.Title, Body: in.Body, Author: s.author(), State: "open"}
	s.issues = append(s.issues, i)
	if !s.DropNewIssueLabels {
		s.labels[i.Number] = append(s.labels[i.Number], in.Labels...)
	}
	reply(w, http.StatusCreated, s.issueJSON(i, true))
}

// MaxBody is GitHub's limit on an issue, pull request or comment body, in
// characters.
const MaxBody = 65536

func (s *Server) issue(r *http.Request) *Issue {
	n, _ := strconv.Atoi(r.PathValue("n"))
	for _, i := range s.issues {
		if i.Number == n {
			return i
		}
	}
	return nil
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request) {
	i := s.issue(r)
	if i == nil {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	reply(w, http.StatusOK, s.issueJSON(i, true))
}

func (s *Server) editIssue(w http.ResponseWriter, r *http.Request) {
	i := s.issue(r)
	if i == nil {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in struct {
		Title       *string `json:"title"`
		Body        *string `json:"body"`
		State       *string `json:"state"`
		StateReason *string `json:"state_reason"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Body != nil && len([]rune(*in.Body)) > MaxBody {
		apiError(w, http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		apiError(w, http.StatusUnprocessableEntity, "Validation Failed: state")
		return
	}
	if in.Title != nil {
		i.Title = *in.Title
	}
	if in.Body != nil {
		i.Body = *in.Body
	}
	if in.State != nil && *in.State != i.State {
		i.State = *in.State
		if i.State == "closed" {
			i.ClosedBy, i.StateReason = s.author(), "completed"
		} else {
			i.StateReason = "reopened"
		}
	}
	if in.StateReason != nil && i.State == "closed" {
		i.StateReason = *in.StateReason
	}
	reply(w, http.StatusOK, s.issueJSON(i, true))
}
