package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/doctor"
	"github.com/council-dev/council/internal/provider/openai"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

// TestEveryRequestCouncilSends walks one request of every kind council sends (reviewer turns,
// validator checks, warm-ups, overview, thread check, question, judge, persona build, learn),
// made by the code that sends them, through the SDK to the fake, which refuses what
// Chat Completions refuses; and does so
// for models with different rules (a reasoning model, the smallest output limit, a GPT-6
// model that takes tools only with reasoning_effort "none").
// It also compares every tool schema in the HTTP body the SDK sent with the one council wrote.
func TestEveryRequestCouncilSends(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		model     string
		maxOutput int
		official  bool // sent as to api.openai.com: max_completion_tokens, and the GPT-6 rules
	}{
		{"gpt-4.1", 0, false},
		{"gpt-4.1", 0, true}, // the default, as most users send it: max_completion_tokens
		{"o4-mini", 0, false},
		{"gpt-4o-2024-08-06", 16384, false},
		{"gpt-6-luna", 0, true},
	} {
		samples, err := doctor.Requests(context.Background(), doctor.RequestOptions{Provider: "openai", Model: m.model, MaxOutputTokens: m.maxOutput})
		if err != nil {
			t.Fatal(err)
		}
		fake := openaitest.New(t)
		client := openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
		if m.official {
			client = officialClient(t, fake)
		}
		for i, s := range samples {
			t.Run(fmt.Sprintf("%s/official=%v/%02d %s", m.model, m.official, i, s.Kind), func(t *testing.T) {
				if _, err := client.Complete(context.Background(), s.Request); err != nil {
					t.Errorf("refused: %v", err)
				}
				// Each tool's schema on the wire is the one council wrote, value for value and
				// type for type.
				sent := fake.Requests()[i].Tools
				if len(sent) != len(s.Request.Tools) {
					t.Fatalf("sent %d tools, want %d", len(sent), len(s.Request.Tools))
				}
				for j, tool := range s.Request.Tools {
					if sent[j].Function.Name != tool.Name {
						t.Errorf("tool %d: sent %q, want %q", j, sent[j].Function.Name, tool.Name)
					} else if diff := cmp.Diff(exact(t, tool.InputSchema), exact(t, sent[j].Function.Parameters)); diff != "" {
						t.Errorf("tool %s: schema on the wire differs from council's (-council +sent):\n%s", tool.Name, diff)
					}
				}
			})
		}
		if got := len(fake.Requests()); got != len(samples) {
			t.Errorf("%s: the fake saw %d requests, want %d", m.model, got, len(samples))
		}
	}
}

// exact decodes JSON keeping each number as written (json.Number), so that a number and the
// same digits as a string compare unequal.
func exact(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}
