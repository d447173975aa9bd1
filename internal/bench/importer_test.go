package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Commits of the histories below: c0 is pushed first, c1 after it, c2 last.
var (
	c0, c1, c2 = strings.Repeat("0", 40), strings.Repeat("1", 40), strings.Repeat("2", 40)
	baseSHA    = strings.Repeat("b", 40)
	forkPoint  = strings.Repeat("f", 40)
)

var t0 = time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

func person(login string) User { return User{Login: login} }

// long is a comment that passes the filters.
const long = "This returns before the mutex is unlocked, so the next caller deadlocks forever."

func TestSelectRoundHead(t *testing.T) {
	t.Parallel()
	review := func(id int64, login, state, body, commit string, minute int) PRReview {
		return PRReview{ID: id, User: person(login), State: state, Body: body, CommitID: commit, SubmittedAt: at(minute)}
	}
	tests := []struct {
		name         string
		reviews      []PRReview
		comments     []PRComment
		ignore       []string
		wantHead     string
		wantReviewer string
		wantSkip     string
	}{
		{
			name: "the first human other than the author",
			reviews: []PRReview{
				review(1, "helper[bot]", "COMMENTED", long, c0, 1),
				review(2, "dev", "COMMENTED", long, c0, 2),
				review(3, "alice", "COMMENTED", long, c1, 3),
				review(4, "bob", "APPROVED", "", c2, 4),
			},
			wantHead: c1, wantReviewer: "alice",
		},
		{
			name: "an approval without a word is a review",
			reviews: []PRReview{
				review(1, "bob", "APPROVED", "", c0, 1),
				review(2, "alice", "COMMENTED", long, c1, 2),
			},
			wantHead: c0, wantReviewer: "bob",
		},
		{
			name: "a pending review never counts",
			reviews: []PRReview{
				review(1, "carol", "PENDING", long, c0, 1),
				review(2, "alice", "COMMENTED", long, c1, 2),
			},
			comments: []PRComment{{ID: 10, ReviewID: 1, User: person("carol"), Body: long, Path: "a.go", Line: 1, CommitID: c0, CreatedAt: at(1)}},
			wantHead: c1, wantReviewer: "alice",
		},
		{
			name: "a review that only replies is not a look at the code",
			reviews: []PRReview{
				review(1, "dev", "COMMENTED", "", c0, 1),
				review(2, "carol", "COMMENTED", "", c0, 2),
				review(3, "alice", "COMMENTED", long, c1, 3),
			},
			comments: []PRComment{
				{ID: 10, ReviewID: 1, User: person("dev"), Body: long, Path: "a.go", Line: 1, CommitID: c0, CreatedAt: at(1)},
				{ID: 11, ReviewID: 2, InReplyTo: 10, User: person("carol"), Body: "ok", Path: "a.go", Line: 1, CommitID: c0, CreatedAt: at(2)},
			},
			wantHead: c1, wantReviewer: "alice",
		},
		{
			name: "an inline comment's original commit",
			reviews: []PRReview{
				review(1, "alice", "COMMENTED", "", c2, 5),
			},
			comments: []PRComment{{ID: 10, ReviewID: 1, User: person("alice"), Body: long, Path: "a.go", Line: 1, CommitID: c1, CreatedAt: at(4)}},
			wantHead: c1, wantReviewer: "alice",
		},
		{
			name:     "GitHub's bot type",
			reviews:  []PRReview{{ID: 1, User: User{Login: "reviewer-app", Bot: true}, State: "COMMENTED", Body: long, CommitID: c0, SubmittedAt: at(1)}},
			wantSkip: NoHumanReview + " (left out as bots or AI reviewers: reviewer-app)",
		},
		{
			name: "an account with no login is named by none",
			reviews: []PRReview{
				review(1, "", "COMMENTED", long, c0, 1),
				review(2, "helper[bot]", "COMMENTED", long, c0, 2),
			},
			wantSkip: NoHumanReview + " (left out as bots or AI reviewers: helper[bot])",
		},
		{
			name:     "no login alone",
			reviews:  []PRReview{review(1, "", "COMMENTED", long, c0, 1)},
			wantSkip: NoHumanReview,
		},
		{
			name:     "only the author",
			reviews:  []PRReview{review(1, "dev", "COMMENTED", long, c0, 1)},
			wantSkip: NoHumanReview,
		},
		{
			name:     "nobody",
			wantSkip: NoHumanReview,
		},
		{
			name: "ignored users are bots, whatever their case",
			reviews: []PRReview{
				review(1, "CodeRabbitAI", "COMMENTED", long, c0, 1),
				review(2, "dev", "COMMENTED", long, c0, 2),
				review(3, "copilot", "COMMENTED", long, c0, 3),
			},
			ignore:   []string{"coderabbitai", " Copilot "},
			wantSkip: NoHumanReview + " (left out as bots or AI reviewers: CodeRabbitAI, copilot)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := History{PR: PullRequest{Number: 7, Author: "dev"}, Reviews: tt.reviews, Comments: tt.comments}
			got, err := SelectRound(h, tt.ignore)
			var skip *SkipError
			if tt.wantSkip != "" {
				if !errors.As(err, &skip) || skip.Reason != tt.wantSkip {
					t.Fatalf("SelectRound: %v, want the skip %q", err, tt.wantSkip)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Head != tt.wantHead || got.Reviewer != tt.wantReviewer {
				t.Errorf("head %s by %s, want %s by %s", got.Head[:1], got.Reviewer, tt.wantHead[:1], tt.wantReviewer)
			}
		})
	}
}

// roundHistory is a pull request reviewed at c1 by alice and bob, with everything the round
// must sort out, and a later round at c2.
func roundHistory() History {
	return History{
		PR: PullRequest{Number: 7, Author: "dev", BaseRef: "main", BaseSHA: baseSHA, HeadSHA: c2},
		Reviews: []PRReview{
			{ID: 100, User: person("alice"), State: "CHANGES_REQUESTED", Body: "The locking in this change is not right yet; see the inline comments before this can merge.", CommitID: c1, SubmittedAt: at(10), URL: "u/r100"},
			{ID: 101, User: person("bob"), State: "APPROVED", Body: "LGTM 👍", CommitID: c1, SubmittedAt: at(12)},
			{ID: 102, User: person("dev"), State: "COMMENTED", Body: "", CommitID: c2, SubmittedAt: at(20)},
			{ID: 103, User: person("helper[bot]"), State: "COMMENTED", Body: "Automated summary of the whole change, with many more than ten words in it.", CommitID: c1, SubmittedAt: at(5)},
			{ID: 104, User: person("carol"), State: "COMMENTED", Body: "A second look at the new head, with many more than ten words in it.", CommitID: c2, SubmittedAt: at(30)},
			{ID: 105, User: person("dev"), State: "COMMENTED", Body: "Author's note on the change: a review body by the author at the reviewed commit.", CommitID: c1, SubmittedAt: at(11)},
			{ID: 106, User: person("bob"), State: "PENDING", Body: "a draft nobody sees, with more than ten words in it so far", CommitID: c1},
		},
		Comments: []PRComment{
			{ID: 1, ReviewID: 100, User: person("alice"), Body: long, Path: "cache.go", Line: 12, StartLine: 10, Side: "RIGHT", StartSide: "RIGHT", CommitID: c1, CreatedAt: at(10), URL: "u/c1"},
			{ID: 2, ReviewID: 100, User: person("alice"), Body: "Nice!", Path: "cache.go", Line: 20, Side: "RIGHT", CommitID: c1, CreatedAt: at(10)},
			{ID: 3, ReviewID: 100, User: person("alice"), Body: "Should we log here?", Path: "cache.go", Line: 30, Side: "RIGHT", CommitID: c1, CreatedAt: at(10)},
			{ID: 4, ReviewID: 100, User: person("alice"), Body: "`strconv.Atoi` error is ignored.", Path: "size.go", Line: 3, StartLine: 2, Side: "RIGHT", StartSide: "LEFT", CommitID: c1, CreatedAt: at(10)},
			{ID: 5, ReviewID: 102, InReplyTo: 1, User: person("dev"), Body: "Good catch, fixed.", Path: "cache.go", Line: 12, CommitID: c1, CreatedAt: at(20)},
			{ID: 6, ReviewID: 103, InReplyTo: 1, User: person("helper[bot]"), Body: "I agree with this.", Path: "cache.go", Line: 12, CommitID: c1, CreatedAt: at(21)},
			{ID: 7, ReviewID: 102, InReplyTo: 2, User: person("dev"), Body: "Thanks!", Path: "cache.go", Line: 20, CommitID: c1, CreatedAt: at(22)},
			{ID: 8, ReviewID: 105, User: person("dev"), Body: "Note for reviewers: this mirrors the old cache code exactly, on purpose.", Path: "cache.go", Line: 40, Side: "RIGHT", CommitID: c1, CreatedAt: at(11)},
			{ID: 9, ReviewID: 103, User: person("helper[bot]"), Body: "Consider handling the error returned by Close here, it is dropped.", Path: "cache.go", Line: 50, Side: "RIGHT", CommitID: c1, CreatedAt: at(5)},
			{ID: 11, ReviewID: 104, User: person("carol"), Body: "This new branch is never reached because the earlier check returns first.", Path: "cache.go", Line: 60, Side: "RIGHT", CommitID: c2, CreatedAt: at(30)},
			{ID: 12, ReviewID: 106, User: person("bob"), Body: "pending comment with more than ten words in it, unseen by anyone else", Path: "cache.go", Line: 70, Side: "RIGHT", CommitID: c1},
			{ID: 13, ReviewID: 100, User: person("alice"), Body: "The whole file duplicates `lru.go`; the package already has one cache.", Path: "dup.go", Side: "RIGHT", CommitID: c1, CreatedAt: at(10)},
		},
		Resolved: map[int64]bool{4: true},
	}
}

func TestSelectRoundTruth(t *testing.T) {
	t.Parallel()
	got, err := SelectRound(roundHistory(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Round{
		Head: c1, Reviewer: "alice",
		Truth: []Truth{
			{
				ID: "1", Author: "alice", Path: "cache.go", Line: 12, StartLine: 10, Side: "RIGHT", Body: long,
				Kind: "concurrency", URL: "u/c1",
				Replies: []Reply{{Author: "dev", Body: "Good catch, fixed."}},
			},
			// The range starts on the other side: only its last line is kept.
			{ID: "4", Author: "alice", Path: "size.go", Line: 3, Side: "RIGHT", Body: "`strconv.Atoi` error is ignored.", Kind: "error-handling", Addressed: true},
			{ID: "13", Author: "alice", Path: "dup.go", Side: "RIGHT", Body: "The whole file duplicates `lru.go`; the package already has one cache.", Kind: "performance"},
			{
				ID: "100", Author: "alice", Body: "The locking in this change is not right yet; see the inline comments before this can merge.",
				Kind: "concurrency", ReviewBody: true, URL: "u/r100",
			},
		},
		Dropped: []Dropped{
			{ID: "2", Author: "alice", Body: "Nice!", Reason: DropPraise},
			{ID: "3", Author: "alice", Body: "Should we log here?", Reason: DropShort},
			{ID: "8", Author: "dev", Body: "Note for reviewers: this mirrors the old cache code exactly, on purpose.", Reason: DropByAuthor},
			{ID: "105", Author: "dev", Body: "Author's note on the change: a review body by the author at the reviewed commit.", Reason: DropByAuthor},
			{ID: "101", Author: "bob", Body: "LGTM 👍", Reason: DropPraise},
			{ID: "7", Author: "dev", Body: "Thanks!", Reason: DropReply},
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SelectRound (-want +got):\n%s", d)
	}
}

func TestSelectRoundKeepsIDsUnique(t *testing.T) {
	t.Parallel()
	h := History{
		PR:       PullRequest{Author: "dev"},
		Reviews:  []PRReview{{ID: 5, User: person("alice"), State: "COMMENTED", Body: long, CommitID: c1, SubmittedAt: at(1)}},
		Comments: []PRComment{{ID: 5, ReviewID: 5, User: person("alice"), Body: long, Path: "a.go", Line: 1, Side: "RIGHT", CommitID: c1, CreatedAt: at(1)}},
	}
	got, err := SelectRound(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tr := range got.Truth {
		ids = append(ids, tr.ID)
	}
	if d := cmp.Diff([]string{"5", "review-5"}, ids); d != "" {
		t.Errorf("truth ids (-want +got):\n%s", d)
	}
}

func TestTouches(t *testing.T) {
	t.Parallel()
	fc := FileChange{Hunks: []LineSpan{{Start: 5, Lines: 2}, {Start: 20, Lines: 0}}}
	tests := []struct {
		first, last int
		want        bool
	}{
		{1, 4, false},
		{4, 5, true},
		{6, 9, true},
		{7, 19, false},
		{20, 20, false}, // an insertion after line 20 does not touch line 20 alone
		{20, 21, true},  // but falls between 20 and 21
		{21, 30, false},
	}
	for _, tt := range tests {
		if got := fc.Touches(tt.first, tt.last); got != tt.want {
			t.Errorf("Touches(%d, %d) = %v, want %v", tt.first, tt.last, got, tt.want)
		}
	}
	if !(FileChange{Whole: true}).Touches(1, 1) || (FileChange{}).Changed() {
		t.Error("a whole-file change touches every line; no hunk is no change")
	}
}

type fakeHistory struct {
	h   History
	err error
}

func (f fakeHistory) History(context.Context, string, string, int) (History, error) {
	return f.h, f.err
}

// fakeGit holds the commits in have and answers the diff of every path from changes.
type fakeGit struct {
	have    map[string]bool
	changes map[string]FileChange
	diffs   []string // the paths ChangedLines was asked about
}

func (g *fakeGit) Fetch(_ context.Context, sha string) error {
	if !g.have[sha] {
		return errors.New("fatal: remote error: upload-pack: not our ref " + sha)
	}
	return nil
}

func (g *fakeGit) MergeBase(context.Context, string, string) (string, error) { return forkPoint, nil }

func (g *fakeGit) ChangedLines(_ context.Context, from, to, path string) (FileChange, error) {
	if from != c1 || to != c2 {
		return FileChange{}, errors.New("unexpected range")
	}
	g.diffs = append(g.diffs, path)
	return g.changes[path], nil
}

var (
	_ PRHistory = fakeHistory{}
	_ GitRepo   = (*fakeGit)(nil)
)

func TestImport(t *testing.T) {
	t.Parallel()
	all := map[string]bool{c1: true, c2: true, baseSHA: true}
	changes := map[string]FileChange{
		"cache.go": {Hunks: []LineSpan{{Start: 11, Lines: 1}}},
		"dup.go":   {Whole: true},
	}
	addressed := func(s Sample) map[string]bool {
		m := map[string]bool{}
		for _, tr := range s.Truth {
			m[tr.ID] = tr.Addressed
		}
		return m
	}
	tests := []struct {
		name          string
		merged        bool
		have          map[string]bool
		wantMerge     string
		wantAddressed map[string]bool
		wantDiffs     []string
		wantSkip      string
	}{
		{
			name: "merged: changed lines and resolved threads", merged: true, have: all, wantMerge: c2,
			wantAddressed: map[string]bool{"1": true, "4": true, "13": true, "100": false},
			wantDiffs:     []string{"cache.go", "dup.go"},
		},
		{
			name: "not merged: resolution only", have: all,
			wantAddressed: map[string]bool{"1": false, "4": true, "13": false, "100": false},
		},
		{
			name: "the reviewed commit is gone", merged: true, have: map[string]bool{c2: true, baseSHA: true},
			wantSkip: "the first reviewed commit 1111111 (reviewed by alice) is not in the clone and cannot be fetched by SHA",
		},
		{
			name: "the merged head is gone", merged: true, have: map[string]bool{c1: true, baseSHA: true},
			wantSkip: "the merged head 2222222 cannot be fetched",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := roundHistory()
			h.PR.Merged = tt.merged
			h.PR.Title, h.PR.URL = "Cache lookups", "https://github.example/acme/widget/pull/7"
			g := &fakeGit{have: tt.have, changes: changes}
			im := &Importer{GitHub: fakeHistory{h: h}, Git: g, Repo: Repo{URL: "https://github.example/acme/widget.git"}}
			got, err := im.Import(context.Background(), "Acme", "Widget", 7)
			if tt.wantSkip != "" {
				var skip *SkipError
				if !errors.As(err, &skip) || !strings.HasPrefix(skip.Reason, tt.wantSkip) {
					t.Fatalf("Import: %v, want a skip starting %q", err, tt.wantSkip)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := got.Sample
			if s.ID != "acme-widget-7" || s.Repo.Name != "Acme/Widget" || s.Base != forkPoint || s.Head != c1 || s.Merge != tt.wantMerge || got.Reviewer != "alice" {
				t.Errorf("sample %s of %s: base %s head %s merge %q by %s", s.ID, s.Repo.Name, s.Base, s.Head, s.Merge, got.Reviewer)
			}
			if d := cmp.Diff(tt.wantAddressed, addressed(s)); d != "" {
				t.Errorf("addressed (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantDiffs, g.diffs); d != "" {
				t.Errorf("paths diffed, once each (-want +got):\n%s", d)
			}
			if err := s.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestImportPassesGitHubErrorsThrough(t *testing.T) {
	t.Parallel()
	boom := errors.New("github: 502")
	im := &Importer{GitHub: fakeHistory{err: boom}, Git: &fakeGit{}}
	if _, err := im.Import(context.Background(), "o", "r", 1); !errors.Is(err, boom) {
		t.Errorf("Import: %v, want the GitHub error", err)
	}
}

func TestImportWithoutTruthWritesAnEmptyList(t *testing.T) {
	t.Parallel()
	h := History{
		PR:      PullRequest{Number: 3, Author: "dev", BaseSHA: baseSHA, HeadSHA: c1},
		Reviews: []PRReview{{ID: 1, User: person("bob"), State: "APPROVED", Body: "LGTM", CommitID: c1, SubmittedAt: at(1)}},
	}
	im := &Importer{GitHub: fakeHistory{h: h}, Git: &fakeGit{have: map[string]bool{c1: true, baseSHA: true}}, Repo: Repo{URL: "u"}}
	got, err := im.Import(context.Background(), "o", "r", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sample.Truth == nil || len(got.Sample.Truth) != 0 || len(got.Sample.Dropped) != 1 {
		t.Errorf("truth %#v, dropped %#v: want [] and the LGTM", got.Sample.Truth, got.Sample.Dropped)
	}
}

func TestImportLog(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ds")
	l, err := ReadImportLog(dir)
	if err != nil || len(l.PRs) != 0 {
		t.Fatalf("a dataset without import.json: %+v, %v", l, err)
	}
	l.Record(ImportEntry{Repo: "o/r", Number: 12, Reason: "a draft pull request"})
	l.Record(ImportEntry{Repo: "o/r", Number: 3, ID: "o-r-3"})
	l.Record(ImportEntry{Repo: "a/b", Number: 9, ID: "a-b-9"})
	l.Record(ImportEntry{Repo: "O/R", Number: 12, ID: "o-r-12"}) // imported since
	if err := WriteImportLog(dir, l); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ImportManifest))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "prs": [
    {
      "repo": "a/b",
      "number": 9,
      "id": "a-b-9"
    },
    {
      "repo": "o/r",
      "number": 3,
      "id": "o-r-3"
    },
    {
      "repo": "O/R",
      "number": 12,
      "id": "o-r-12"
    }
  ]
}
`
	if d := cmp.Diff(want, string(data)); d != "" {
		t.Errorf("import.json (-want +got):\n%s", d)
	}
	back, err := ReadImportLog(dir)
	if err != nil || len(back.PRs) != 3 {
		t.Errorf("read back: %+v, %v", back, err)
	}
	// LoadDataset skips import.json, so a dataset can hold both.
	if _, err := LoadDataset(dir); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("LoadDataset: %v, want no samples", err)
	}
}
