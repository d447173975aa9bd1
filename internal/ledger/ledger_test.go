package ledger

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/council-dev/council/internal/provider"
)

// counter answers every request with a fixed usage and counts calls.
type counter struct {
	mu    sync.Mutex
	calls int
	usage provider.Usage
}

func (c *counter) Complete(_ context.Context, _ provider.Request) (provider.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return provider.Response{Usage: c.usage}, nil
}

// request has about tokens estimated prompt tokens and allows an answer of maxTokens.
func request(tokens, maxTokens int) provider.Request {
	return provider.Request{Model: "m", MaxTokens: maxTokens, Messages: []provider.Message{{Role: provider.User, Content: []provider.Block{
		{Type: provider.Text, Text: strings.Repeat("abcd", tokens)},
	}}}}
}

func TestGuard(t *testing.T) {
	t.Parallel()
	// $1 per million input tokens, $10 per million output tokens.
	prices := provider.Prices{"m": {Input: 1, Output: 10}}
	tests := []struct {
		name      string
		budget    Budget
		usage     provider.Usage // what each answer costs
		reqTokens int
		maxTokens int
		send      int
		wantCalls int
		wantLimit string
	}{
		{"no budget sends everything", Budget{}, provider.Usage{InputTokens: 1e6}, 1000, 1000, 5, 5, ""},
		// Each answer costs $1 + $1 = $2; after two, a third could cost up to $1.001 more.
		{"max_usd stops before exceeding", Budget{MaxUSD: 5}, provider.Usage{InputTokens: 1e6, OutputTokens: 1e5}, 1000, 1e5, 5, 2, "max_usd"},
		{"max_usd lets a request through when its worst case fits", Budget{MaxUSD: 6.5}, provider.Usage{InputTokens: 1e6, OutputTokens: 1e5}, 1000, 1e5, 5, 3, "max_usd"},
		// The estimate alone ($0.5 per request) is checked before the first request.
		{"a request bigger than the budget is never sent", Budget{MaxUSD: 0.1}, provider.Usage{}, 500000, 0, 1, 0, "max_usd"},
		// Each answer uses 1,000 tokens; each request may use 300.
		{"max_tokens counts every kind of token", Budget{MaxTokens: 2200}, provider.Usage{InputTokens: 500, CacheReadTokens: 300, OutputTokens: 200}, 100, 200, 5, 2, "max_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next := &counter{usage: tt.usage}
			g := NewGuard(next, tt.budget, prices)
			var lastErr error
			for i := 0; i < tt.send; i++ {
				if _, err := g.Complete(context.Background(), request(tt.reqTokens, tt.maxTokens)); err != nil {
					lastErr = err
				}
			}
			if next.calls != tt.wantCalls {
				t.Errorf("sent %d requests, want %d", next.calls, tt.wantCalls)
			}
			var be *BudgetError
			switch {
			case tt.wantLimit == "" && lastErr != nil:
				t.Errorf("unexpected error %v", lastErr)
			case tt.wantLimit != "" && (!errors.As(lastErr, &be) || be.Limit != tt.wantLimit):
				t.Errorf("error %v, want a BudgetError on %s", lastErr, tt.wantLimit)
			case tt.wantLimit != "" && !strings.Contains(lastErr.Error(), "budget."+tt.wantLimit):
				t.Errorf("error %q does not name the setting to raise", lastErr)
			}
			if got := g.Refused(); got != tt.send-tt.wantCalls {
				t.Errorf("Refused() = %d, want %d", got, tt.send-tt.wantCalls)
			}
		})
	}
}

// blocker holds every request until released, so concurrent requests overlap.
type blocker struct {
	counter
	release chan struct{}
}

func (b *blocker) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	<-b.release
	return b.counter.Complete(ctx, req)
}

func TestGuardReservesForConcurrentRequests(t *testing.T) {
	t.Parallel()
	prices := provider.Prices{"m": {Input: 1}}
	next := &blocker{release: make(chan struct{})}
	// Each request is estimated at $0.4: only two fit in $1 even when all start at once.
	g := NewGuard(next, Budget{MaxUSD: 1}, prices)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := g.Complete(context.Background(), request(400000, 0))
			errs <- err
		}()
	}
	// Wait until the three refusals have happened, then let the two others finish.
	for g.Refused() < 3 {
		time.Sleep(time.Millisecond)
	}
	close(next.release)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
		}
	}
	if next.calls != 2 || failed != 3 {
		t.Errorf("sent %d and refused %d; want 2 and 3", next.calls, failed)
	}
}

func TestStages(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := NewStages(clock)
	stop := s.Start("plan")
	now = now.Add(2 * time.Second)
	stop()
	stop = s.Start("plan")
	now = now.Add(time.Second)
	stop()
	stages, wall := s.Seconds()
	if stages["plan"] != 3 || wall != 3 {
		t.Errorf("plan %.1fs, wall %.1fs; want 3 and 3", stages["plan"], wall)
	}
}

func TestGuardSpent(t *testing.T) {
	t.Parallel()
	prices := provider.Prices{"m": {Input: 1, Output: 10}}
	g := NewGuard(&counter{usage: provider.Usage{InputTokens: 1e6, OutputTokens: 1e5}}, Budget{}, prices)
	for range 3 {
		if _, err := g.Complete(context.Background(), request(10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	// Each answer costs $1 of input and $1 of output: the estimates made before sending are gone.
	if got := g.Spent(); got != 6 {
		t.Errorf("Spent() = %v, want 6", got)
	}
}

func TestGuardThroughSharesTheBudget(t *testing.T) {
	t.Parallel()
	prices := provider.Prices{"m": {Input: 1, Output: 10}}
	usage := provider.Usage{InputTokens: 1e6, OutputTokens: 1e5} // $2 an answer
	g := NewGuard(nil, Budget{MaxUSD: 5}, prices)
	a, b := &counter{usage: usage}, &counter{usage: usage}
	for _, c := range []Completer{g.Through(a, prices), g.Through(b, prices), g.Through(a, prices)} {
		_, _ = c.Complete(context.Background(), request(1000, 1e5))
	}
	if a.calls+b.calls != 2 || b.calls != 1 {
		t.Errorf("sent %d to a and %d to b, want 1 and 1: the third request would pass $5 in all", a.calls, b.calls)
	}
	if g.Refused() != 1 {
		t.Errorf("Refused() = %d, want 1", g.Refused())
	}
	// What an earlier run spent counts too: $4 + $2 so far leaves no room for another $2.
	g = NewGuard(nil, Budget{MaxUSD: 7}, prices)
	g.Charge(4)
	c := &counter{usage: usage}
	for range 2 {
		_, _ = g.Through(c, prices).Complete(context.Background(), request(1000, 1e5))
	}
	if c.calls != 1 || g.Spent() != 6 {
		t.Errorf("sent %d, spent %v: want 1 request after the $4 charged, $6 in all", c.calls, g.Spent())
	}
}

// TestGuardCountsThinkingRoom: a model that thinks by default may write more than the
// answer's budget (provider.WithThinkingRoom), and the guard's worst case counts all of it.
func TestGuardCountsThinkingRoom(t *testing.T) {
	t.Parallel()
	prices := provider.Prices{"claude-sonnet-5-5": {Output: 10}, "claude-haiku-4-5": {Output: 10}}
	for _, tt := range []struct {
		model string
		sent  int
	}{
		{"claude-haiku-4-5", 1},  // 100k output tokens: $1, fits $1.2
		{"claude-sonnet-5-5", 0}, // 132k with the room (at most 32k): $1.32, does not
	} {
		next := &counter{}
		g := NewGuard(next, Budget{MaxUSD: 1.2}, prices)
		req := request(0, 1e5)
		req.Model = tt.model
		_, _ = g.Complete(context.Background(), req)
		if next.calls != tt.sent {
			t.Errorf("%s: sent %d requests, want %d", tt.model, next.calls, tt.sent)
		}
	}
}
