package history

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/source"
)

// memHistory is a history in memory, for the graph's walk: only History is called.
type memHistory struct{ commits []source.Commit }

func (h memHistory) History(_ context.Context, _ string, visit func(source.Commit) error) error {
	for _, c := range h.commits {
		if err := visit(c); err != nil {
			return err
		}
	}
	return nil
}
func (memHistory) Messages(context.Context, []string) (map[string]string, error) { panic("not used") }
func (memHistory) MergeBase(context.Context, string, string) (string, error)     { panic("not used") }
func (memHistory) ChangedFiles(context.Context, string, string) (map[string]bool, error) {
	panic("not used")
}
func (memHistory) DiffRange(context.Context, string, string) ([]diff.File, error) {
	panic("not used")
}
func (memHistory) ReadFile(context.Context, string, string) ([]byte, error) { panic("not used") }

// historyBuilder names commits by short names and gives each a SHA made of its name.
type historyBuilder struct {
	commits []source.Commit // oldest first
	msgs    map[string]string
	day     int
}

func sha(name string) string { return fmt.Sprintf("%040x", []byte(name))[:40] }

func (b *historyBuilder) commit(name, subject string, parents ...string) {
	b.commitBy(name, "dev", "dev@example.com", subject, parents...)
}

// commitBy makes a commit by author, committed as committerEmail says, with message (its
// first line is the subject).
func (b *historyBuilder) commitBy(name, author, committerEmail, message string, parents ...string) {
	b.day++
	subject, _, _ := strings.Cut(message, "\n")
	c := source.Commit{SHA: sha(name), Subject: subject, Author: author, CommitterEmail: committerEmail,
		Time: time.Date(2026, 1, b.day, 0, 0, 0, 0, time.UTC)}
	for _, p := range parents {
		c.Parents = append(c.Parents, sha(p))
	}
	b.commits = append(b.commits, c)
	if b.msgs == nil {
		b.msgs = map[string]string{}
	}
	b.msgs[c.SHA] = message
}

// log is the history as git log gives it: newest first, so the tip comes first.
func (b *historyBuilder) log() memHistory {
	out := make([]source.Commit, len(b.commits))
	for i, c := range b.commits {
		out[len(out)-1-i] = c
	}
	return memHistory{out}
}

func TestGitGraphMerges(t *testing.T) {
	t.Parallel()
	var b historyBuilder
	b.commit("r", "initial")
	// #1: a reviewed commit, the feedback, then other work and a later nit (not in the run).
	b.commit("b1a", "add the cache", "r")
	b.commit("b1b", "Address review comments", "b1a")
	b.commit("b1c", "squash! more review fixes", "b1b")
	b.commit("b1d", "add metrics", "b1c")
	b.commit("b1e", "nit: rename", "b1d")
	b.commit("m1", "Merge pull request #1 from dev/cache", "r", "b1e")
	// #2: no commit answers review.
	b.commit("b2a", "add x", "m1")
	b.commit("m2", "Merge pull request #2 from dev/x", "m1", "b2a")
	// #3: the branch merges the base into itself before the review; the merge is not feedback
	// even though its subject says "review".
	b.commit("b3a", "feature", "m1")
	b.commit("b3m", "Merge branch 'main' into review-fixes", "b3a", "m2")
	b.commit("b3b", "address review comments", "b3m")
	b.commit("m3", "Merge pull request #3 from dev/feature", "m2", "b3b")
	// An octopus merge.
	b.commit("c1", "one", "m3")
	b.commit("c2", "two", "m3")
	b.commit("m4", "Merge branches c1 and c2", "m3", "c1", "c2")
	// #5 merges what the base already has.
	b.commit("m5", "Merge pull request #5 from dev/again", "m4", "b1e")
	// #6: the branch starts with its feedback.
	b.commit("b6a", "fixup! add x", "m5")
	b.commit("m6", "Merge pull request #6 from dev/fixup", "m5", "b6a")
	// #7: the only feedback is an AI reviewer's.
	b.commit("b7a", "add y", "m6")
	b.commit("b7b", "address copilot comments", "b7a")
	b.commit("m7", "Merge pull request #7 from dev/y", "m6", "b7b")
	// #8: unrelated history.
	b.commit("u1", "other project")
	b.commit("m8", "Merge pull request #8 from dev/other", "m7", "u1")
	// #9: a branch past the shallow clone's depth.
	b.commit("s1", "deep", "gone")
	b.commit("s2", "Address review comments", "s1")
	b.commit("m9", "Merge pull request #9 from dev/deep", "m8", "s2")
	// #10 then #11, stacked on #10's branch.
	b.commit("b10a", "base of the stack", "m9")
	b.commit("m10", "Merge pull request #10 from dev/stack-1", "m9", "b10a")
	b.commit("b11a", "top of the stack", "b10a")
	b.commitBy("b11b", "dev", "noreply@github.com", "Apply suggestions from code review\n\nCo-authored-by: Alice <alice@example.com>", "b11a")
	b.commit("m11", "Merge pull request #11 from dev/stack-2", "m10", "b11b")
	// #12: a suggestion a reviewer made, applied on GitHub, then more answers.
	b.commit("b12a", "add z", "m11")
	b.commitBy("b12b", "dev", "noreply@github.com", "Update z.go\n\nCo-authored-by: Bob Reviewer <bob@example.com>", "b12a")
	b.commit("b12c", "Address review comments", "b12b")
	b.commit("m12", "Merge pull request #12 from dev/z", "m11", "b12c")
	// #13: Copilot Autofix's suggestions, applied.
	b.commit("b13a", "add w", "m12")
	b.commitBy("b13b", "dev", "noreply@github.com",
		"Apply suggestions from code review\n\nCo-authored-by: Copilot Autofix powered by AI <62310815+github-advanced-security[bot]@users.noreply.github.com>", "b13a")
	b.commit("m13", "Merge pull request #13 from dev/w", "m12", "b13b")
	// #14: the author's own suggestions, applied; and an "Update" the author made on GitHub.
	b.commit("b14a", "add v", "m13")
	b.commitBy("b14b", "dev", "noreply@github.com", "Apply suggestions from code review\n\nCo-authored-by: dev <dev@example.com>", "b14a")
	b.commitBy("b14c", "dev", "noreply@github.com", "Update v.go", "b14b")
	b.commit("m14", "Merge pull request #14 from dev/v", "m13", "b14c")
	b.commit("t", "a commit on main after the merges", "m14")

	g, err := LoadGraph(context.Background(), b.log(), "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Skip     string
		Line     []string
		Head     string
		Feedback []string
		Phrase   string
	}
	names := map[string]string{}
	for _, c := range b.commits {
		names[c.SHA] = c.Subject
	}
	summarize := func(mb MergedBranch) got {
		mb = SelectFeedback(mb, b.msgs, nil)
		var out got
		out.Skip = mb.Skip
		if mb.Skip != "" {
			return out
		}
		for _, c := range mb.Line {
			out.Line = append(out.Line, c.Subject)
		}
		out.Head = mb.Line[mb.Head].Subject
		for _, c := range mb.Feedback {
			out.Feedback = append(out.Feedback, c.Subject)
		}
		out.Phrase = mb.Phrase
		return out
	}
	merges := g.Merges(time.Time{}, time.Time{}, nil)
	gotBy := map[string]got{}
	var order []string
	for _, mb := range merges {
		n, _, _ := PRFromMerge(mb.Merge.Subject)
		key := fmt.Sprintf("#%d", n)
		if n == 0 {
			key = mb.Merge.Subject
		}
		order = append(order, key)
		gotBy[key] = summarize(mb)
	}
	want := map[string]got{
		"#1": {Line: []string{"add the cache", "Address review comments", "squash! more review fixes", "add metrics", "nit: rename"},
			Head: "add the cache", Feedback: []string{"Address review comments", "squash! more review fixes"}, Phrase: "Address review comments"},
		"#2": {Skip: SkipNoFeedback},
		"#3": {Line: []string{"feature", "Merge branch 'main' into review-fixes", "address review comments"},
			Head: "Merge branch 'main' into review-fixes", Feedback: []string{"address review comments"}, Phrase: "address review comments"},
		"Merge branches c1 and c2": {Skip: fmt.Sprintf(skipOctopusPattern, 2)},
		"#5":                       {Skip: SkipNothingMerged},
		"#6":                       {Skip: SkipFeedbackFirst},
		"#7":                       {Skip: SkipNoFeedback},
		"#8":                       {Skip: SkipUnrelated},
		"#9":                       {Skip: SkipShallow},
		"#10":                      {Skip: SkipNoFeedback},
		"#11": {Line: []string{"top of the stack", "Apply suggestions from code review"}, Head: "top of the stack",
			Feedback: []string{"Apply suggestions from code review"}, Phrase: "Apply suggestions from code review"},
		"#12": {Line: []string{"add z", "Update z.go", "Address review comments"}, Head: "add z",
			Feedback: []string{"Update z.go", "Address review comments"}, Phrase: "Update z.go"},
		"#13": {Skip: SkipNoFeedback},
		"#14": {Skip: SkipNoFeedback},
	}
	if diff := cmp.Diff(want, gotBy); diff != "" {
		t.Errorf("merges (-want +got):\n%s", diff)
	}
	if strings.Join(order, " ") != "#14 #13 #12 #11 #10 #9 #8 #7 #6 #5 Merge branches c1 and c2 #3 #2 #1" {
		t.Errorf("merges in order %v: want newest first", order)
	}
	if g.Commits() != len(b.commits) {
		t.Errorf("%d commits read, want %d", g.Commits(), len(b.commits))
	}

	// A window of dates: the merge's own date counts, since inclusive, until exclusive.
	since, until := b.commits[6].Time, b.commits[12].Time // m1's day, m3's day
	var in []string
	for _, mb := range g.Merges(since, until, nil) {
		in = append(in, mb.Merge.Subject)
	}
	if want := []string{"Merge pull request #2 from dev/x", "Merge pull request #1 from dev/cache"}; !cmp.Equal(want, in) {
		t.Errorf("merges in [m1, m3): %v, want %v", in, want)
	}

	// In a shallow clone, a commit at the depth hides its parents.
	g, err = LoadGraph(context.Background(), b.log(), "main", map[string]bool{sha("b12a"): true})
	if err != nil {
		t.Fatal(err)
	}
	if mb := g.Merges(time.Time{}, time.Time{}, nil)[2]; mb.Skip != SkipShallow {
		t.Errorf("#12 past the shallow boundary: skip %q, want %q", mb.Skip, SkipShallow)
	}
}
