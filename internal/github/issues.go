package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// IssueComment is a comment on a pull request's conversation (not on a line).
type IssueComment struct {
	ID        int64
	Body      string
	User      string
	HTMLURL   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IssueComments lists every conversation comment of a pull request (or issue), oldest first.
func (c *Client) IssueComments(ctx context.Context, owner, repo string, n int) ([]IssueComment, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return nil, err
	}
	all, err := allPages(func(o gh.ListOptions) ([]*gh.IssueComment, *gh.Response, error) {
		return c.gh.Issues.ListComments(ctx, owner, repo, n, &gh.IssueListCommentsOptions{ListOptions: o})
	})
	if err != nil {
		return nil, fmt.Errorf("list comments of %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	out := make([]IssueComment, 0, len(all))
	for _, cm := range all {
		out = append(out, issueComment(cm))
	}
	return out, nil
}

// CreateIssueComment posts a conversation comment on a pull request (or issue).
func (c *Client) CreateIssueComment(ctx context.Context, owner, repo string, n int, body string) (IssueComment, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return IssueComment{}, err
	}
	if body == "" {
		return IssueComment{}, fmt.Errorf("github: comment on %s/%s#%d: empty body", owner, repo, n)
	}
	cm, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, n, gh.IssueCommentRequest{Body: body})
	if err != nil {
		return IssueComment{}, fmt.Errorf("comment on %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	return issueComment(cm), nil
}

// EditIssueComment replaces the body of a conversation comment (a summary updated on each
// push, say).
func (c *Client) EditIssueComment(ctx context.Context, owner, repo string, commentID int64, body string) (IssueComment, error) {
	if err := checkRepo(owner, repo); err != nil {
		return IssueComment{}, err
	}
	if body == "" {
		return IssueComment{}, fmt.Errorf("github: edit comment %d in %s/%s: empty body", commentID, owner, repo)
	}
	cm, _, err := c.gh.Issues.UpdateComment(ctx, owner, repo, commentID, gh.IssueCommentRequest{Body: body})
	if err != nil {
		return IssueComment{}, fmt.Errorf("edit comment %d in %s/%s: %w", commentID, owner, repo, c.convert(err))
	}
	return issueComment(cm), nil
}

func issueComment(cm *gh.IssueComment) IssueComment {
	return IssueComment{
		ID: cm.GetID(), Body: cm.GetBody(), User: cm.GetUser().GetLogin(), HTMLURL: cm.GetHTMLURL(),
		CreatedAt: cm.GetCreatedAt().Time, UpdatedAt: cm.GetUpdatedAt().Time,
	}
}
