// Package github is mcp-lockcheck's side of the GitHub API: the sticky pull
// request comment, the re-pin pull request and the deep check's drift issue,
// through go-github, plus what a workflow run tells a step about itself (the
// event file, the repository, the API URL). It holds no rendering: callers pass markdown made by report.
//
// Everything here runs inside a workflow whose token may be read-only (a
// fork's pull request): a 403 comes back as an error wrapping ErrForbidden so
// the caller can make it a warning instead of a failed check.
package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// ErrForbidden is wrapped by errors from a 403 or 401 answer: the token
// cannot do what was asked (a fork's pull request gets a read-only token).
var ErrForbidden = errors.New("the token is not allowed to do this")

// ErrNoPullRequest is returned by PullRequestFromEvent when the run is not
// about a pull request (a push, a schedule).
var ErrNoPullRequest = errors.New("this workflow run is not about a pull request")

// DefaultTokenEnv is where the token is read from unless told otherwise.
const DefaultTokenEnv = "GITHUB_TOKEN"

// DefaultAPIURL is used when GITHUB_API_URL is unset (outside Actions).
const DefaultAPIURL = "https://api.github.com"

// ActionsBot is the login comments made with a workflow's GITHUB_TOKEN are
// authored by. That token cannot read /user, so its own login is not
// discoverable; this is what it is.
const ActionsBot = "github-actions[bot]"

// Getenv is how this package reads the environment: injected, so tests and
// the CLI decide what the process environment is.
type Getenv func(string) (string, bool)

func (g Getenv) get(k string) string {
	if g == nil {
		return os.Getenv(k)
	}
	v, _ := g(k)
	return v
}

// NewClient makes a client for apiURL ("" = DefaultAPIURL) authenticated
// with token. apiURL is GITHUB_API_URL as the runner sets it: the REST root
// for github.com and GitHub Enterprise Server alike (".../api/v3" there), so
// it is used as it is, not rewritten the way WithEnterpriseURLs would.
func NewClient(token, apiURL string) (*gh.Client, error) {
	if token == "" {
		return nil, errors.New("no GitHub token")
	}
	c := gh.NewClient(&http.Client{}).WithAuthToken(token)
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	u, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q is not an http(s) URL", apiURL)
	}
	c.BaseURL = u
	return c, nil
}

// ClientFromEnv makes a client from the token in the variable tokenEnv
// ("" = GITHUB_TOKEN) and the API URL in GITHUB_API_URL.
func ClientFromEnv(getenv Getenv, tokenEnv string) (*gh.Client, error) {
	if tokenEnv == "" {
		tokenEnv = DefaultTokenEnv
	}
	token := getenv.get(tokenEnv)
	if token == "" {
		return nil, fmt.Errorf("no GitHub token: $%s is empty (pass the workflow's token in the step's env)", tokenEnv)
	}
	return NewClient(token, getenv.get("GITHUB_API_URL"))
}

// Repo is an owner/name pair.
type Repo struct{ Owner, Name string }

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// ParseRepo reads "owner/name".
func ParseRepo(s string) (Repo, error) {
	o, n, ok := strings.Cut(s, "/")
	if !ok || o == "" || n == "" || strings.Contains(n, "/") {
		return Repo{}, fmt.Errorf("repository %q: want OWNER/NAME", s)
	}
	return Repo{o, n}, nil
}

// RepoFromEnv reads GITHUB_REPOSITORY.
func RepoFromEnv(getenv Getenv) (Repo, error) {
	s := getenv.get("GITHUB_REPOSITORY")
	if s == "" {
		return Repo{}, errors.New("GITHUB_REPOSITORY is not set: not running in GitHub Actions (name the repository explicitly)")
	}
	return ParseRepo(s)
}

// PullRequest is what a step knows about the pull request its run is for.
type PullRequest struct {
	Repo    Repo
	Number  int
	BaseSHA string
	HeadSHA string
}

// event is the part of the webhook payloads in GITHUB_EVENT_PATH we read.
// Only what the runner wrote is trusted here: a pull request's own files
// never reach this struct.
type event struct {
	Number      int          `json:"number"`
	PullRequest *eventPR     `json:"pull_request"`
	WorkflowRun *workflowRun `json:"workflow_run"`
}

type eventPR struct {
	Number int `json:"number"`
	Base   struct {
		SHA string `json:"sha"`
	} `json:"base"`
	Head struct {
		SHA string `json:"sha"`
	} `json:"head"`
}

type workflowRun struct {
	Event        string    `json:"event"`
	HeadSHA      string    `json:"head_sha"`
	HeadBranch   string    `json:"head_branch"`
	PullRequests []eventPR `json:"pull_requests"`
	HeadRepo     *struct {
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"head_repository"`
}

// PullRequestFromEvent reads the pull request of this run from the event
// file (GITHUB_EVENT_PATH) and GITHUB_REPOSITORY.
//
// pull_request (and pull_request_target) events carry it directly. A
// workflow_run event (the comment workflow that runs after a pull request's
// check) carries the triggering run's head: its pull_requests list is empty
// for pull requests from forks, so the open pull request whose head is that
// branch at that exact commit is looked up with client (which may be nil when
// the event names the pull request itself). The number is never taken from
// the check's uploaded artifact: that is the pull request author's data.
func PullRequestFromEvent(ctx context.Context, getenv Getenv, client *gh.Client) (*PullRequest, error) {
	repo, err := RepoFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	path := getenv.get("GITHUB_EVENT_PATH")
	if path == "" {
		return nil, errors.New("GITHUB_EVENT_PATH is not set: not running in GitHub Actions")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the event file: %w", err)
	}
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("event file %s: %w", path, err)
	}
	switch {
	case ev.PullRequest != nil:
		n := ev.PullRequest.Number
		if n == 0 {
			n = ev.Number
		}
		if n <= 0 {
			return nil, fmt.Errorf("event file %s: pull_request has no number", path)
		}
		return &PullRequest{Repo: repo, Number: n, BaseSHA: ev.PullRequest.Base.SHA, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.WorkflowRun != nil:
		return prOfRun(ctx, repo, ev.WorkflowRun, client)
	}
	return nil, ErrNoPullRequest
}

func prOfRun(ctx context.Context, repo Repo, run *workflowRun, client *gh.Client) (*PullRequest, error) {
	if run.Event != "pull_request" {
		return nil, fmt.Errorf("%w: the triggering run was a %q event", ErrNoPullRequest, run.Event)
	}
	for _, p := range run.PullRequests {
		if p.Number > 0 && p.Head.SHA == run.HeadSHA {
			return &PullRequest{Repo: repo, Number: p.Number, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA}, nil
		}
	}
	if client == nil || run.HeadRepo == nil || run.HeadBranch == "" || run.HeadSHA == "" {
		return nil, fmt.Errorf("%w: the triggering run names no pull request", ErrNoPullRequest)
	}
	opts := &gh.PullRequestListOptions{State: "open", Head: run.HeadRepo.Owner.Login + ":" + run.HeadBranch, ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		prs, resp, err := client.PullRequests.List(ctx, repo.Owner, repo.Name, opts)
		if err != nil {
			return nil, apiErr("listing pull requests", err)
		}
		for _, p := range prs {
			if p.GetHead().GetSHA() == run.HeadSHA {
				return &PullRequest{Repo: repo, Number: p.GetNumber(), BaseSHA: p.GetBase().GetSHA(), HeadSHA: run.HeadSHA}, nil
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return nil, fmt.Errorf("%w: no open pull request has head %s:%s at %s", ErrNoPullRequest, run.HeadRepo.Owner.Login, run.HeadBranch, run.HeadSHA)
}

// RunURL is the web address of this workflow run (where its job summary is
// shown), or "" outside Actions.
func RunURL(getenv Getenv) string {
	server, repo, id := getenv.get("GITHUB_SERVER_URL"), getenv.get("GITHUB_REPOSITORY"), getenv.get("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	return strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + id
}

// apiErr names what was being done and marks 401/403 with ErrForbidden.
func apiErr(doing string, err error) error {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusForbidden, http.StatusUnauthorized:
			return fmt.Errorf("%s: %w (HTTP %d: %s; a pull request from a fork gets a read-only token)", doing, ErrForbidden, er.Response.StatusCode, er.Message)
		}
		return fmt.Errorf("%s: HTTP %d: %s", doing, er.Response.StatusCode, er.Message)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// isNotFound reports a 404 answer.
func isNotFound(err error) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}
