package learn

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/history"
	gitsource "github.com/council-dev/council/internal/source"
)

func TestFeedbackSignals(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, time.UTC) }
	first := gitsource.Commit{SHA: "1111111111111111111111111111111111111111", Time: day(1)}
	head := gitsource.Commit{SHA: "2222222222222222222222222222222222222222", Time: day(2)}
	fix1 := gitsource.Commit{SHA: "3333333333333333333333333333333333333333", Time: day(3)}
	fix2 := gitsource.Commit{SHA: "4444444444444444444444444444444444444444", Time: day(4)}
	merge := gitsource.Commit{SHA: "5555555555555555555555555555555555555555", Time: day(5)}
	fb := history.Feedback{
		Branch:   history.MergedBranch{Merge: merge, Line: []gitsource.Commit{first, head, fix1, fix2}, Head: 1, Feedback: []gitsource.Commit{fix1, fix2}},
		Messages: map[string]string{merge.SHA: "Merge pull request #21 from dev/ready\n\nReadiness"},
		Hunks: []history.Hunk{
			{Path: "pkg/kube/ready.go", Line: 8, StartLine: 5, Commits: []gitsource.Commit{fix2}, Commit: fix2, CommitPath: "pkg/kube/ready.go", CommitLine: 8, Author: "dev",
				Message: "Update pkg/kube/ready.go", Diff: "@@ -5,7 +5,7 @@\n-a\n+b\n"},
			{Path: "pkg/testdata/x.json", Commits: []gitsource.Commit{fix1}, Drop: history.DropTestData, Diff: "@@ -1 +1 @@\n-1\n+2\n"},
			{Path: "old.go", Line: 3, Commits: []gitsource.Commit{fix1, fix2}, Commit: fix2, CommitPath: "new.go", CommitLine: 4, Author: "rev", Message: "Address review comments", Diff: "@@ -3 +3 @@\n-x\n+y\n"},
		},
	}
	got := FeedbackSignals("acme/widget", fb)
	want := []Signal{
		{Repo: "acme/widget", PR: 21, PRCreated: day(1), PRMerged: true, Created: day(4),
			URL:  "https://github.com/acme/widget/pull/21/commits/4444444444444444444444444444444444444444#diff-39515c84d198f1004ae08f0598487c2eb7ec3b59965f86ee99adaaf2703e1d43L8",
			Path: "pkg/kube/ready.go", Line: 8, Body: fb.Hunks[0].Body(), Addressed: true, Source: SourceFeedback, Author: "dev", Merge: merge.SHA, Commit: fix2.SHA},
		{Repo: "acme/widget", PR: 21, PRCreated: day(1), PRMerged: true, Created: day(4),
			URL:  CommitLineURL("acme/widget", 21, fix2.SHA, "new.go", 4),
			Path: "old.go", Line: 3, Body: fb.Hunks[2].Body(), Addressed: true, Source: SourceFeedback, Author: "rev", Merge: merge.SHA, Commit: fix2.SHA},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("signals (-want +got):\n%s", d)
	}
	if got[0].Body != "Update pkg/kube/ready.go\n\n`pkg/kube/ready.go`:\n```diff\n@@ -5,7 +5,7 @@\n-a\n+b\n```" {
		t.Errorf("body %q", got[0].Body)
	}
	if !got[0].IsAsk() || got[0].Outcome() != Accepted {
		t.Errorf("a feedback signal is an accepted ask: %+v", got[0])
	}
}
