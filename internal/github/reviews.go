package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// Review events.
const (
	EventComment        = "COMMENT"
	EventApprove        = "APPROVE"
	EventRequestChanges = "REQUEST_CHANGES"
)

// Diff sides of a review comment.
const (
	SideRight = "RIGHT" // the new file: added and context lines
	SideLeft  = "LEFT"  // the old file: deleted lines
)

// ReviewRequest is a review to post: a body and inline comments, all at once.
type ReviewRequest struct {
	// CommitID is the commit the comments' line numbers refer to: the head SHA the diff was
	// read at. Empty means the pull request's current head, which is only right if nothing was
	// pushed since the diff was read.
	CommitID string
	Body     string
	Event    string // EventComment when empty
	// Comments are anchored by Path, Line and Side, and for a range StartLine and StartSide;
	// only those fields and Body are sent.
	Comments []ReviewComment
}

// Review is a submitted pull request review.
type Review struct {
	ID          int64
	HTMLURL     string
	Body        string
	State       string // COMMENTED, APPROVED, CHANGES_REQUESTED, DISMISSED, PENDING
	User        string
	CommitID    string
	SubmittedAt time.Time
}

// ReviewComment is an inline comment of a review. To post one, set Path, Body, Line, Side and,
// for a range, StartLine and StartSide; the other fields are what GitHub reports back.
type ReviewComment struct {
	Path      string
	Body      string
	Line      int    // last line of the range; 0 when GitHub no longer places it (outdated)
	StartLine int    // first line of a multi-line range; 0 for a single line
	Side      string // SideRight or SideLeft; SideRight when empty
	StartSide string // side of StartLine; Side when empty

	ID           int64
	ReviewID     int64
	OriginalLine int // the line as first posted, at OriginalCommitID
	CommitID     string
	InReplyTo    int64 // the comment this one answers; 0 for the first comment of a thread
	User         string
	Reactions    Reactions
	HTMLURL      string
	CreatedAt    time.Time
}

// Reactions counts the reactions on a comment.
type Reactions struct {
	PlusOne, MinusOne int
	Total             int
}

// CreateReview posts a review with its inline comments in one request, so that they appear
// together and a refusal (422: a comment outside the diff) posts nothing.
func (c *Client) CreateReview(ctx context.Context, owner, repo string, n int, r ReviewRequest) (Review, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return Review{}, err
	}
	event := r.Event
	if event == "" {
		event = EventComment
	}
	switch event {
	case EventComment, EventApprove, EventRequestChanges:
	default:
		return Review{}, fmt.Errorf("github: review event %q is not one of %s, %s, %s", r.Event, EventComment, EventApprove, EventRequestChanges)
	}
	req := &gh.PullRequestReviewRequest{Event: new(event), Body: new(r.Body)}
	if r.CommitID != "" {
		req.CommitID = new(r.CommitID)
	}
	for i, cm := range r.Comments {
		d, err := draft(cm)
		if err != nil {
			return Review{}, fmt.Errorf("github: review comment %d: %w", i+1, err)
		}
		req.Comments = append(req.Comments, d)
	}
	rv, _, err := c.gh.PullRequests.CreateReview(ctx, owner, repo, n, req)
	if err != nil {
		return Review{}, fmt.Errorf("create review on %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	return review(rv), nil
}

// draft checks the fields GitHub cannot do without and fills the defaults; whether the lines
// are in the diff is GitHub's to say.
func draft(cm ReviewComment) (*gh.DraftReviewComment, error) {
	if cm.Path == "" {
		return nil, fmt.Errorf("no path")
	}
	if cm.Body == "" {
		return nil, fmt.Errorf("%s: empty body", cm.Path)
	}
	if cm.Line <= 0 {
		return nil, fmt.Errorf("%s: line %d is not a line number", cm.Path, cm.Line)
	}
	side := cm.Side
	if side == "" {
		side = SideRight
	}
	if side != SideRight && side != SideLeft {
		return nil, fmt.Errorf("%s:%d: side %q is not %s or %s", cm.Path, cm.Line, cm.Side, SideRight, SideLeft)
	}
	d := &gh.DraftReviewComment{Path: new(cm.Path), Body: new(cm.Body), Line: new(cm.Line), Side: new(side)}
	if cm.StartLine != 0 {
		startSide := cm.StartSide
		if startSide == "" {
			startSide = side
		}
		if startSide != SideRight && startSide != SideLeft {
			return nil, fmt.Errorf("%s:%d: start side %q is not %s or %s", cm.Path, cm.Line, cm.StartSide, SideRight, SideLeft)
		}
		d.StartLine, d.StartSide = new(cm.StartLine), new(startSide)
	}
	return d, nil
}

// Reviews lists every review of a pull request, oldest first.
func (c *Client) Reviews(ctx context.Context, owner, repo string, n int) ([]Review, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return nil, err
	}
	all, err := allPages(func(o gh.ListOptions) ([]*gh.PullRequestReview, *gh.Response, error) {
		return c.gh.PullRequests.ListReviews(ctx, owner, repo, n, &o)
	})
	if err != nil {
		return nil, fmt.Errorf("list reviews of %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	out := make([]Review, 0, len(all))
	for _, r := range all {
		out = append(out, review(r))
	}
	return out, nil
}

func review(r *gh.PullRequestReview) Review {
	return Review{
		ID: r.GetID(), HTMLURL: r.GetHTMLURL(), Body: r.GetBody(), State: r.GetState(),
		User: r.GetUser().GetLogin(), CommitID: r.GetCommitID(), SubmittedAt: r.GetSubmittedAt().Time,
	}
}

// ReviewComments lists every inline comment of a pull request, replies included, oldest first.
func (c *Client) ReviewComments(ctx context.Context, owner, repo string, n int) ([]ReviewComment, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return nil, err
	}
	all, err := allPages(func(o gh.ListOptions) ([]*gh.PullRequestComment, *gh.Response, error) {
		return c.gh.PullRequests.ListComments(ctx, owner, repo, n, &gh.PullRequestListCommentsOptions{ListOptions: o})
	})
	if err != nil {
		return nil, fmt.Errorf("list review comments of %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	out := make([]ReviewComment, 0, len(all))
	for _, cm := range all {
		out = append(out, reviewComment(cm))
	}
	return out, nil
}

func reviewComment(cm *gh.PullRequestComment) ReviewComment {
	r := cm.GetReactions()
	return ReviewComment{
		Path: cm.GetPath(), Body: cm.GetBody(), Line: cm.GetLine(), StartLine: cm.GetStartLine(),
		Side: cm.GetSide(), StartSide: cm.GetStartSide(),
		ID: cm.GetID(), ReviewID: cm.GetPullRequestReviewID(), OriginalLine: cm.GetOriginalLine(),
		CommitID: cm.GetCommitID(), InReplyTo: cm.GetInReplyTo(), User: cm.GetUser().GetLogin(),
		Reactions: Reactions{PlusOne: r.GetPlusOne(), MinusOne: r.GetMinusOne(), Total: r.GetTotalCount()},
		HTMLURL:   cm.GetHTMLURL(), CreatedAt: cm.GetCreatedAt().Time,
	}
}

// ReplyToReviewComment answers an inline comment in its thread.
func (c *Client) ReplyToReviewComment(ctx context.Context, owner, repo string, n int, commentID int64, body string) (ReviewComment, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return ReviewComment{}, err
	}
	if body == "" {
		return ReviewComment{}, fmt.Errorf("github: reply to review comment %d: empty body", commentID)
	}
	cm, _, err := c.gh.PullRequests.CreateCommentInReplyTo(ctx, owner, repo, n, body, commentID)
	if err != nil {
		return ReviewComment{}, fmt.Errorf("reply to review comment %d on %s/%s#%d: %w", commentID, owner, repo, n, c.convert(err))
	}
	return reviewComment(cm), nil
}
