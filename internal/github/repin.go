package github

import (
	"context"
	"fmt"
	"path"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// Defaults for the re-pin pull request.
const (
	DefaultRepinBranch = "mcp-lockcheck/repin"
	DefaultRepinLabel  = "mcp-lockcheck"
)

// RepinPR describes the one pull request a scheduled re-pin keeps open.
type RepinPR struct {
	Repo Repo
	// Base is the branch the pull request targets; "" = the repository's
	// default branch.
	Base string
	// Branch is the fixed head branch (DefaultRepinBranch when ""). It is
	// force-updated to one commit on top of Base on every run, so the pull
	// request always shows exactly one re-pin against the current base.
	Branch string
	// Path is the lockfile's path in the repository ("mcp-lock.json",
	// "sub/dir/mcp-lock.json"), Content its new bytes.
	Path    string
	Content []byte
	// Title and Body of the pull request; CommitMessage of the commit.
	Title, Body, CommitMessage string
	// Labels are added to the pull request (DefaultRepinLabel when nil).
	Labels []string
}

// RepinResult is what OpenRepinPR did.
type RepinResult struct {
	Number  int
	URL     string
	Created bool   // a new pull request was opened (else an open one was updated)
	Commit  string // the commit the branch now points at
}

// OpenRepinPR commits the new lock on top of the base branch through the Git
// Data API (blob, tree, commit, then create or force-update the branch ref)
// and opens the pull request from that branch, or updates the open one, and
// labels it. Nothing touches the local checkout: a scheduled job needs no
// push credentials beyond the API token, and no git identity.
func OpenRepinPR(ctx context.Context, client *gh.Client, p RepinPR) (*RepinResult, error) {
	if p.Branch == "" {
		p.Branch = DefaultRepinBranch
	}
	if p.Labels == nil {
		p.Labels = []string{DefaultRepinLabel}
	}
	clean := path.Clean(p.Path)
	if p.Path == "" || clean != p.Path || path.IsAbs(clean) || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." {
		return nil, fmt.Errorf("lock path %q is not a clean path inside the repository", p.Path)
	}
	o, r := p.Repo.Owner, p.Repo.Name
	if p.Base == "" {
		repo, _, err := client.Repositories.Get(ctx, o, r)
		if err != nil {
			return nil, apiErr("reading the repository's default branch", err)
		}
		p.Base = repo.GetDefaultBranch()
		if p.Base == "" {
			return nil, fmt.Errorf("repository %s has no default branch", p.Repo)
		}
	}
	if p.Base == p.Branch {
		return nil, fmt.Errorf("the re-pin branch %q is the base branch", p.Branch)
	}
	baseRef, _, err := client.Git.GetRef(ctx, o, r, "heads/"+p.Base)
	if err != nil {
		return nil, apiErr("reading branch "+p.Base, err)
	}
	baseSHA := baseRef.GetObject().GetSHA()
	baseCommit, _, err := client.Git.GetCommit(ctx, o, r, baseSHA)
	if err != nil {
		return nil, apiErr("reading commit "+baseSHA, err)
	}
	blob, _, err := client.Git.CreateBlob(ctx, o, r, &gh.Blob{Content: gh.String(string(p.Content)), Encoding: gh.String("utf-8")})
	if err != nil {
		return nil, apiErr("creating the lock blob", err)
	}
	tree, _, err := client.Git.CreateTree(ctx, o, r, baseCommit.GetTree().GetSHA(), []*gh.TreeEntry{{
		Path: gh.String(clean), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: gh.String(blob.GetSHA()),
	}})
	if err != nil {
		return nil, apiErr("creating the tree", err)
	}
	commit, _, err := client.Git.CreateCommit(ctx, o, r, &gh.Commit{
		Message: gh.String(p.CommitMessage),
		Tree:    &gh.Tree{SHA: tree.SHA},
		Parents: []*gh.Commit{{SHA: gh.String(baseSHA)}},
	}, nil)
	if err != nil {
		return nil, apiErr("creating the commit", err)
	}
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + p.Branch), Object: &gh.GitObject{SHA: commit.SHA}}
	if err := setBranch(ctx, client, p, ref); err != nil {
		return nil, err
	}
	res := &RepinResult{Commit: commit.GetSHA()}
	pr, err := openPR(ctx, client, p)
	if err != nil {
		return nil, err
	}
	if pr == nil {
		pr, _, err = client.PullRequests.Create(ctx, o, r, &gh.NewPullRequest{
			Title: gh.String(p.Title), Head: gh.String(p.Branch), Base: gh.String(p.Base), Body: gh.String(p.Body),
		})
		if err != nil {
			return nil, apiErr("opening the pull request", err)
		}
		res.Created = true
	} else {
		pr, _, err = client.PullRequests.Edit(ctx, o, r, pr.GetNumber(), &gh.PullRequest{Title: gh.String(p.Title), Body: gh.String(p.Body)})
		if err != nil {
			return nil, apiErr("updating the pull request", err)
		}
	}
	res.Number, res.URL = pr.GetNumber(), pr.GetHTMLURL()
	if len(p.Labels) > 0 {
		if _, _, err := client.Issues.AddLabelsToIssue(ctx, o, r, res.Number, p.Labels); err != nil {
			return res, apiErr(fmt.Sprintf("labelling pull request #%d", res.Number), err)
		}
	}
	return res, nil
}

// setBranch points the re-pin branch at ref's commit, creating it when it
// does not exist.
func setBranch(ctx context.Context, client *gh.Client, p RepinPR, ref *gh.Reference) error {
	o, r := p.Repo.Owner, p.Repo.Name
	if _, _, err := client.Git.GetRef(ctx, o, r, "heads/"+p.Branch); err != nil {
		if !isNotFound(err) {
			return apiErr("reading branch "+p.Branch, err)
		}
		if _, _, err := client.Git.CreateRef(ctx, o, r, ref); err != nil {
			return apiErr("creating branch "+p.Branch, err)
		}
	} else if _, _, err := client.Git.UpdateRef(ctx, o, r, ref, true); err != nil {
		// Forced: the branch is ours, rebuilt from the base each run.
		return apiErr("updating branch "+p.Branch, err)
	}
	return nil
}

// openPR finds the open pull request from the re-pin branch into the base.
func openPR(ctx context.Context, client *gh.Client, p RepinPR) (*gh.PullRequest, error) {
	opts := &gh.PullRequestListOptions{State: "open", Head: p.Repo.Owner + ":" + p.Branch, Base: p.Base, ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		prs, resp, err := client.PullRequests.List(ctx, p.Repo.Owner, p.Repo.Name, opts)
		if err != nil {
			return nil, apiErr("listing pull requests", err)
		}
		for _, pr := range prs {
			// The API filters by head and base already; checking again keeps
			// a server that ignores the filter from making us edit a
			// stranger's pull request.
			if pr.GetHead().GetLabel() == p.Repo.Owner+":"+p.Branch && pr.GetBase().GetRef() == p.Base && pr.GetState() == "open" {
				return pr, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}
