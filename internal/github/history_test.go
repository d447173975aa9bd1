package github_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

// stepClock is a clock that moves a minute on every reading, so that everything the fake
// stamps has its own time.
func stepClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Minute)
		return t
	}
}

func TestHistory(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithClock(stepClock()),
		githubtest.WithUser("ghs_helperbot", "helper[bot]", githubtest.PullRequestsWrite),
		githubtest.WithUser("ghp_bob", "bob", githubtest.PullRequestsWrite))
	ctx := context.Background()
	bot := b.client(t, github.Options{Token: "ghs_helperbot"})
	bob := b.client(t, github.Options{Token: "ghp_bob"})
	if _, err := bot.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{CommitID: headSHA, Body: "automated"}); err != nil {
		t.Fatal(err)
	}
	rv, err := bob.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
		CommitID: headSHA, Body: "two things", Event: github.EventRequestChanges,
		Comments: []github.ReviewComment{{Path: "main.go", StartLine: 22, Line: 23, Body: "c is never read"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	comments, err := bob.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.c.ReplyToReviewComment(ctx, owner, repo, prNum, comments[0].ID, "fixed"); err != nil {
		t.Fatal(err)
	}
	// A push that rewrites the commented lines, then the merge.
	const newHead = "cccccccccccccccccccccccccccccccccccccccc"
	b.srv.SetHead(owner, repo, prNum, newHead, strings.Replace(patch, "+\tc := 4", "+\td := 4", 1))
	b.srv.MarkMerged(owner, repo, prNum, "dddddddddddddddddddddddddddddddddddddddd")

	h, err := b.c.History(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if !h.PR.Merged || h.PR.HeadSHA != newHead || h.PR.MergeCommitSHA != strings.Repeat("d", 40) || h.PR.State != "closed" {
		t.Errorf("PR = %+v, want merged at %s", h.PR, newHead)
	}
	if h.PR.UpdatedAt.Before(h.PR.MergedAt) {
		t.Errorf("updated %v before merged %v", h.PR.UpdatedAt, h.PR.MergedAt)
	}
	if h.PR.CreatedAt.IsZero() || !h.PR.MergedAt.After(h.PR.CreatedAt) {
		t.Errorf("created %v, merged %v: want both, in that order", h.PR.CreatedAt, h.PR.MergedAt)
	}
	type who struct{ Login, Type, Commit string }
	var reviews []who
	for _, r := range h.Reviews {
		reviews = append(reviews, who{r.User, r.UserType, r.CommitID[:1]})
	}
	wantReviews := []who{{"helper[bot]", "Bot", "a"}, {"bob", "User", "a"}, {githubtest.DefaultLogin, "User", "a"}}
	if d := cmp.Diff(wantReviews, reviews); d != "" {
		t.Errorf("reviews (-want +got):\n%s", d)
	}
	const hunk = "@@ -20,4 +21,5 @@ func helper() {\n \ta := 1\n-\tb := 2\n+\tb := 3\n+\tc := 4"
	want := []github.HistoryComment{
		{
			ReviewComment: github.ReviewComment{
				Path: "main.go", Body: "c is never read", Side: "RIGHT", StartSide: "RIGHT",
				ReviewID: rv.ID, OriginalLine: 23, CommitID: headSHA, User: "bob",
			},
			UserType: "User", OriginalCommitID: headSHA, OriginalStartLine: 22, DiffHunk: hunk,
		},
		{
			ReviewComment: github.ReviewComment{
				Path: "main.go", Body: "fixed", Side: "RIGHT", StartSide: "RIGHT",
				OriginalLine: 23, CommitID: headSHA, InReplyTo: comments[0].ID, User: githubtest.DefaultLogin,
			},
			UserType: "User", OriginalCommitID: headSHA, OriginalStartLine: 22, DiffHunk: hunk,
		},
	}
	ignore := cmpopts.IgnoreFields(github.ReviewComment{}, "ID", "HTMLURL", "CreatedAt", "ReviewID")
	if d := cmp.Diff(want, h.Comments, ignore); d != "" {
		t.Errorf("comments (-want +got):\n%s", d)
	}
	if h.Comments[0].ReviewID != rv.ID {
		t.Errorf("comment of review %d, want %d", h.Comments[0].ReviewID, rv.ID)
	}
	if len(h.Threads) != 1 || h.Threads[0].FirstCommentID != comments[0].ID || !h.Threads[0].Outdated {
		t.Errorf("threads = %+v, want bob's, outdated by the push", h.Threads)
	}
	// The history of a pull request without inline comments asks no GraphQL.
	b.srv.AddPR(owner, repo, githubtest.PR{Number: 8, HeadSHA: "ee"}, patch, nil)
	before := b.srv.Count("POST", githubtest.GraphQLPath)
	if h, err := b.c.History(ctx, owner, repo, 8); err != nil || h.Threads != nil || h.PR.Merged {
		t.Errorf("History of #8 = %+v, %v", h, err)
	}
	if n := b.srv.Count("POST", githubtest.GraphQLPath); n != before {
		t.Errorf("%d GraphQL requests for a pull request without comments", n-before)
	}
}

func TestListPullRequests(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithMaxPerPage(2))
	for n := 8; n <= 12; n++ {
		b.srv.AddPR(owner, repo, githubtest.PR{Number: n, Draft: n == 11, HeadSHA: strings.Repeat("e", 39) + string(rune('0'+n-8))}, patch, nil)
	}
	ctx := context.Background()
	var seen []int
	err := b.c.ListPullRequests(ctx, owner, repo, func(p github.PRDetails) (bool, error) {
		seen = append(seen, p.Number)
		if p.Draft != (p.Number == 11) {
			t.Errorf("#%d: draft %v", p.Number, p.Draft)
		}
		return len(seen) < 3, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{12, 11, 10}, seen); d != "" {
		t.Errorf("listed (-want +got):\n%s", d)
	}
	path := "/repos/acme/widget/pulls"
	if n := b.srv.Count("GET", path); n != 2 {
		t.Errorf("%d pages read, want the 2 that hold the first 3", n)
	}
	for _, r := range b.srv.Log() {
		if r.Path != path {
			continue
		}
		q, _ := url.ParseQuery(r.Query)
		if q.Get("state") != "all" || q.Get("sort") != "created" || q.Get("direction") != "desc" {
			t.Errorf("query %s: want every state, newest first", r.Query)
		}
	}

	seen = nil
	if err := b.c.ListPullRequests(ctx, owner, repo, func(p github.PRDetails) (bool, error) {
		seen = append(seen, p.Number)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{12, 11, 10, 9, 8, 7}, seen); d != "" {
		t.Errorf("listed all (-want +got):\n%s", d)
	}
	if err := b.c.ListPullRequests(ctx, owner, "nothing", func(github.PRDetails) (bool, error) { return true, nil }); !github.IsNotFound(err) {
		t.Errorf("an unknown repository: %v, want a 404", err)
	}
}

func TestUserBot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		u    github.User
		want bool
	}{
		{github.User{Login: "alice", Type: "User"}, false},
		{github.User{Login: "dependabot[bot]"}, true},
		{github.User{Login: "Renovate[BOT]", Type: "User"}, true},
		{github.User{Login: "some-app", Type: "Bot"}, true},
	}
	for _, tt := range tests {
		if got := tt.u.Bot(); got != tt.want {
			t.Errorf("%+v.Bot() = %v, want %v", tt.u, got, tt.want)
		}
	}
}
