// Package ledger keeps the accounts of a run: wall time per pipeline stage, and a spending
// guard that refuses a model request before it would push the run over its budget. It never
// calls a model itself and reads the clock only through the function it is given.
package ledger

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/council-dev/council/internal/provider"
)

// Stages times the pipeline's stages.
type Stages struct {
	now   func() time.Time
	start time.Time
	mu    sync.Mutex
	spent map[string]time.Duration
}

// NewStages starts the clock; now is time.Now outside tests.
func NewStages(now func() time.Time) *Stages {
	return &Stages{now: now, start: now(), spent: map[string]time.Duration{}}
}

// Start times one stage; call the returned function when it ends. A stage timed twice adds up.
func (s *Stages) Start(name string) (stop func()) {
	t := s.now()
	return func() {
		d := s.now().Sub(t)
		s.mu.Lock()
		s.spent[name] += d
		s.mu.Unlock()
	}
}

// Seconds returns wall seconds per stage and in all since NewStages.
func (s *Stages) Seconds() (map[string]float64, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]float64, len(s.spent))
	for k, v := range s.spent {
		out[k] = v.Seconds()
	}
	return out, s.now().Sub(s.start).Seconds()
}

// BudgetError is a request refused because it would exceed the run's budget.
type BudgetError struct {
	Limit string // "max_usd" or "max_tokens"
	Spent float64
	Need  float64
	Max   float64
}

func (e *BudgetError) Error() string {
	if e.Limit == "max_usd" {
		return fmt.Sprintf("budget: request not sent: $%.4f spent + about $%.4f for this request would exceed budget.max_usd $%.2f (raise it in .council.yaml or with --max-usd)", e.Spent, e.Need, e.Max)
	}
	return fmt.Sprintf("budget: request not sent: %.0f tokens used + about %.0f for this request would exceed budget.max_tokens %.0f (raise it in .council.yaml)", e.Spent, e.Need, e.Max)
}

// Budget limits what a run may spend; zero means no limit.
type Budget struct {
	MaxUSD    float64
	MaxTokens int64
}

// Completer sends one request to a model.
type Completer interface {
	Complete(ctx context.Context, req provider.Request) (provider.Response, error)
}

// Guard wraps a client so that a request that could take the run past its budget is refused
// before it is sent. It assumes the worst of each request: the prompt at the full input price
// (no cache discount) and an answer of MaxTokens (with its thinking room,
// provider.WithThinkingRoom), so the run stops early rather than late. Once
// the answer is in, its real cost, priced with the same table, replaces the assumption.
type Guard struct {
	next    Completer
	budget  Budget
	prices  provider.Prices
	mu      sync.Mutex
	usd     float64
	tokens  int64
	refused int
}

// Refused counts the requests the guard did not send.
func (g *Guard) Refused() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

// Spent is what the requests answered so far cost, plus the worst case of those in flight.
func (g *Guard) Spent() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.usd
}

// Charge counts usd spent outside the guard (by an earlier run that this one resumes) against
// the budget.
func (g *Guard) Charge(usd float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.usd += usd
}

// NewGuard returns a guard over next.
func NewGuard(next Completer, b Budget, prices provider.Prices) *Guard {
	return &Guard{next: next, budget: b, prices: prices}
}

// Complete sends req unless it would exceed the budget.
func (g *Guard) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	return g.complete(ctx, g.next, g.prices, req)
}

// Through returns a client that sends to next under this guard's budget, pricing with prices:
// several clients (one per benchmark sample, each with its own recording and its repository's
// price table) share one budget.
func (g *Guard) Through(next Completer, prices provider.Prices) Completer {
	return &through{g: g, next: next, prices: prices}
}

type through struct {
	g      *Guard
	next   Completer
	prices provider.Prices
}

func (t *through) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	return t.g.complete(ctx, t.next, t.prices, req)
}

func (g *Guard) complete(ctx context.Context, next Completer, prices provider.Prices, req provider.Request) (provider.Response, error) {
	// The most this request can cost: its prompt at the full input price, and a full answer,
	// with the room a model that thinks by default gets for its thinking.
	price, _ := prices.Lookup(req.Model)
	in, out := int64(provider.EstimateTokens(req)), int64(provider.WithThinkingRoom(req.Model, req.MaxTokens, 0))
	est := in + out
	estUSD := (float64(in)*price.Input + float64(out)*price.Output) / 1e6
	g.mu.Lock()
	if g.budget.MaxUSD > 0 && g.usd+estUSD > g.budget.MaxUSD {
		err := &BudgetError{Limit: "max_usd", Spent: g.usd, Need: estUSD, Max: g.budget.MaxUSD}
		g.refused++
		g.mu.Unlock()
		return provider.Response{}, err
	}
	if g.budget.MaxTokens > 0 && g.tokens+est > g.budget.MaxTokens {
		err := &BudgetError{Limit: "max_tokens", Spent: float64(g.tokens), Need: float64(est), Max: float64(g.budget.MaxTokens)}
		g.refused++
		g.mu.Unlock()
		return provider.Response{}, err
	}
	// Reserve the estimate so concurrent requests cannot all pass the same check.
	g.usd += estUSD
	g.tokens += est
	g.mu.Unlock()

	resp, err := next.Complete(ctx, req)

	g.mu.Lock()
	defer g.mu.Unlock()
	g.usd -= estUSD
	g.tokens -= est
	if err == nil {
		u := resp.Usage
		cost, _ := prices.Cost(req.Model, u)
		g.usd += cost
		g.tokens += u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
	}
	return resp, err
}
