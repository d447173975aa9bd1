package openai_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/council-dev/council/internal/doctor"
	"github.com/council-dev/council/internal/provider/openai"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

// TestEveryRequestCouncilSends walks one request of every kind council sends (reviewer turns,
// validator checks, warm-ups, overview, thread check, judge), made by the code that sends
// them, through the SDK to the fake, which refuses what Chat Completions refuses; and does so
// for models with different rules (a reasoning model, the smallest output limit).
func TestEveryRequestCouncilSends(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		model     string
		maxOutput int
	}{
		{"gpt-4.1", 0},
		{"o4-mini", 0},
		{"gpt-4o-2024-08-06", 16384},
	} {
		samples, err := doctor.Requests(context.Background(), doctor.RequestOptions{Provider: "openai", Model: m.model, MaxOutputTokens: m.maxOutput})
		if err != nil {
			t.Fatal(err)
		}
		fake := openaitest.New(t)
		client := openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
		for i, s := range samples {
			t.Run(fmt.Sprintf("%s/%02d %s", m.model, i, s.Kind), func(t *testing.T) {
				if _, err := client.Complete(context.Background(), s.Request); err != nil {
					t.Errorf("refused: %v", err)
				}
			})
		}
		if got := len(fake.Requests()); got != len(samples) {
			t.Errorf("%s: the fake saw %d requests, want %d", m.model, got, len(samples))
		}
	}
}
