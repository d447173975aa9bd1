package persona_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/persona"
)

func TestHoldOut(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	c := func(repo string, pr, h int, body string) persona.Comment {
		return persona.Comment{Repo: repo, PR: pr, CreatedAt: at(h), Body: body, Author: "alice"}
	}
	// #3 was opened before #5 but alice first commented on it later; a late comment on #1
	// does not make #1 recent: the first comment orders.
	comments := []persona.Comment{
		c("acme/api", 1, 1, "first on 1"), c("acme/api", 3, 6, "first on 3 (held)"), c("acme/api", 5, 4, "first on 5"),
		c("acme/api", 1, 9, "late on 1"), c("acme/api", 3, 7, "more on 3 (held)"), c("acme/API", 2, 5, "on 2, tied? no"),
	}
	tests := []struct {
		n          int
		held, kept []int
	}{
		{0, nil, []int{1, 5, 2, 3}},
		{1, []int{3}, []int{1, 5, 2}},
		{2, []int{2, 3}, []int{1, 5}},
		{9, []int{1, 5, 2, 3}, nil},
	}
	for _, tc := range tests {
		s := persona.HoldOut(comments, tc.n)
		numbers := func(refs []persona.PRRef) []int {
			var out []int
			for _, r := range refs {
				out = append(out, r.Number)
			}
			return out
		}
		if d := cmp.Diff(tc.held, numbers(s.HeldPRs)); d != "" {
			t.Errorf("n=%d: held (-want +got):\n%s", tc.n, d)
		}
		if d := cmp.Diff(tc.kept, numbers(s.TrainPRs)); d != "" {
			t.Errorf("n=%d: kept (-want +got):\n%s", tc.n, d)
		}
		if len(s.Train)+len(s.Held) != len(comments) {
			t.Errorf("n=%d: %d + %d comments, want %d", tc.n, len(s.Train), len(s.Held), len(comments))
		}
		heldSet := map[int]bool{}
		for _, n := range tc.held {
			heldSet[n] = true
		}
		for _, cm := range s.Train {
			if heldSet[cm.PR] || strings.Contains(cm.Body, "(held)") && tc.n > 0 {
				t.Errorf("n=%d: a comment of a held-out pull request is in Train: %+v", tc.n, cm)
			}
		}
		for _, cm := range s.Held {
			if !heldSet[cm.PR] {
				t.Errorf("n=%d: a comment of a kept pull request is held out: %+v", tc.n, cm)
			}
		}
	}
}
