package github_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

func TestCommentReactions(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithMaxPerPage(2))
	ctx := context.Background()
	first, second := postThreads(t, b)
	for _, r := range []struct{ login, content string }{
		{"alice", "+1"}, {"bob", "+1"}, {"carol", "-1"}, {"alice", "heart"}, {"alice", "+1"}, // the last one again: kept once
	} {
		b.srv.AddReaction(owner, repo, first, r.login, r.content)
	}

	before := b.c.Requests()
	got, err := b.c.CommentReactions(ctx, owner, repo, first)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"+1": 2, "-1": 1, "heart": 1}, got); d != "" {
		t.Errorf("CommentReactions (-want +got):\n%s", d)
	}
	if n := b.c.Requests() - before; n != 2 {
		t.Errorf("Requests() grew by %d, want 2 (4 reactions, 2 a page)", n)
	}
	// The comment's own summary agrees.
	cs, err := b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if r := cs[0].Reactions; r.PlusOne != 2 || r.MinusOne != 1 || r.Total != 4 {
		t.Errorf("the comment's reactions %+v, want +1 2, -1 1, total 4", r)
	}

	got, err = b.c.CommentReactions(ctx, owner, repo, second)
	if err != nil || len(got) != 0 {
		t.Errorf("no reactions: %v, %v", got, err)
	}
	if _, err := b.c.CommentReactions(ctx, owner, repo, 999999); !github.IsNotFound(err) {
		t.Errorf("an unknown comment: %v, want a 404", err)
	}
	if _, err := b.c.CommentReactions(ctx, owner, repo, 0); err == nil {
		t.Error("comment id 0: no error")
	}
}

// TestCommentReactionsContent checks the fake's rule on the content filter: a value GitHub
// does not know is a 422, a known one keeps that kind.
func TestCommentReactionsContent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first, _ := postThreads(t, b)
	b.srv.AddReaction(owner, repo, first, "alice", "+1")
	b.srv.AddReaction(owner, repo, first, "bob", "eyes")
	get := func(q string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, b.srv.URL+"/repos/acme/widget/pulls/comments/"+itoa(first)+"/reactions"+q, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+writeToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get("?content=thumbsup"); s != http.StatusUnprocessableEntity {
		t.Errorf("content=thumbsup: %d, want 422", s)
	}
	if s := get("?content=eyes"); s != http.StatusOK {
		t.Errorf("content=eyes: %d, want 200", s)
	}
}
