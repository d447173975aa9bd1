package provider

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	prices := DefaultPrices()
	tests := []struct {
		model  string
		want   string // the entry it must resolve to; "" for none
		wantOK bool
	}{
		{"claude-sonnet-4-5", "claude-sonnet-4-5", true},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", true},
		{"claude-sonnet-4-20250514", "claude-sonnet-4", true},
		{"claude-opus-4-1-20250805", "claude-opus-4-1", true},
		{"claude-opus-4-5-20251101", "claude-opus-4-5", true},
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5", true},
		{"claude-3-5-haiku-20241022", "claude-3-5-haiku", true},
		{"claude-3-5-haiku-latest", "claude-3-5-haiku", true},
		{"claude-opus-5-5", "claude-opus-5-5", true},
		{"gpt-4o-2024-08-06", "gpt-4o", true},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini", true},
		{"gpt-4.1-mini-2025-04-14", "gpt-4.1-mini", true},
		{"o4-mini-2025-04-16", "o4-mini", true},
		{"o3", "o3", true},
		{"gpt-5-2025-08-07", "gpt-5", true},
		// A new version is not its predecessor: unpriced rather than guessed.
		{"gpt-5.5", "", false},
		{"gpt-4.10", "", false},
		{"llama3.1:8b", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			got, ok := prices.Lookup(tt.model)
			if ok != tt.wantOK {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tt.model, ok, tt.wantOK)
			}
			if diff := cmp.Diff(prices[tt.want], got); ok && diff != "" {
				t.Errorf("Lookup(%q) (-want %s +got):\n%s", tt.model, tt.want, diff)
			}
		})
	}
}

func TestAnthropicCacheMultipliers(t *testing.T) {
	t.Parallel()
	p, _ := DefaultPrices().Lookup("claude-sonnet-4-5")
	want := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	if diff := cmp.Diff(want, p, cmp.Comparer(approx)); diff != "" {
		t.Errorf("price (-want +got):\n%s", diff)
	}
}

// TestPublishedPrices pins the published prices of the current models, where they differ
// from the usual multipliers or are new: the GPT-6 pages give a cache-write price, the older
// OpenAI models' writes are at the input price.
func TestPublishedPrices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		want  Price
	}{
		{"claude-sonnet-5-5", Price{Input: 2, Output: 10, CacheRead: 0.10, CacheWrite: 2.50}},
		{"claude-sonnet-5", Price{Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50}},
		{"claude-opus-5-5", Price{Input: 4, Output: 20, CacheRead: 0.20, CacheWrite: 5}},
		{"claude-opus-5", Price{Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25}},
		{"claude-haiku-5-5", Price{Input: 0.10, Output: 0.50, CacheRead: 0.01, CacheWrite: 0.125}},
		{"claude-fable-5-1", Price{Input: 10, Output: 50, CacheRead: 1, CacheWrite: 12.5}},
		// Retired, still priced for old recordings.
		{"claude-sonnet-4-5-20250929", Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
		{"gpt-6.2-sol", Price{Input: 2, Output: 10, CacheRead: 0.10, CacheWrite: 2.50}},
		{"gpt-6-sol-2026-09-22", Price{Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50}},
		{"gpt-6.2-astra", Price{Input: 8, Output: 40, CacheRead: 0.40, CacheWrite: 8}},
		{"gpt-6.1-sol", Price{Input: 2, Output: 10, CacheRead: 0.10, CacheWrite: 2}},
		{"gpt-6.1-terra", Price{Input: 1, Output: 5, CacheRead: 0.05, CacheWrite: 1}},
		{"gpt-6-luna", Price{Input: 0.10, Output: 0.50, CacheRead: 0.01, CacheWrite: 0.10}},
		{"gpt-6-astra", Price{Input: 10, Output: 50, CacheRead: 1, CacheWrite: 10}},
		{"gpt-4.1-2025-04-14", Price{Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			got, ok := DefaultPrices().Lookup(tt.model)
			if !ok {
				t.Fatalf("%s has no price", tt.model)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(approx)); diff != "" {
				t.Errorf("price (-want +got):\n%s", diff)
			}
		})
	}
	// A family name alone, or a version not listed, is not priced as a listed one.
	for _, m := range []string{"gpt-6", "gpt-6.2", "gpt-6.3-sol"} {
		if _, ok := DefaultPrices().Lookup(m); ok {
			t.Errorf("%s has a price", m)
		}
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	prices := Prices{"m": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	tests := []struct {
		name   string
		model  string
		usage  Usage
		want   float64
		wantOK bool
	}{
		{"all kinds", "m-20250101", Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheWriteTokens: 400_000}, 3 + 1.5 + 0.6 + 1.5, true},
		{"nothing used", "m", Usage{}, 0, true},
		{"unknown model", "x", Usage{InputTokens: 5}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := prices.Cost(tt.model, tt.usage)
			if ok != tt.wantOK || !approx(got, tt.want) {
				t.Errorf("Cost = (%v, %v), want (%v, %v)", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	base := Prices{"a": {Input: 1}, "b": {Input: 2}}
	over := Prices{"b": {Input: 20}, "c": {Input: 3}}
	got := base.Merge(over)
	want := Prices{"a": {Input: 1}, "b": {Input: 20}, "c": {Input: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if base["b"].Input != 2 || len(base) != 2 {
		t.Error("Merge modified its receiver")
	}
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
