package anthropic_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/council-dev/council/internal/doctor"
	"github.com/council-dev/council/internal/provider/anthropic"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// TestEveryRequestCouncilSends walks one request of every kind council sends (reviewer turns,
// validator checks, warm-ups, overview, thread check, judge), made by the code that sends
// them, through the SDK to the fake, which refuses what the Messages API refuses; and does so
// for models with different rules (a prefill-refusing one, the smallest output limit).
func TestEveryRequestCouncilSends(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		model     string
		maxOutput int
	}{
		{"claude-sonnet-4-5", 0},
		{"claude-sonnet-4-6", 0},
		{"claude-3-5-sonnet-20241022", 8192},
	} {
		samples, err := doctor.Requests(context.Background(), doctor.RequestOptions{Provider: "anthropic", Model: m.model, MaxOutputTokens: m.maxOutput})
		if err != nil {
			t.Fatal(err)
		}
		fake := anthropictest.New(t)
		client := anthropic.New(anthropic.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
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
