package github

import (
	"context"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// PRDetails is a pull request with what its history needs beyond PR: when it was opened and
// whether it was merged.
type PRDetails struct {
	PR
	CreatedAt time.Time
	// UpdatedAt is GitHub's updated_at: the latest push, review, comment, merge or edit. A
	// cache of the pull request's history is current while it has not moved.
	UpdatedAt time.Time
	// Merged is set once the pull request was merged; HeadSHA is then the merged head.
	Merged         bool
	MergedAt       time.Time
	MergeCommitSHA string // the merge (or squash) commit on the base branch; "" when not merged
}

// User is an account as a review, comment or pull request names it.
type User struct {
	Login string
	Type  string // "User", "Bot" (a GitHub App), "Organization"; "" when GitHub did not say
}

// Bot reports whether GitHub marks the account as an app's bot: type "Bot", or a login ending
// in "[bot]". AI reviewers that post as ordinary users are not recognised here.
func (u User) Bot() bool {
	return strings.EqualFold(u.Type, "Bot") || strings.HasSuffix(strings.ToLower(u.Login), "[bot]")
}

// HistoryReview is a submitted (or, to its own author, pending) review with its author's
// account type.
type HistoryReview struct {
	Review
	UserType string
}

// HistoryComment is an inline review comment with where it was first made: the commit and
// lines it was written against, which stay put when later pushes move or outdate it.
type HistoryComment struct {
	ReviewComment
	UserType          string
	OriginalCommitID  string
	OriginalStartLine int // first line of a multi-line range at OriginalCommitID; 0 for one line
	// DiffHunk is the diff GitHub shows above the comment, ending at its line.
	DiffHunk string
}

// History is everything a pull request's review left behind: the pull request, every review
// and inline comment (replies included), and the review threads with their resolution.
type History struct {
	PR       PRDetails
	Reviews  []HistoryReview
	Comments []HistoryComment
	Threads  []Thread // nil when the pull request has no inline comments
}

// PullRequestDetails reads a pull request with its creation and merge state.
func (c *Client) PullRequestDetails(ctx context.Context, owner, repo string, n int) (PRDetails, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return PRDetails{}, err
	}
	p, _, err := c.gh.PullRequests.Get(ctx, owner, repo, n)
	if err != nil {
		return PRDetails{}, fmt.Errorf("get pull request %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	return prDetails(p, owner, repo), nil
}

// prDetails converts what the get and list endpoints return. The list leaves "merged" out:
// merged_at is what both carry.
func prDetails(p *gh.PullRequest, owner, repo string) PRDetails {
	return PRDetails{
		PR:        pullRequest(p, owner, repo),
		CreatedAt: p.GetCreatedAt().Time, UpdatedAt: p.GetUpdatedAt().Time,
		Merged:   p.GetMerged() || !p.GetMergedAt().IsZero(),
		MergedAt: p.GetMergedAt().Time, MergeCommitSHA: mergeCommit(p),
	}
}

// mergeCommit is merge_commit_sha once merged; before that GitHub fills it with a test merge
// that is not the pull request's.
func mergeCommit(p *gh.PullRequest) string {
	if p.GetMerged() || !p.GetMergedAt().IsZero() {
		return p.GetMergeCommitSHA()
	}
	return ""
}

// ListPullRequests calls each with the pull requests of owner/repo in every state, newest
// first (by creation), a page at a time, until each returns false or the list ends. Only the
// pages needed are read: a caller after the pull requests of the last month stops early.
func (c *Client) ListPullRequests(ctx context.Context, owner, repo string, each func(PRDetails) (bool, error)) error {
	if err := checkRepo(owner, repo); err != nil {
		return err
	}
	opt := &gh.PullRequestListOptions{State: "all", Sort: "created", Direction: "desc", ListOptions: gh.ListOptions{PerPage: perPage}}
	for {
		page, resp, err := c.gh.PullRequests.List(ctx, owner, repo, opt)
		if err != nil {
			return fmt.Errorf("list pull requests of %s/%s: %w", owner, repo, c.convert(err))
		}
		for _, p := range page {
			more, err := each(prDetails(p, owner, repo))
			if err != nil || !more {
				return err
			}
		}
		if resp == nil || resp.NextPage <= opt.Page {
			return nil
		}
		opt.Page = resp.NextPage
	}
}

// History reads a pull request's review history: the pull request, its reviews and inline
// comments (every page), and, when it has inline comments, its review threads.
func (c *Client) History(ctx context.Context, owner, repo string, n int) (History, error) {
	var h History
	var err error
	if h.PR, err = c.PullRequestDetails(ctx, owner, repo, n); err != nil {
		return History{}, err
	}
	reviews, err := allPages(func(o gh.ListOptions) ([]*gh.PullRequestReview, *gh.Response, error) {
		return c.gh.PullRequests.ListReviews(ctx, owner, repo, n, &o)
	})
	if err != nil {
		return History{}, fmt.Errorf("list reviews of %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	for _, r := range reviews {
		h.Reviews = append(h.Reviews, HistoryReview{Review: review(r), UserType: r.GetUser().GetType()})
	}
	comments, err := allPages(func(o gh.ListOptions) ([]*gh.PullRequestComment, *gh.Response, error) {
		return c.gh.PullRequests.ListComments(ctx, owner, repo, n, &gh.PullRequestListCommentsOptions{ListOptions: o})
	})
	if err != nil {
		return History{}, fmt.Errorf("list review comments of %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	for _, cm := range comments {
		h.Comments = append(h.Comments, HistoryComment{
			ReviewComment: reviewComment(cm), UserType: cm.GetUser().GetType(),
			OriginalCommitID: cm.GetOriginalCommitID(), OriginalStartLine: cm.GetOriginalStartLine(),
			DiffHunk: cm.GetDiffHunk(),
		})
	}
	// Threads come from GraphQL, one more request per 100: only worth it when there are any.
	if len(h.Comments) > 0 {
		if h.Threads, err = c.ReviewThreads(ctx, owner, repo, n); err != nil {
			return History{}, err
		}
	}
	return h, nil
}
