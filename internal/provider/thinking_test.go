package provider

import "testing"

func TestWithThinkingRoom(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		model         string
		answer, limit int
		want          int
	}{
		{"claude-sonnet-5-5", 1024, 128000, 3072},     // the validator's budget, with room to think
		{"claude-sonnet-5-5", 8192, 0, 24576},         // a review; the guard passes no limit
		{"claude-opus-5-5", 20000, 0, 52000},          // the room stops at MaxThinkingRoom
		{"claude-sonnet-5-5", 120000, 128000, 128000}, // never past the model's limit
		{"claude-sonnet-5-5", 130000, 128000, 130000}, // an answer budget over the limit is the caller's error, left for the service to refuse
		{"claude-haiku-5-5-20261007", 1, 0, 3},        // a dated name takes its family's rule
		{"claude-haiku-4-5", 1024, 64000, 1024},       // thinks only when asked
		{"claude-opus-4-5", 1024, 0, 1024},
		{"gpt-4.1", 1024, 0, 1024},
		{"gpt-6.2-sol", 8192, 128000, 24576}, // OpenAI's GPT-6 models reason by default
		{"gpt-6-luna-2026-09-22", 1024, 0, 3072},
	} {
		if got := WithThinkingRoom(tt.model, tt.answer, tt.limit); got != tt.want {
			t.Errorf("WithThinkingRoom(%q, %d, %d) = %d, want %d", tt.model, tt.answer, tt.limit, got, tt.want)
		}
	}
}
