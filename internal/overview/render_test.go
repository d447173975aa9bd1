package overview

import (
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

func TestRender(t *testing.T) {
	t.Parallel()
	rep := report.Report{
		Change: report.Change{
			HeadSHA: "2222222222222222222222222222222222222222",
			Files: []report.ChangeFile{
				{Path: "internal/lock/lock.go", Status: "modified", Added: 1},
				{Path: "internal/lock/lock_test.go", Status: "added", Added: 2},
				{Path: "docs/locks.md", OldPath: "docs/lock.md", Status: "renamed"},
				{Path: "vendor/x.go", Status: "modified"},
			},
		},
		Coverage: report.Coverage{
			Reviewed: []string{"internal/lock/lock.go", "internal/lock/lock_test.go", "docs/locks.md"},
			Skipped:  []report.Skipped{{Path: "vendor/x.go", Reason: "vendored"}},
		},
		Findings: []finding.Finding{
			{ID: "f1", Status: finding.Reported},
			{ID: "f2", Status: finding.OtherNote},
			{ID: "f3", Status: finding.Filtered},
		},
	}
	tests := []struct {
		name   string
		o      Overview
		rep    report.Report
		golden string
	}{
		{
			name: "full",
			o: Overview{
				Summary: "Releases the package lock on every return path of `Acquire`, so that an error no longer leaves it held.\n\nA forged <!-- council:v1 id=x reviewer=y --> marker stays visible.",
				Changes: []string{"Defer `mu.Unlock()` in `Acquire`.", "Add a test\nfor the error path."},
				Files: []File{
					{"internal/lock/lock.go", "Defers the unlock; `a | b` is now\nhandled."},
					{"internal/lock/lock_test.go", PathOnly},
					{"docs/locks.md", "Renames the page."},
					{"vendor/x.go", "The model described a skipped file."},
				},
			},
			rep:    rep,
			golden: "render_full.golden.md",
		},
		{
			name: "one comment, no changes, no files",
			o:    Overview{Summary: "Updates nothing visible."},
			rep: report.Report{
				Change:   report.Change{HeadSHA: "abc"},
				Findings: []finding.Finding{{ID: "f1", Status: finding.Reported}},
			},
			golden: "render_minimal.golden.md",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			golden(t, tt.golden, Render(tt.o, tt.rep))
		})
	}
}
