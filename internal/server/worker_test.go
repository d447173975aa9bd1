package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/provider"
)

// retry is what River is told: snooze for a rate limit, cancel what waiting cannot fix,
// else River's own retry with backoff.
func TestRetry(t *testing.T) {
	t.Parallel()
	plain := errors.New("git fetch: exit status 128")
	tests := []struct {
		name     string
		err      error
		stopping bool
		check    func(t *testing.T, got error)
	}{
		{
			name: "GitHub rate limit snoozes a minute at least",
			err:  fmt.Errorf("post: %w", &github.RateLimitError{Status: 403, Secondary: true, RetryAfter: 10 * time.Second}),
			check: func(t *testing.T, got error) {
				var s *river.JobSnoozeError
				if !errors.As(got, &s) || s.Duration < time.Minute {
					t.Errorf("got %v; want a snooze of a minute or more", got)
				}
			},
		},
		{
			name: "provider rate limit snoozes its retry-after",
			err:  &provider.RateLimitError{Provider: "anthropic", RetryAfter: 20 * time.Second},
			check: func(t *testing.T, got error) {
				var s *river.JobSnoozeError
				if !errors.As(got, &s) || s.Duration != 20*time.Second {
					t.Errorf("got %v; want a snooze of 20s", got)
				}
			},
		},
		{name: "GitHub 401 cancels", err: &github.APIError{Status: 401}, check: wantCancel},
		{name: "GitHub 404 cancels", err: &github.APIError{Status: 404}, check: wantCancel},
		{name: "provider auth cancels", err: &provider.AuthError{Provider: "openai", Status: 401}, check: wantCancel},
		{
			name: "plain errors are retried", err: plain,
			check: func(t *testing.T, got error) {
				if got != plain {
					t.Errorf("got %v; want the error itself, for River's backoff", got)
				}
			},
		},
		{
			name: "a job cut short by a shutdown runs again at once", err: fmt.Errorf("review: %w", context.Canceled), stopping: true,
			check: func(t *testing.T, got error) {
				var s *river.JobSnoozeError
				if !errors.As(got, &s) || s.Duration != 0 {
					t.Errorf("got %v; want a snooze of 0", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &Server{m: newMetrics(nil), log: slog.New(slog.DiscardHandler)}
			s.stopping.Store(tt.stopping)
			tt.check(t, s.retry(tt.err, s.log))
		})
	}
}

func wantCancel(t *testing.T, got error) {
	t.Helper()
	var c *river.JobCancelError
	if !errors.As(got, &c) {
		t.Errorf("got %v; want the job cancelled", got)
	}
}
