package github

import (
	"context"
	"errors"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// UpsertComment makes body the pull request's one mcp-lockcheck comment:
// it edits the comment that carries report.Marker and was written by the
// token's own user, or creates one when there is none, and returns the
// comment's web address.
//
// Only the token's own comments are candidates: anyone can paste the marker
// into a comment, and editing someone else's (or failing to, and giving up)
// must not be how a run reports. The token's login comes from /user; a
// workflow's GITHUB_TOKEN cannot read /user, and its comments are authored by
// github-actions[bot], which is used then.
//
// A clean run edits the comment too, so a pull request that fixed its drift
// does not keep showing the old verdict; the body (report.Write, FormatMarkdown)
// says it is clean.
func UpsertComment(ctx context.Context, client *gh.Client, owner, repo string, pr int, body string) (string, error) {
	if !strings.Contains(body, report.Marker) {
		body = report.Marker + "\n" + body
	}
	me, err := login(ctx, client)
	if err != nil {
		return "", err
	}
	existing, err := findComment(ctx, client, owner, repo, pr, me)
	if err != nil {
		return "", err
	}
	if existing != nil {
		c, _, err := client.Issues.EditComment(ctx, owner, repo, existing.GetID(), &gh.IssueComment{Body: gh.String(body)})
		if err != nil {
			return "", apiErr("editing the pull request comment", err)
		}
		return c.GetHTMLURL(), nil
	}
	c, _, err := client.Issues.CreateComment(ctx, owner, repo, pr, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return "", apiErr("creating the pull request comment", err)
	}
	return c.GetHTMLURL(), nil
}

// login is the token's own user, or ActionsBot when the token cannot read
// /user (an installation token answers 403 "Resource not accessible by
// integration"). Any other failure is an error: guessing the author on a
// network error could make us edit another app's comment.
func login(ctx context.Context, client *gh.Client) (string, error) {
	u, _, err := client.Users.Get(ctx, "")
	if err == nil && u.GetLogin() != "" {
		return u.GetLogin(), nil
	}
	if err != nil {
		if e := apiErr("", err); !errors.Is(e, ErrForbidden) {
			return "", apiErr("reading the token's user", err)
		}
	}
	return ActionsBot, nil
}

// findComment pages through every comment on the pull request (oldest
// first) and returns the first one by author that carries the marker.
func findComment(ctx context.Context, client *gh.Client, owner, repo string, pr int, author string) (*gh.IssueComment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := client.Issues.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return nil, apiErr("listing the pull request's comments", err)
		}
		for _, c := range cs {
			if strings.EqualFold(c.GetUser().GetLogin(), author) && strings.Contains(c.GetBody(), report.Marker) {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}
