package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v93/github"
)

// CommentReactions counts the reactions to a pull request review comment by content ("+1",
// "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"), reading every page. A
// comment nobody reacted to gives an empty map. It needs pull_requests:read.
// https://docs.github.com/rest/reactions/reactions#list-reactions-for-a-pull-request-review-comment
func (c *Client) CommentReactions(ctx context.Context, owner, repo string, commentID int64) (map[string]int, error) {
	if err := checkRepo(owner, repo); err != nil {
		return nil, err
	}
	if commentID <= 0 {
		return nil, fmt.Errorf("github: %d is not a review comment id", commentID)
	}
	all, err := allPages(func(o gh.ListOptions) ([]*gh.Reaction, *gh.Response, error) {
		return c.gh.Reactions.ListPullRequestCommentReactions(ctx, owner, repo, commentID, &gh.ListReactionOptions{ListOptions: o})
	})
	if err != nil {
		return nil, fmt.Errorf("list reactions to review comment %d in %s/%s: %w", commentID, owner, repo, c.convert(err))
	}
	out := map[string]int{}
	for _, r := range all {
		if k := r.GetContent(); k != "" {
			out[k]++
		}
	}
	return out, nil
}
