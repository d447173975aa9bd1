package github_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

const secondaryBody = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}`

func TestRateLimits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type fail struct {
		status  int
		headers map[string]string
		body    string
	}
	tests := []struct {
		name        string
		fails       []fail
		opts        github.Options
		wantSlept   []time.Duration
		wantErr     func(error) bool
		wantReqs    int
		wantMessage string
	}{
		{
			name:      "secondary 403 with retry-after",
			fails:     []fail{{403, map[string]string{"retry-after": "30"}, secondaryBody}},
			wantSlept: []time.Duration{30 * time.Second},
			wantReqs:  2,
		},
		{
			name:      "429 with retry-after",
			fails:     []fail{{429, map[string]string{"Retry-After": "5"}, ""}},
			wantSlept: []time.Duration{5 * time.Second},
			wantReqs:  2,
		},
		{
			name:      "primary limit waits for the reset",
			fails:     []fail{{403, githubtest.RateLimitHeaders(now.Add(90 * time.Second)), ""}},
			wantSlept: []time.Duration{91 * time.Second},
			wantReqs:  2,
		},
		{
			name:      "primary limit answered with 429",
			fails:     []fail{{429, githubtest.RateLimitHeaders(now.Add(10 * time.Second)), ""}},
			wantSlept: []time.Duration{11 * time.Second},
			wantReqs:  2,
		},
		{
			name: "secondary without retry-after backs off from a minute",
			fails: []fail{
				{403, nil, secondaryBody}, {403, nil, secondaryBody}, {429, nil, ""},
			},
			wantSlept: []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute},
			wantReqs:  4,
		},
		{
			name: "backoff capped by MaxRateLimitWait",
			fails: []fail{
				{403, nil, secondaryBody}, {403, nil, secondaryBody}, {403, nil, secondaryBody},
			},
			opts:      github.Options{MaxRateLimitWait: 100 * time.Second},
			wantSlept: []time.Duration{time.Minute, 100 * time.Second, 100 * time.Second},
			wantReqs:  4,
		},
		{
			name: "gives up after the retries",
			fails: []fail{
				{429, map[string]string{"retry-after": "1"}, ""}, {429, map[string]string{"retry-after": "1"}, ""},
				{429, map[string]string{"retry-after": "1"}, ""}, {429, map[string]string{"retry-after": "2"}, ""},
			},
			wantSlept: []time.Duration{time.Second, time.Second, time.Second},
			wantErr: func(err error) bool {
				var rl *github.RateLimitError
				return errors.As(err, &rl) && rl.Secondary && rl.RetryAfter == 2*time.Second && rl.Status == 429
			},
			wantReqs:    4,
			wantMessage: "secondary rate limit exceeded (retry after 2s)",
		},
		{
			name:      "a reset further away than the cap fails at once",
			fails:     []fail{{403, githubtest.RateLimitHeaders(now.Add(2 * time.Hour)), ""}},
			wantSlept: nil,
			wantErr: func(err error) bool {
				var rl *github.RateLimitError
				return errors.As(err, &rl) && !rl.Secondary && rl.Reset.Equal(now.Add(2*time.Hour)) && !github.IsAuth(err)
			},
			wantReqs:    1,
			wantMessage: "primary rate limit exceeded (resets at 2026-03-01T14:00:00Z)",
		},
		{
			name:      "retries off",
			fails:     []fail{{429, map[string]string{"retry-after": "1"}, ""}},
			opts:      github.Options{RateLimitRetries: -1},
			wantErr:   github.IsRateLimited,
			wantReqs:  1,
			wantSlept: nil,
		},
		{
			name:  "403 without rate-limit signs is a permission error",
			fails: []fail{{403, nil, `{"message":"Resource not accessible by integration","status":"403"}`}},
			wantErr: func(err error) bool {
				return github.IsAuth(err) && !github.IsRateLimited(err)
			},
			wantReqs:    1,
			wantMessage: "the token lacks pull_requests:read",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			for _, f := range tt.fails {
				b.srv.FailNext(f.status, f.headers, f.body)
			}
			o := tt.opts
			o.Token, o.Now = writeToken, func() time.Time { return now }
			c := b.client(t, o)
			pr, err := c.PullRequest(context.Background(), owner, repo, prNum)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Errorf("err = %v (%T)", err, err)
				}
				if err != nil && tt.wantMessage != "" && !bytes.Contains([]byte(err.Error()), []byte(tt.wantMessage)) {
					t.Errorf("err = %q, want %q", err, tt.wantMessage)
				}
			} else if err != nil || pr.Number != prNum {
				t.Fatalf("PullRequest = %+v, %v", pr, err)
			}
			if d := cmp.Diff(tt.wantSlept, b.waits()); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if got := b.srv.Requests(); got != tt.wantReqs {
				t.Errorf("%d requests, want %d", got, tt.wantReqs)
			}
			if c.Requests() != tt.wantReqs {
				t.Errorf("Requests() = %d, want %d", c.Requests(), tt.wantReqs)
			}
		})
	}
}

func TestRetriedPOSTKeepsItsBody(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.FailNext(429, map[string]string{"retry-after": "3"}, "")
	req := github.ReviewRequest{
		CommitID: headSHA, Body: "🔎 Council · Security",
		Comments: []github.ReviewComment{{Path: "main.go", Line: 4, Body: "os is unused"}},
	}
	rv, err := b.c.CreateReview(context.Background(), owner, repo, prNum, req)
	if err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	for _, r := range b.srv.Log() {
		if r.Method == "POST" {
			bodies = append(bodies, r.Body)
		}
	}
	if len(bodies) != 2 {
		t.Fatalf("%d POSTs, want 2 (the refused one and the retry)", len(bodies))
	}
	if len(bodies[0]) == 0 || !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("retried body differs:\n%s\n%s", bodies[0], bodies[1])
	}
	reviews, err := b.c.Reviews(context.Background(), owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	if len(reviews) != 1 || reviews[0].ID != rv.ID {
		t.Errorf("reviews = %+v, want the one review", reviews)
	}
	if d := cmp.Diff([]time.Duration{3 * time.Second}, b.waits()); d != "" {
		t.Errorf("waits (-want +got):\n%s", d)
	}
}

func TestRateLimitWaitHonoursCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.FailNext(429, map[string]string{"retry-after": "60"}, "")
	ctx, cancel := context.WithCancel(context.Background())
	c := b.client(t, github.Options{Token: writeToken, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	_, err := c.PullRequest(ctx, owner, repo, prNum)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if b.srv.Requests() != 1 {
		t.Errorf("%d requests, want 1", b.srv.Requests())
	}
}

func TestRequestsCountsEverything(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.srv.FailNext(429, map[string]string{"retry-after": "1"}, "")
	if _, err := b.c.PullRequest(ctx, owner, repo, prNum); err != nil {
		t.Fatal(err)
	}
	if _, err := b.c.PullRequestDiff(ctx, owner, repo, prNum); err != nil {
		t.Fatal(err)
	}
	if _, err := b.c.PullRequest(ctx, owner, repo, 404); err == nil {
		t.Fatal("no error for an unknown PR")
	}
	if got, want := b.c.Requests(), b.srv.Requests(); got != want || got != 4 {
		t.Errorf("Requests() = %d, fake saw %d, want 4", got, want)
	}
	if got := b.srv.Count("GET", "/repos/acme/widget/pulls/"+strconv.Itoa(prNum)); got != 3 {
		t.Errorf("%d GETs of the PR, want 3 (retry and diff included)", got)
	}
}

// blockingTransport never answers: it waits for the request's context.
type blockingTransport struct{}

func (blockingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

func TestTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("an attempt times out", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		c := b.client(t, github.Options{Token: writeToken, HTTPClient: &http.Client{Timeout: 20 * time.Millisecond, Transport: blockingTransport{}}})
		_, err := c.PullRequest(context.Background(), owner, repo, prNum)
		if err == nil || !strings.Contains(err.Error(), "no answer within the request timeout") {
			t.Fatalf("err = %v, want the attempt's timeout", err)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v passes for the caller's deadline", err)
		}
	})
	t.Run("the caller's deadline passes through", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		c := b.client(t, github.Options{Token: writeToken, HTTPClient: &http.Client{Transport: blockingTransport{}}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if _, err := c.PullRequest(ctx, owner, repo, prNum); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("a rate-limit wait does not count against the timeout", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.srv.FailNext(429, map[string]string{"retry-after": "1"}, "")
		c := b.client(t, github.Options{
			Token:      writeToken,
			HTTPClient: &http.Client{Timeout: 150 * time.Millisecond},
			// The real clock must run past the client's timeout for the test to mean anything,
			// so this wait sleeps for real, twice the timeout.
			Sleep: func(ctx context.Context, _ time.Duration) error {
				time.Sleep(300 * time.Millisecond)
				return ctx.Err()
			},
		})
		if _, err := c.PullRequest(context.Background(), owner, repo, prNum); err != nil {
			t.Fatal(err)
		}
	})
}
