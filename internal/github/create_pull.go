package github

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v93/github"
)

// NewPullRequest is a pull request to open: Head is the branch with the changes, Base the
// branch they go into, both in the repository the pull request is opened on.
type NewPullRequest struct {
	Title, Body string
	Head, Base  string
}

// CreatePullRequest opens a pull request. GitHub refuses (422, IsUnprocessable) a head or base
// branch that does not exist, a head with no commits over the base, and a second open pull
// request for the same head and base; FindPullRequest finds that one.
func (c *Client) CreatePullRequest(ctx context.Context, owner, repo string, p NewPullRequest) (PR, error) {
	if err := checkRepo(owner, repo); err != nil {
		return PR{}, err
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"title", p.Title}, {"head", p.Head}, {"base", p.Base}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return PR{}, fmt.Errorf("github: new pull request on %s/%s: no %s", owner, repo, strings.Join(missing, " or "))
	}
	np := gh.CreatePullRequest{Title: new(p.Title), Head: p.Head, Base: p.Base}
	if p.Body != "" {
		np.Body = new(p.Body)
	}
	got, _, err := c.gh.PullRequests.Create(ctx, owner, repo, np)
	if err != nil {
		return PR{}, fmt.Errorf("open pull request %s -> %s on %s/%s: %w", p.Head, p.Base, owner, repo, c.convert(err))
	}
	return pullRequest(got, owner, repo), nil
}

// FindPullRequest finds the open pull request from branch head into branch base of
// owner/repo; false when there is none. head is a branch of owner/repo, or "user:branch" for
// a fork's. GitHub allows one open pull request per head and base, so there is at most one.
func (c *Client) FindPullRequest(ctx context.Context, owner, repo, head, base string) (PR, bool, error) {
	if err := checkRepo(owner, repo); err != nil {
		return PR{}, false, err
	}
	if head == "" || base == "" {
		return PR{}, false, errors.New("github: find pull request: head and base branches are both needed")
	}
	// GitHub ignores a head filter without its "user:" prefix and lists every open pull
	// request: always send the qualified form.
	if !strings.Contains(head, ":") {
		head = owner + ":" + head
	}
	wantUser, wantBranch, _ := strings.Cut(head, ":")
	prs, _, err := c.gh.PullRequests.List(ctx, owner, repo, &gh.PullRequestListOptions{
		State: "open", Head: head, Base: base, ListOptions: gh.ListOptions{PerPage: perPage},
	})
	if err != nil {
		return PR{}, false, fmt.Errorf("find pull request %s -> %s on %s/%s: %w", head, base, owner, repo, c.convert(err))
	}
	for _, p := range prs {
		// Check the answer too: a filter the server dropped would otherwise hand back some
		// other pull request.
		user, branch, _ := strings.Cut(p.GetHead().GetLabel(), ":")
		if p.GetState() == "open" && p.GetBase().GetRef() == base && strings.EqualFold(user, wantUser) && branch == wantBranch {
			return pullRequest(p, owner, repo), true, nil
		}
	}
	return PR{}, false, nil
}
