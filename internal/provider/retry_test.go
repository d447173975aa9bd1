package provider

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scripted is a Client that returns its errors in turn, then succeeds.
type scripted struct {
	errs  []error
	calls int
	// onCall runs at each call, before the answer (to cancel a context mid-call, say).
	onCall func()
}

func (s *scripted) Complete(context.Context, Request) (Response, error) {
	s.calls++
	if s.onCall != nil {
		s.onCall()
	}
	if s.calls <= len(s.errs) {
		return Response{}, s.errs[s.calls-1]
	}
	return Response{Content: []Block{{Type: Text, Text: "ok"}}, Usage: Usage{Requests: 1, InputTokens: 10}}, nil
}

type retryBundle struct {
	slept []time.Duration
	opts  RetryOptions
}

func retrySetup(rnd float64) *retryBundle {
	b := &retryBundle{}
	b.opts = RetryOptions{
		Sleep: func(_ context.Context, d time.Duration) error { b.slept = append(b.slept, d); return nil },
		Rand:  func() float64 { return rnd },
	}
	return b
}

func TestWithRetry(t *testing.T) {
	t.Parallel()
	rate := func(d time.Duration) error { return &RateLimitError{Provider: "p", RetryAfter: d} }
	tests := []struct {
		name      string
		errs      []error
		rnd       float64
		opts      func(*RetryOptions)
		wantCalls int
		wantSlept []time.Duration
		wantErr   func(error) bool
	}{
		{
			name:      "success at once",
			wantCalls: 1,
		},
		{
			name:      "backoff doubles, full jitter",
			errs:      []error{&ServerError{Status: 500}, &ServerError{Status: 502}, &OverloadedError{Status: 529}},
			rnd:       0.5,
			wantCalls: 4,
			wantSlept: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
		},
		{
			name:      "backoff capped at MaxDelay",
			errs:      []error{&ServerError{}, &ServerError{}, &ServerError{}, &ServerError{}},
			rnd:       0.999,
			opts:      func(o *RetryOptions) { o.MaxDelay = 3 * time.Second },
			wantCalls: 5,
			wantSlept: []time.Duration{999 * time.Millisecond, 1998 * time.Millisecond, 2997 * time.Millisecond, 2997 * time.Millisecond},
		},
		{
			name:      "never less than retry-after",
			errs:      []error{rate(7 * time.Second)},
			rnd:       0.1,
			wantCalls: 2,
			wantSlept: []time.Duration{7 * time.Second},
		},
		{
			name:      "retry-after beyond MaxDelay is still honoured",
			errs:      []error{rate(45 * time.Second)},
			opts:      func(o *RetryOptions) { o.MaxDelay = 10 * time.Second },
			wantCalls: 2,
			wantSlept: []time.Duration{45 * time.Second},
		},
		{
			name:      "retry-after capped at two minutes",
			errs:      []error{rate(10 * time.Minute)},
			wantCalls: 2,
			wantSlept: []time.Duration{2 * time.Minute},
		},
		{
			name:      "gives up after MaxAttempts",
			errs:      []error{rate(0), rate(0), rate(0)},
			opts:      func(o *RetryOptions) { o.MaxAttempts = 3 },
			wantCalls: 3,
			wantSlept: []time.Duration{0, 0},
			wantErr: func(err error) bool {
				var rl *RateLimitError
				return errors.As(err, &rl)
			},
		},
		{
			name:      "default is five attempts",
			errs:      []error{rate(0), rate(0), rate(0), rate(0), rate(0), rate(0)},
			wantCalls: 5,
			wantSlept: []time.Duration{0, 0, 0, 0},
			wantErr:   func(err error) bool { return err != nil },
		},
		{
			name:      "bad request not retried",
			errs:      []error{&BadRequestError{Status: 400}},
			wantCalls: 1,
			wantErr: func(err error) bool {
				var bad *BadRequestError
				return errors.As(err, &bad)
			},
		},
		{
			name:      "auth not retried",
			errs:      []error{&AuthError{Status: 401}},
			wantCalls: 1,
			wantErr: func(err error) bool {
				var auth *AuthError
				return errors.As(err, &auth)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := retrySetup(tt.rnd)
			if tt.opts != nil {
				tt.opts(&b.opts)
			}
			next := &scripted{errs: tt.errs}
			resp, err := WithRetry(next, b.opts).Complete(context.Background(), Request{})
			if tt.wantErr == nil && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr != nil && !tt.wantErr(err) {
				t.Fatalf("err = %v, not the error wanted", err)
			}
			if err == nil && resp.Usage.Requests != 1 {
				t.Errorf("usage counts %d requests, want 1", resp.Usage.Requests)
			}
			if next.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", next.calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantSlept, b.slept); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWithRetryCancel(t *testing.T) {
	t.Parallel()
	t.Run("during a call", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		b := retrySetup(0)
		next := &scripted{errs: []error{&ServerError{Status: 500}}, onCall: cancel}
		_, err := WithRetry(next, b.opts).Complete(ctx, Request{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if next.calls != 1 || len(b.slept) != 0 {
			t.Errorf("calls = %d, sleeps = %v; want 1 call, no sleep", next.calls, b.slept)
		}
	})
	t.Run("during the wait", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		next := &scripted{errs: []error{&ServerError{Status: 500}}}
		opts := RetryOptions{Sleep: func(ctx context.Context, _ time.Duration) error {
			cancel()
			return ctx.Err()
		}}
		_, err := WithRetry(next, opts).Complete(ctx, Request{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if next.calls != 1 {
			t.Errorf("calls = %d, want 1", next.calls)
		}
	})
	t.Run("default sleep returns at once", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		next := &scripted{errs: []error{&RateLimitError{RetryAfter: time.Minute}}}
		var heard int
		opts := RetryOptions{OnRetry: func(int, time.Duration, error) { heard++; cancel() }}
		start := time.Now()
		_, err := WithRetry(next, opts).Complete(ctx, Request{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if time.Since(start) > 10*time.Second || heard != 1 {
			t.Errorf("took %v, heard %d retries; want prompt, 1", time.Since(start), heard)
		}
	})
}
