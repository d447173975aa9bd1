package doctor_test

import (
	"context"
	"testing"

	"github.com/council-dev/council/internal/doctor"
	"github.com/council-dev/council/internal/provider"
)

// TestRequestsCoverEveryKind: the sample holds every kind of request, each made for the model
// asked, and the forced turns force the tool that ends the conversation.
func TestRequestsCoverEveryKind(t *testing.T) {
	t.Parallel()
	ss, err := doctor.Requests(context.Background(), doctor.RequestOptions{Provider: "openai", Model: "gpt-4.1", MaxOutputTokens: 4000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range ss {
		seen[s.Kind]++
		if s.Request.Model != "gpt-4.1" {
			t.Errorf("%s: model %q, want gpt-4.1", s.Kind, s.Request.Model)
		}
	}
	for _, k := range doctor.Kinds() {
		if seen[k] == 0 {
			t.Errorf("no request of kind %q", k)
		}
	}
	if len(seen) != len(doctor.Kinds()) {
		t.Errorf("kinds seen %v, want exactly %v", seen, doctor.Kinds())
	}
	for _, s := range ss {
		switch s.Kind {
		case doctor.KindReviewFirst, doctor.KindReviewFinal:
			if s.Request.MaxTokens != 4000 {
				t.Errorf("%s: max_tokens %d, want the config's 4000", s.Kind, s.Request.MaxTokens)
			}
		}
		if s.Kind == doctor.KindReviewTools {
			last := s.Request.Messages[len(s.Request.Messages)-1]
			if last.Role != provider.User || last.Content[0].Type != provider.ToolResult {
				t.Errorf("%s: last message %+v, want tool results", s.Kind, last)
			}
		}
	}
}
