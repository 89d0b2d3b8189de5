package github

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gh "github.com/google/go-github/v62/github"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

func fake(t *testing.T, files map[string]string) (*githubtest.Server, *gh.Client) {
	t.Helper()
	s := githubtest.New("o", "r", files)
	t.Cleanup(s.Close)
	c, err := NewClient("test-token", s.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestUpsertComment(t *testing.T) {
	ctx := context.Background()
	body := func(v string) string { return report.Marker + "\n## mcp-lockcheck\n" + v + "\n" }
	tests := []struct {
		name  string
		login string // "" = GITHUB_TOKEN (no /user)
		setup func(s *githubtest.Server)
		// after two upserts: the number of our comments and the body of the one.
		wantOurs   int
		wantOthers []string // bodies of comments that must be left as they were
	}{
		{name: "creates then edits", wantOurs: 1},
		{
			name: "finds its comment past the first pages",
			setup: func(s *githubtest.Server) {
				s.PageSize = 3
				for i := range 10 {
					s.AddComment(7, "someone", "comment "+string(rune('a'+i)))
				}
				s.AddComment(7, "github-actions[bot]", body("old verdict"))
			},
			wantOurs:   1,
			wantOthers: []string{"comment a", "comment j"},
		},
		{
			name: "never edits another author's comment carrying the marker",
			setup: func(s *githubtest.Server) {
				s.AddComment(7, "mallory", body("fake verdict: all clean"))
			},
			wantOurs:   1,
			wantOthers: []string{body("fake verdict: all clean")},
		},
		{
			name:  "a token that reads /user looks for its own login",
			login: "octo-bot",
			setup: func(s *githubtest.Server) {
				s.AddComment(7, "github-actions[bot]", body("from the other workflow"))
			},
			wantOurs:   1,
			wantOthers: []string{body("from the other workflow")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := fake(t, nil)
			s.Login = tt.login
			if tt.setup != nil {
				tt.setup(s)
			}
			before := len(s.Comments(7))
			u1, err := UpsertComment(ctx, c, "o", "r", 7, body("drift"))
			if err != nil {
				t.Fatal(err)
			}
			u2, err := UpsertComment(ctx, c, "o", "r", 7, body("clean now"))
			if err != nil {
				t.Fatal(err)
			}
			if u1 != u2 || !strings.Contains(u1, "#issuecomment-") {
				t.Errorf("urls %q and %q: want the same comment", u1, u2)
			}
			me := tt.login
			if me == "" {
				me = ActionsBot
			}
			ours, all := 0, s.Comments(7)
			for _, cm := range all {
				if cm.Author == me {
					ours++
					if cm.Body != body("clean now") {
						t.Errorf("our comment says %q", cm.Body)
					}
				}
			}
			if ours != tt.wantOurs {
				t.Errorf("%d comments by %s, want %d", ours, me, tt.wantOurs)
			}
			if created := len(all) - before; created > 1 {
				t.Errorf("%d comments created", created)
			}
			for _, want := range tt.wantOthers {
				found := false
				for _, cm := range all {
					found = found || (cm.Author != me && cm.Body == want)
				}
				if !found {
					t.Errorf("another author's comment %q was changed or lost", want)
				}
			}
		})
	}
}

func TestUpsertCommentAddsMarker(t *testing.T) {
	s, c := fake(t, nil)
	if _, err := UpsertComment(context.Background(), c, "o", "r", 3, "no marker here"); err != nil {
		t.Fatal(err)
	}
	if cs := s.Comments(3); len(cs) != 1 || !strings.HasPrefix(cs[0].Body, report.Marker) {
		t.Fatalf("comments %+v", cs)
	}
}

func TestUpsertCommentForbidden(t *testing.T) {
	s, c := fake(t, nil)
	s.ReadOnly = true
	_, err := UpsertComment(context.Background(), c, "o", "r", 7, "x")
	if !errors.Is(err, ErrForbidden) {
		t.Fatalf("err = %v, want ErrForbidden", err)
	}
	if !strings.Contains(err.Error(), "read-only token") {
		t.Errorf("error does not explain the fork case: %v", err)
	}
}

func writeEvent(t *testing.T, json string) Getenv {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_EVENT_PATH": p, "GITHUB_REPOSITORY": "o/r"}
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestPullRequestFromEvent(t *testing.T) {
	s, c := fake(t, nil)
	s.AddPull(githubtest.Pull{Number: 41, Head: "feature", Base: "main", HeadSHA: "aaa", BaseSHA: "bbb"})
	s.AddPull(githubtest.Pull{Number: 42, Head: "patch-1", Base: "main", HeadSHA: "ccc", BaseSHA: "bbb"})
	tests := []struct {
		name    string
		event   string
		want    int
		wantErr error
	}{
		{"pull_request", `{"number":5,"pull_request":{"number":5,"base":{"sha":"b1"},"head":{"sha":"h1"}}}`, 5, nil},
		{"push", `{"ref":"refs/heads/main","after":"abc"}`, 0, ErrNoPullRequest},
		{"workflow_run naming its pull request", `{"workflow_run":{"event":"pull_request","head_sha":"aaa","head_branch":"feature","pull_requests":[{"number":41,"head":{"sha":"aaa"},"base":{"sha":"bbb"}}]}}`, 41, nil},
		{"workflow_run from a fork: looked up by head", `{"workflow_run":{"event":"pull_request","head_sha":"ccc","head_branch":"patch-1","pull_requests":[],"head_repository":{"owner":{"login":"o"}}}}`, 42, nil},
		{"workflow_run whose head moved on", `{"workflow_run":{"event":"pull_request","head_sha":"ddd","head_branch":"patch-1","pull_requests":[],"head_repository":{"owner":{"login":"o"}}}}`, 0, ErrNoPullRequest},
		{"workflow_run of a push", `{"workflow_run":{"event":"push","head_sha":"aaa","head_branch":"main"}}`, 0, ErrNoPullRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, err := PullRequestFromEvent(context.Background(), writeEvent(t, tt.event), c)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pr.Number != tt.want || pr.Repo != (Repo{"o", "r"}) {
				t.Errorf("got %+v, want #%d", pr, tt.want)
			}
		})
	}
}

func TestClientFromEnv(t *testing.T) {
	env := func(m map[string]string) Getenv {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	if _, err := ClientFromEnv(env(nil), ""); err == nil || !strings.Contains(err.Error(), "$GITHUB_TOKEN") {
		t.Errorf("no token: err = %v", err)
	}
	c, err := ClientFromEnv(env(map[string]string{"MY_TOKEN": "x", "GITHUB_API_URL": "https://ghes.example/api/v3"}), "MY_TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BaseURL.String(); got != "https://ghes.example/api/v3/" {
		t.Errorf("base URL %q", got)
	}
	if _, err := ClientFromEnv(env(map[string]string{"GITHUB_TOKEN": "x", "GITHUB_API_URL": "file:///etc"}), ""); err == nil {
		t.Error("a file: API URL was accepted")
	}
}

func TestOpenRepinPR(t *testing.T) {
	ctx := context.Background()
	s, c := fake(t, map[string]string{"mcp-lock.json": "old\n", "README.md": "readme\n"})
	p := RepinPR{Repo: Repo{"o", "r"}, Path: "mcp-lock.json", Content: []byte("new 1\n"), Title: "Re-pin", Body: "body 1", CommitMessage: "mcp-lockcheck: re-pin"}
	res, err := OpenRepinPR(ctx, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Number == 0 {
		t.Fatalf("first run: %+v", res)
	}
	if got, _ := s.File(DefaultRepinBranch, "mcp-lock.json"); got != "new 1\n" {
		t.Errorf("branch lock = %q", got)
	}
	if got, _ := s.File(DefaultRepinBranch, "README.md"); got != "readme\n" {
		t.Errorf("the commit lost the rest of the tree: README = %q", got)
	}
	if cm, _ := s.CommitOf(s.Ref("heads/" + DefaultRepinBranch)); len(cm.Parents) != 1 || cm.Parents[0] != s.Ref("heads/main") {
		t.Errorf("commit %+v is not on top of main", cm)
	}
	if got := s.Labels(res.Number); len(got) != 1 || got[0] != DefaultRepinLabel {
		t.Errorf("labels %v", got)
	}

	p.Content, p.Body = []byte("new 2\n"), "body 2"
	res2, err := OpenRepinPR(ctx, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Created || res2.Number != res.Number {
		t.Fatalf("second run: %+v, want an update of #%d", res2, res.Number)
	}
	if pulls := s.Pulls(); len(pulls) != 1 || pulls[0].Body != "body 2" {
		t.Errorf("pulls %+v", pulls)
	}
	if got, _ := s.File(DefaultRepinBranch, "mcp-lock.json"); got != "new 2\n" {
		t.Errorf("branch lock = %q", got)
	}
	if cm, _ := s.CommitOf(s.Ref("heads/" + DefaultRepinBranch)); cm.Parents[0] != s.Ref("heads/main") {
		t.Errorf("the branch was not rebuilt on main: %+v", cm)
	}
	if got, _ := s.File("main", "mcp-lock.json"); got != "old\n" {
		t.Errorf("main changed: %q", got)
	}
}

func TestOpenRepinPRErrors(t *testing.T) {
	ctx := context.Background()
	s, c := fake(t, map[string]string{"mcp-lock.json": "old\n"})
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../b", "./mcp-lock.json"} {
		if _, err := OpenRepinPR(ctx, c, RepinPR{Repo: Repo{"o", "r"}, Path: bad, Content: []byte("x")}); err == nil {
			t.Errorf("path %q accepted", bad)
		}
	}
	s.ReadOnly = true
	_, err := OpenRepinPR(ctx, c, RepinPR{Repo: Repo{"o", "r"}, Path: "mcp-lock.json", Content: []byte("x"), CommitMessage: "m"})
	if !errors.Is(err, ErrForbidden) {
		t.Fatalf("read-only: err = %v", err)
	}
	if len(s.Pulls()) != 0 || s.Ref("heads/"+DefaultRepinBranch) != "" {
		t.Error("a read-only run changed the repository")
	}
}
