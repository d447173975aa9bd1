package github_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

func TestCreateReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rv, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
		CommitID: headSHA,
		Body:     "🔎 Council · Correctness",
		Comments: []github.ReviewComment{
			{Path: "main.go", Line: 4, Body: "os is unused"},
			{Path: "main.go", StartLine: 22, Line: 23, Body: "c is never read"},
			{Path: "main.go", Line: 21, Side: github.SideLeft, Body: "why drop b := 2?"},
			{Path: "old.txt", Line: 1, Side: github.SideLeft, Body: "still referenced"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rv.ID == 0 || !strings.HasSuffix(rv.HTMLURL, "/acme/widget/pull/7#pullrequestreview-"+itoa(rv.ID)) {
		t.Errorf("review = %+v, want an id and its html_url", rv)
	}
	if rv.State != "COMMENTED" || rv.User != githubtest.DefaultLogin || rv.CommitID != headSHA {
		t.Errorf("review = %+v, want COMMENTED by %s at %s", rv, githubtest.DefaultLogin, headSHA)
	}

	got, err := b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	want := []github.ReviewComment{
		{Path: "main.go", Line: 4, Side: "RIGHT", Body: "os is unused", OriginalLine: 4},
		{Path: "main.go", StartLine: 22, Line: 23, Side: "RIGHT", StartSide: "RIGHT", Body: "c is never read", OriginalLine: 23},
		{Path: "main.go", Line: 21, Side: "LEFT", Body: "why drop b := 2?", OriginalLine: 21},
		{Path: "old.txt", Line: 1, Side: "LEFT", Body: "still referenced", OriginalLine: 1},
	}
	for i := range want {
		want[i].ReviewID, want[i].CommitID, want[i].User = rv.ID, headSHA, githubtest.DefaultLogin
	}
	ignore := cmpopts.IgnoreFields(github.ReviewComment{}, "ID", "HTMLURL", "CreatedAt")
	if d := cmp.Diff(want, got, ignore); d != "" {
		t.Errorf("ReviewComments (-want +got):\n%s", d)
	}
	for _, c := range got {
		if c.ID == 0 || !strings.HasSuffix(c.HTMLURL, "#discussion_r"+itoa(c.ID)) {
			t.Errorf("comment %+v: want an id and its html_url", c)
		}
	}
}

func TestCreateReviewRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		req     github.ReviewRequest
		wantMsg string
	}{
		{
			name:    "line outside the diff",
			req:     github.ReviewRequest{Comments: []github.ReviewComment{{Path: "main.go", Line: 12, Body: "x"}}},
			wantMsg: "Pull request review thread line must be part of the diff",
		},
		{
			name:    "deleted line on the right",
			req:     github.ReviewRequest{Comments: []github.ReviewComment{{Path: "old.txt", Line: 1, Body: "x"}}},
			wantMsg: "Pull request review thread line must be part of the diff",
		},
		{
			name:    "range across hunks",
			req:     github.ReviewRequest{Comments: []github.ReviewComment{{Path: "main.go", StartLine: 5, Line: 22, Body: "x"}}},
			wantMsg: "start line must be part of the same hunk as the line",
		},
		{
			name:    "start line equal to line",
			req:     github.ReviewRequest{Comments: []github.ReviewComment{{Path: "main.go", StartLine: 22, Line: 22, Body: "x"}}},
			wantMsg: "start line must precede the end line",
		},
		{
			name:    "start line after line",
			req:     github.ReviewRequest{Comments: []github.ReviewComment{{Path: "main.go", StartLine: 23, Line: 22, Body: "x"}}},
			wantMsg: "start line must precede the end line",
		},
		{
			name:    "path not in the diff",
			req:     github.ReviewRequest{Comments: []github.ReviewComment{{Path: "other.go", Line: 1, Body: "x"}}},
			wantMsg: "Path could not be resolved",
		},
		{
			name: "commit not of the pull request",
			req: github.ReviewRequest{
				CommitID: "dddddddddddddddddddddddddddddddddddddddd",
				Comments: []github.ReviewComment{{Path: "main.go", Line: 4, Body: "x"}},
			},
			wantMsg: "The commitOID is not part of the pull request",
		},
		{
			name: "one bad comment among good ones",
			req: github.ReviewRequest{Body: "b", Comments: []github.ReviewComment{
				{Path: "main.go", Line: 4, Body: "fine"},
				{Path: "new.txt", Line: 3, Body: "past the end"},
			}},
			wantMsg: "must be part of the diff",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			_, err := b.c.CreateReview(ctx, owner, repo, prNum, tt.req)
			if !github.IsUnprocessable(err) {
				t.Fatalf("err = %v, want a 422", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), "every comment must sit on a line") {
				t.Errorf("err = %q, want GitHub's %q and a hint", err, tt.wantMsg)
			}
			if rs, _ := b.c.Reviews(ctx, owner, repo, prNum); len(rs) != 0 {
				t.Errorf("a refused review was stored: %+v", rs)
			}
		})
	}
}

func TestCreateReviewChecksLocally(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for name, req := range map[string]github.ReviewRequest{
		"bad event":  {Event: "MERGE"},
		"no path":    {Comments: []github.ReviewComment{{Line: 1, Body: "x"}}},
		"no body":    {Comments: []github.ReviewComment{{Path: "main.go", Line: 4}}},
		"no line":    {Comments: []github.ReviewComment{{Path: "main.go", Body: "x"}}},
		"bad side":   {Comments: []github.ReviewComment{{Path: "main.go", Line: 4, Side: "UP", Body: "x"}}},
		"bad s.side": {Comments: []github.ReviewComment{{Path: "main.go", Line: 4, StartLine: 3, StartSide: "UP", Body: "x"}}},
	} {
		if _, err := b.c.CreateReview(context.Background(), owner, repo, prNum, req); err == nil {
			t.Errorf("%s: CreateReview succeeded", name)
		}
	}
	if n := b.srv.Requests(); n != 0 {
		t.Errorf("%d requests sent for malformed reviews, want 0", n)
	}
}

func TestReviewAfterPush(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
		CommitID: headSHA, Body: "first",
		Comments: []github.ReviewComment{
			{Path: "main.go", Line: 4, Body: "on import os"},
			{Path: "main.go", Line: 23, Body: "on c := 4"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The push drops c := 4: the comment on it becomes outdated; import "os" stays.
	pushed := strings.Replace(strings.Replace(patch, "+\tc := 4\n", "", 1), "@@ -20,4 +21,5 @@", "@@ -20,4 +21,4 @@", 1)
	const newHead = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
	b.srv.SetHead(owner, repo, prNum, newHead, pushed)

	// A review at the old head is still accepted against the old diff.
	if _, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
		CommitID: headSHA, Body: "late", Comments: []github.ReviewComment{{Path: "main.go", Line: 23, Body: "old diff"}},
	}); err != nil {
		t.Errorf("review at an earlier head of the PR: %v", err)
	}
	// Without a commit id it is the new head's diff, where line 25 no longer exists.
	if _, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
		Body: "new", Comments: []github.ReviewComment{{Path: "main.go", Line: 25, Body: "gone"}},
	}); !github.IsUnprocessable(err) {
		t.Errorf("err = %v, want a 422 against the new head", err)
	}

	got, err := b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	type pos struct {
		Review             int64
		Line, OriginalLine int
		CommitID           string
	}
	var gotPos []pos
	for _, c := range got {
		if c.ReviewID == first.ID {
			gotPos = append(gotPos, pos{c.ReviewID, c.Line, c.OriginalLine, c.CommitID})
		}
	}
	want := []pos{{first.ID, 4, 4, newHead}, {first.ID, 0, 23, headSHA}}
	if d := cmp.Diff(want, gotPos); d != "" {
		t.Errorf("comments after the push (-want +got):\n%s", d)
	}
}

func TestReviewsRepliesReactions(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithMaxPerPage(2))
	ctx := context.Background()
	for i := range 3 {
		_, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
			Body: "review " + itoa(int64(i)), Comments: []github.ReviewComment{{Path: "new.txt", Line: 1, Body: "c" + itoa(int64(i))}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	comments, err := b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 3 {
		t.Fatalf("%d comments, want 3", len(comments))
	}
	target := comments[1].ID
	b.srv.SetReaction(target, "-1")
	b.srv.SetReaction(target, "-1")
	b.srv.SetReaction(target, "+1")
	b.srv.SetReaction(target, "eyes")

	reply, err := b.c.ReplyToReviewComment(ctx, owner, repo, prNum, target, "fixed, thanks")
	if err != nil {
		t.Fatal(err)
	}
	if reply.InReplyTo != target || reply.Path != "new.txt" || reply.Line != 1 {
		t.Errorf("reply = %+v, want in reply to %d on new.txt:1", reply, target)
	}

	reviews, err := b.c.Reviews(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, r := range reviews {
		bodies = append(bodies, r.Body)
	}
	// A reply is a review of its own, with an empty body, as on GitHub.
	if d := cmp.Diff([]string{"review 0", "review 1", "review 2", ""}, bodies); d != "" {
		t.Errorf("reviews (-want +got):\n%s", d)
	}

	comments, err = b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 4 {
		t.Fatalf("%d comments after the reply, want 4", len(comments))
	}
	if got, want := comments[1].Reactions, (github.Reactions{PlusOne: 1, MinusOne: 2, Total: 4}); got != want {
		t.Errorf("reactions = %+v, want %+v", got, want)
	}
	if comments[3].InReplyTo != target {
		t.Errorf("last comment = %+v, want the reply", comments[3])
	}
	// 3 reviews and 4 comments at 2 a page: 2 pages each for the listings above.
	if got := b.srv.Count("GET", "/repos/acme/widget/pulls/7/comments"); got != 4 {
		t.Errorf("%d requests for two listings of 3 and 4 comments at 2 a page, want 4", got)
	}
}

func TestIssueComments(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithMaxPerPage(1))
	ctx := context.Background()
	first, err := b.c.CreateIssueComment(ctx, owner, repo, prNum, "summary v1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.c.CreateIssueComment(ctx, owner, repo, prNum, "other"); err != nil {
		t.Fatal(err)
	}
	edited, err := b.c.EditIssueComment(ctx, owner, repo, first.ID, "summary v2")
	if err != nil {
		t.Fatal(err)
	}
	if edited.ID != first.ID || edited.Body != "summary v2" || !strings.HasSuffix(edited.HTMLURL, "#issuecomment-"+itoa(first.ID)) {
		t.Errorf("edited = %+v", edited)
	}
	all, err := b.c.IssueComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, c := range all {
		bodies = append(bodies, c.Body)
	}
	if d := cmp.Diff([]string{"summary v2", "other"}, bodies); d != "" {
		t.Errorf("IssueComments (-want +got):\n%s", d)
	}
	if _, err := b.c.EditIssueComment(ctx, owner, repo, 999999, "x"); !github.IsNotFound(err) {
		t.Errorf("edit of an unknown comment: err = %v, want a 404", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
