package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryOptions tunes WithRetry. Zero fields take the defaults below.
type RetryOptions struct {
	MaxAttempts int           // attempts in all, the first included; default 5
	BaseDelay   time.Duration // backoff before the second attempt, doubled each time; default 1s
	MaxDelay    time.Duration // cap of the computed backoff; default 30s
	// Sleep waits d or until ctx is done; tests inject one that records d and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter; default math/rand/v2.
	Rand func() float64
	// OnRetry, when set, hears about each retry before its wait (for progress output).
	OnRetry func(attempt int, wait time.Duration, err error)
}

// Defaults of RetryOptions, and the longest wait a retry-after header can impose.
const (
	DefaultMaxAttempts = 5
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
	MaxRetryAfter      = 2 * time.Minute
)

// WithRetry returns a Client that sends a failed request again when the error is Retryable:
// exponential backoff with full jitter, never less than the service's retry-after. It stops at
// once when ctx is done (Ctrl-C) and never retries anything else. Only the successful attempt's
// usage is returned: a failed attempt has no response to count.
func WithRetry(c Client, o RetryOptions) Client {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return &retrier{next: c, o: o}
}

type retrier struct {
	next Client
	o    RetryOptions
}

func (r *retrier) Complete(ctx context.Context, req Request) (Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := r.next.Complete(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("stop after attempt %d: %w", attempt, ctx.Err())
		}
		retryAfter, ok := Retryable(err)
		if !ok {
			return Response{}, err
		}
		if attempt >= r.o.MaxAttempts {
			return Response{}, fmt.Errorf("give up after %d attempts: %w", attempt, err)
		}
		wait := r.delay(attempt, retryAfter)
		if r.o.OnRetry != nil {
			r.o.OnRetry(attempt, wait, err)
		}
		if err := r.o.Sleep(ctx, wait); err != nil {
			return Response{}, fmt.Errorf("stop after attempt %d: %w", attempt, err)
		}
	}
}

// delay is the wait before attempt+1: full jitter over min(MaxDelay, BaseDelay*2^(attempt-1)),
// raised to the service's retry-after. A retry-after beyond MaxDelay is still honoured, up to
// MaxRetryAfter: waiting less than the service asked only earns another refusal.
func (r *retrier) delay(attempt int, retryAfter time.Duration) time.Duration {
	ceiling := r.o.MaxDelay
	if shift := attempt - 1; shift < 30 {
		if d := r.o.BaseDelay << shift; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	wait := time.Duration(r.o.Rand() * float64(ceiling))
	if retryAfter > wait {
		wait = min(retryAfter, MaxRetryAfter)
	}
	return wait
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
