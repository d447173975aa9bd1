package openai

import (
	"encoding/json"
	"testing"

	"github.com/council-dev/council/internal/provider"
)

// TestTokenLimitField covers the endpoint that no fake can stand in for: OpenAI's own, which
// gets max_completion_tokens for every model.
func TestTokenLimitField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, model, want string
	}{
		{"", "gpt-4o", "max_completion_tokens"},
		{"https://api.openai.com/v1", "gpt-4.1", "max_completion_tokens"},
		{"http://localhost:11434/v1", "llama3.1:8b", "max_tokens"},
		{"http://localhost:11434/v1", "gpt-oss:20b", "max_tokens"},
		{"https://gateway.example/v1", "openai/gpt-5", "max_completion_tokens"},
		{"https://gateway.example/v1", "o4-mini", "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.base+" "+tt.model, func(t *testing.T) {
			t.Parallel()
			c := New(Options{BaseURL: tt.base})
			p, err := c.newParams(provider.Request{Model: tt.model, MaxTokens: 64, Messages: []provider.Message{
				{Role: provider.User, Content: []provider.Block{{Type: provider.Text, Text: "hi"}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(data, &body); err != nil {
				t.Fatal(err)
			}
			if body[tt.want] != float64(64) {
				t.Errorf("body %s lacks %s: 64", data, tt.want)
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[tt.want]
			if _, ok := body[other]; ok {
				t.Errorf("body %s also sends %s", data, other)
			}
		})
	}
}
