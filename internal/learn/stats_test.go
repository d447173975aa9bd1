package learn

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComputeStats(t *testing.T) {
	t.Parallel()
	ss := []Signal{
		{Reviewer: "docs", Category: "docs", Severity: "low", Path: "felix/fv/a_test.go", Reactions: map[string]int{"-1": 1}}, // rejected
		{Reviewer: "docs", Category: "docs", Severity: "low", Path: "felix/fv/b_test.go", Resolved: true},                     // rejected
		{Reviewer: "docs", Category: "docs", Severity: "nit", Path: "README.md"},                                              // ignored
		{Reviewer: "bugs", Category: "bug", Severity: "high", Path: "felix/calc.go", Addressed: true},                         // accepted
		{Reviewer: "bugs", Category: "", Severity: "medium", Path: "main.go", Reactions: map[string]int{"rocket": 1}},         // accepted
	}
	want := Stats{
		Overall: Bucket{Accepted: 2, Rejected: 2, Ignored: 1, Total: 5, Rate: 0.4},
		ByReviewer: []Bucket{
			{Key: "docs", Rejected: 2, Ignored: 1, Total: 3, Rate: 0},
			{Key: "bugs", Accepted: 2, Total: 2, Rate: 1},
		},
		ByCategory: []Bucket{
			{Key: "docs", Rejected: 2, Ignored: 1, Total: 3},
			{Key: "", Accepted: 1, Total: 1, Rate: 1},
			{Key: "bug", Accepted: 1, Total: 1, Rate: 1},
		},
		BySeverity: []Bucket{
			{Key: "low", Rejected: 2, Total: 2},
			{Key: "high", Accepted: 1, Total: 1, Rate: 1},
			{Key: "medium", Accepted: 1, Total: 1, Rate: 1},
			{Key: "nit", Ignored: 1, Total: 1},
		},
		ByPath: []Bucket{
			{Key: ".", Accepted: 1, Ignored: 1, Total: 2, Rate: 0.5},
			{Key: "felix/fv", Rejected: 2, Total: 2},
			{Key: "felix", Accepted: 1, Total: 1, Rate: 1},
		},
	}
	got := ComputeStats(ss)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ComputeStats (-want +got):\n%s", diff)
	}
	if got.Acceptance() != 0.4 {
		t.Errorf("Acceptance() = %v, want 0.4", got.Acceptance())
	}
	if diff := cmp.Diff(Stats{}, ComputeStats(nil)); diff != "" {
		t.Errorf("no signals (-want +got):\n%s", diff)
	}
}

// TestComputeStatsAsks counts human reviewers' asks apart from council's comments: a change
// found in git is accepted by definition and must not raise council's acceptance.
func TestComputeStatsAsks(t *testing.T) {
	t.Parallel()
	ss := []Signal{
		{Reviewer: "bugs", Path: "main.go", Reactions: map[string]int{"-1": 1}}, // council's, rejected
		{Source: SourceFeedback, Author: "dev", Path: "pkg/kube/ready.go"},      // accepted
		{Source: SourceFeedback, Author: "dev", Path: "pkg/api/h.go"},           // accepted
		{Source: SourceReview, Author: "alice", Path: "cmd/main.go"},            // ignored
		{Source: SourceReview, Author: "alice", Path: "README.md", Addressed: true},
	}
	got := ComputeStats(ss)
	want := Stats{
		Overall:    Bucket{Rejected: 1, Total: 1},
		ByReviewer: []Bucket{{Key: "bugs", Rejected: 1, Total: 1}},
		ByCategory: []Bucket{{Key: "", Rejected: 1, Total: 1}},
		BySeverity: []Bucket{{Key: "", Rejected: 1, Total: 1}},
		ByPath:     []Bucket{{Key: ".", Rejected: 1, Total: 1}},
		Asks:       Bucket{Accepted: 3, Ignored: 1, Total: 4, Rate: 0.75},
		AsksBySource: []Bucket{
			{Key: SourceFeedback, Accepted: 2, Total: 2, Rate: 1},
			{Key: SourceReview, Accepted: 1, Ignored: 1, Total: 2, Rate: 0.5},
		},
		AsksByDir: []Bucket{
			{Key: "pkg", Accepted: 2, Total: 2, Rate: 1},
			{Key: ".", Accepted: 1, Total: 1, Rate: 1},
			{Key: "cmd", Ignored: 1, Total: 1},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ComputeStats (-want +got):\n%s", diff)
	}
}
