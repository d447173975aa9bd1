package github_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

// postThreads posts a review with two comments on main.go (lines 4 and 23) and a reply to the
// first, and returns the ids of the two first comments.
func postThreads(t *testing.T, b *bundle) (first, second int64) {
	t.Helper()
	ctx := context.Background()
	if _, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
		CommitID: headSHA,
		Comments: []github.ReviewComment{
			{Path: "main.go", Line: 4, Body: "os is unused"},
			{Path: "main.go", Line: 23, Body: "c is never read"},
		},
	}); err != nil {
		t.Fatal(err)
	}
	comments, err := b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 2 {
		t.Fatalf("got %d comments, want 2", len(comments))
	}
	if _, err := b.c.ReplyToReviewComment(ctx, owner, repo, prNum, comments[0].ID, "agreed"); err != nil {
		t.Fatal(err)
	}
	return comments[0].ID, comments[1].ID
}

func thread(id int64, resolved, outdated bool) github.Thread {
	return github.Thread{ID: "PRRT_" + itoa(id), Resolved: resolved, Outdated: outdated, FirstCommentID: id}
}

func TestReviewThreads(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, second := postThreads(t, b)

	before := b.c.Requests()
	got, err := b.c.ReviewThreads(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	want := []github.Thread{thread(first, false, false), thread(second, false, false)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReviewThreads (-want +got):\n%s", d)
	}
	if n := b.c.Requests() - before; n != 1 {
		t.Errorf("Requests() grew by %d, want 1", n)
	}
	if n := b.srv.Count("POST", githubtest.GraphQLPath); n != 1 {
		t.Errorf("the fake saw %d POST %s, want 1 (derived from the base URL's /api/v3)", n, githubtest.GraphQLPath)
	}

	// A push that rewrites line 4 outdates the first thread; line 23 reads the same.
	b.srv.SetHead(owner, repo, prNum, "cccccccccccccccccccccccccccccccccccccccc",
		strings.Replace(patch, `+import "os"`, `+import "io"`, 1))
	got, err = b.c.ReviewThreads(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	want = []github.Thread{thread(first, false, true), thread(second, false, false)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReviewThreads after a push (-want +got):\n%s", d)
	}
}

func TestResolveThread(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, second := postThreads(t, b)

	before := b.c.Requests()
	if err := b.c.ResolveThread(ctx, "PRRT_"+itoa(second)); err != nil {
		t.Fatal(err)
	}
	if n := b.c.Requests() - before; n != 1 {
		t.Errorf("Requests() grew by %d, want 1", n)
	}
	if !b.srv.ThreadResolved(second) || b.srv.ThreadResolved(first) {
		t.Errorf("ThreadResolved(first, second) = %v, %v; want false, true",
			b.srv.ThreadResolved(first), b.srv.ThreadResolved(second))
	}
	got, err := b.c.ReviewThreads(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	want := []github.Thread{thread(first, false, false), thread(second, true, false)}
	want[1].ResolvedBy = githubtest.DefaultLogin
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReviewThreads (-want +got):\n%s", d)
	}
	// Someone else resolves the first thread in the web interface.
	b.srv.ResolveThreadAs(first, "alice")
	if got, err = b.c.ReviewThreads(ctx, owner, repo, prNum); err != nil {
		t.Fatal(err)
	}
	want[0].Resolved, want[0].ResolvedBy = true, "alice"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReviewThreads after alice resolved one (-want +got):\n%s", d)
	}
	// Resolving again is what the button does on a resolved thread: nothing.
	if err := b.c.ResolveThread(ctx, "PRRT_"+itoa(second)); err != nil {
		t.Errorf("resolve a resolved thread: %v", err)
	}
}

func TestReviewThreadsPages(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithMaxPerPage(2))
	ctx := context.Background()
	var want []github.Thread
	for _, line := range []int{4, 22, 23} {
		if _, err := b.c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{
			CommitID: headSHA, Comments: []github.ReviewComment{{Path: "main.go", Line: line, Body: "x"}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	comments, err := b.c.ReviewComments(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range comments {
		want = append(want, thread(c.ID, false, false))
	}

	before := b.c.Requests()
	got, err := b.c.ReviewThreads(ctx, owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReviewThreads (-want +got):\n%s", d)
	}
	if n := b.c.Requests() - before; n != 2 {
		t.Errorf("Requests() grew by %d, want 2 pages", n)
	}
}

func TestResolveThreadForbidden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, second := postThreads(t, b)
	ro := b.client(t, github.Options{Token: readToken})

	// Reading needs no write permission.
	if _, err := ro.ReviewThreads(context.Background(), owner, repo, prNum); err != nil {
		t.Fatalf("list with a read-only token: %v", err)
	}
	err := ro.ResolveThread(context.Background(), "PRRT_"+itoa(second))
	var ae *github.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || ae.Message != "Resource not accessible by integration" {
		t.Fatalf("err = %v, want an *APIError 403 with GitHub's message", err)
	}
	if !github.IsAuth(err) || !strings.Contains(err.Error(), "pull_requests:write") ||
		!strings.Contains(err.Error(), "pull-requests: write") {
		t.Errorf("err = %v, want an auth error that names pull_requests:write and the workflow permission", err)
	}
	if b.srv.ThreadResolved(second) {
		t.Error("a read-only token resolved the thread")
	}
}

func TestGraphQLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		token    string
		fail     string // a 200 answer to serve instead of the fake's own
		failHdr  map[string]string
		call     func(*github.Client) error
		check    func(error) bool
		wantText string
	}{
		{
			name: "missing pull request",
			call: func(c *github.Client) error {
				_, err := c.ReviewThreads(context.Background(), owner, repo, 99)
				return err
			},
			check:    github.IsNotFound,
			wantText: "Could not resolve to a PullRequest with the number of 99",
		},
		{
			name: "missing repository",
			call: func(c *github.Client) error {
				_, err := c.ReviewThreads(context.Background(), owner, "nope", 1)
				return err
			},
			check:    github.IsNotFound,
			wantText: "Could not resolve to a Repository with the name 'acme/nope'",
		},
		{
			name:     "missing thread",
			call:     func(c *github.Client) error { return c.ResolveThread(context.Background(), "PRRT_1") },
			check:    github.IsNotFound,
			wantText: "Could not resolve to a node with the global id of 'PRRT_1'",
		},
		{
			name: "untyped errors keep the first as message and the rest as details",
			fail: `{"errors":[{"message":"Something went wrong while executing your query."},{"message":"and then some"}]}`,
			call: func(c *github.Client) error { return c.ResolveThread(context.Background(), "PRRT_1") },
			check: func(err error) bool {
				var ae *github.APIError
				return errors.As(err, &ae) && ae.Status == http.StatusOK &&
					ae.Message == "Something went wrong while executing your query." &&
					cmp.Equal(ae.Errors, []string{"and then some"}) && ae.Method == http.MethodPost && ae.Path == "api/graphql"
			},
			wantText: "Something went wrong while executing your query: and then some",
		},
		{
			name:     "unprocessable",
			fail:     `{"data":null,"errors":[{"type":"UNPROCESSABLE","message":"Thread is locked"}]}`,
			call:     func(c *github.Client) error { return c.ResolveThread(context.Background(), "PRRT_1") },
			check:    github.IsUnprocessable,
			wantText: "Thread is locked",
		},
		{
			name:    "rate limited in a 200",
			fail:    `{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}`,
			failHdr: map[string]string{"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1900000000"},
			call: func(c *github.Client) error {
				_, err := c.ReviewThreads(context.Background(), owner, repo, prNum)
				return err
			},
			check:    github.IsRateLimited,
			wantText: "primary rate limit exceeded",
		},
		{
			name:     "a secret in the message is redacted",
			fail:     `{"errors":[{"message":"token ` + writeToken + ` is odd"}]}`,
			call:     func(c *github.Client) error { return c.ResolveThread(context.Background(), "PRRT_1") },
			check:    func(err error) bool { return !strings.Contains(err.Error(), writeToken) },
			wantText: "[redacted]",
		},
		{
			name:  "bad credentials are an HTTP 401",
			token: "ghp_unknownTokenForTests00000000000000",
			call: func(c *github.Client) error {
				_, err := c.ReviewThreads(context.Background(), owner, repo, prNum)
				return err
			},
			check:    github.IsAuth,
			wantText: "Bad credentials",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			c := b.c
			if tt.token != "" {
				c = b.client(t, github.Options{Token: tt.token})
			}
			if tt.fail != "" {
				b.srv.FailNext(http.StatusOK, tt.failHdr, tt.fail)
			}
			err := tt.call(c)
			if err == nil {
				t.Fatal("no error")
			}
			if !tt.check(err) {
				t.Errorf("err = %#v (%v): check failed", err, err)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantText)
			}
			if n := c.Requests(); n != 1 {
				t.Errorf("Requests() = %d, want 1", n)
			}
		})
	}
}

// TestReviewThreadsRateLimitRetried checks that GraphQL goes through the REST calls' transport:
// a secondary rate limit is waited out and the request sent again.
func TestReviewThreadsRateLimitRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	postThreads(t, b)
	before := b.c.Requests()
	b.srv.FailNext(http.StatusForbidden, map[string]string{"retry-after": "30"}, secondaryBody)
	got, err := b.c.ReviewThreads(context.Background(), owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("got %d threads, want 2", len(got))
	}
	if n := b.c.Requests() - before; n != 2 {
		t.Errorf("Requests() grew by %d, want 2 (the refused attempt and the retry)", n)
	}
	if w := b.waits(); len(w) != 1 || w[0].Seconds() != 30 {
		t.Errorf("waits = %v, want [30s]", w)
	}
}

// TestGraphQLEndpoint pins how the GraphQL URL follows from the base URL: /api/v3 (GitHub
// Enterprise Server) becomes /api/graphql, anything else gets /graphql appended.
func TestGraphQLEndpoint(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		_, _ = w.Write([]byte(`{"data":{"resolveReviewThread":{"thread":{"id":"PRRT_1","isResolved":true}}}}`))
	}))
	t.Cleanup(srv.Close)
	tests := []struct{ base, want string }{
		{srv.URL, "POST /graphql"},
		{srv.URL + "/api/v3", "POST /api/graphql"},
		{srv.URL + "/api/v3/", "POST /api/graphql"},
		{srv.URL + "/proxy/github", "POST /proxy/github/graphql"},
	}
	for _, tt := range tests {
		c, err := github.New(github.Options{Token: writeToken, BaseURL: tt.base})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		paths = nil
		mu.Unlock()
		if err := c.ResolveThread(context.Background(), "PRRT_1"); err != nil {
			t.Fatalf("base %s: %v", tt.base, err)
		}
		mu.Lock()
		if d := cmp.Diff([]string{tt.want}, paths); d != "" {
			t.Errorf("base %s (-want +got):\n%s", tt.base, d)
		}
		mu.Unlock()
	}
}

// TestFakeGraphQL checks the fake's own rules: only the two operations, tokens as for REST.
func TestFakeGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	post := func(token, query string) (int, map[string]any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query})
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, b.srv.WebURL+githubtest.GraphQLPath, strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	tests := []struct {
		name, token, query string
		wantStatus         int
		wantMessage        string
	}{
		{"unknown query field", writeToken, `query { viewer { login } }`, 200, "Field 'viewer' doesn't exist on type 'Query'"},
		{"unknown mutation", writeToken, `mutation { unresolveReviewThread(input: {threadId: "PRRT_1"}) { thread { id } } }`, 200,
			"Field 'unresolveReviewThread' doesn't exist on type 'Mutation'"},
		{"first over 100", writeToken, `{ repository(owner: "acme", name: "widget") { pullRequest(number: 7) { reviewThreads(first: 101) { nodes { id } } } } }`, 200,
			"You must provide a `first` value between 0 and 100"},
		{"no token", "", `query { viewer { login } }`, 401, "Requires authentication"},
		{"unknown token", "nope", `query { viewer { login } }`, 401, "Bad credentials"},
	}
	for _, tt := range tests {
		status, out := post(tt.token, tt.query)
		if status != tt.wantStatus {
			t.Errorf("%s: status %d, want %d", tt.name, status, tt.wantStatus)
		}
		msg, _ := out["message"].(string)
		if errs, ok := out["errors"].([]any); ok && len(errs) > 0 {
			e, _ := errs[0].(map[string]any)
			msg, _ = e["message"].(string)
		}
		if !strings.Contains(msg, tt.wantMessage) {
			t.Errorf("%s: message %q, want it to contain %q", tt.name, msg, tt.wantMessage)
		}
	}
}
