package benchreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/bench"
)

func TestMarkdownAcceptance(t *testing.T) {
	t.Parallel()
	runs := twoRuns()
	runs[0].Score.Acceptance = &bench.Acceptance{
		Signals: "signals.jsonl",
		Overall: bench.AcceptanceCount{Accepted: 3, Rejected: 2, Ignored: 1, Total: 6, Rate: 0.5},
		ByReviewer: []bench.AcceptanceCount{
			{Reviewer: "correctness", Accepted: 2, Rejected: 1, Ignored: 1, Total: 4, Rate: 0.5},
		},
	}
	var b bytes.Buffer
	if err := Markdown(&b, runs); err != nil {
		t.Fatal(err)
	}
	name := runs[0].Name
	for _, want := range []string{
		"## Acceptance of posted comments",
		"| Run | Reviewer | Acceptance | Accepted | Rejected | Ignored | Comments |",
		"| " + name + " | all | 0.50 | 3 | 2 | 1 | 6 |",
		"| " + name + " | correctness | 0.50 | 2 | 1 | 1 | 4 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(b.String(), "| "+runs[1].Name+" | all |") {
		t.Errorf("a run scored without --signals has an acceptance row")
	}
}
