package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/glob"
	"github.com/council-dev/council/internal/plan"
	"github.com/council-dev/council/internal/source"
)

// Reader turns merged branches into what their feedback changed.
type Reader struct {
	Git    Git
	Ignore []string // logins that are bots without saying so
	Paths  []string // globs, "!glob" to exclude: hunks only from these paths; none: every path
}

// Feedback is what one merged branch changed in answer to review, located at the commit the
// reviewers saw.
type Feedback struct {
	// Branch is SelectFeedback's: Line[Head] the reviewed commit, Feedback the run of commits
	// that answered. Skip says why the branch gives nothing, when it gives nothing.
	Branch MergedBranch
	// Messages are the full messages of the merge and of the branch's commits, by SHA.
	Messages map[string]string
	// Base is the merge-base of the reviewed commit and the merge's first parent.
	Base string
	// Hunks are the hunks of the diff from the reviewed commit to the run's last commit, and
	// its binary files, in the diff's order: kept ones (Drop "") and dropped ones.
	Hunks []Hunk
}

// Head is the commit the reviewers saw.
func (f Feedback) Head() source.Commit { return f.Branch.Line[f.Branch.Head] }

// Hunk is one change the feedback made.
type Hunk struct {
	// Path is the file's path at the reviewed commit (its old path when the feedback renamed
	// it; for a file the feedback added, its new path).
	Path string
	// StartLine and Line are what a kept hunk is about, at the reviewed commit: the lines it
	// deletes or replaces, and for lines it inserts, the line above each insertion (StartLine
	// 0 for one line). Zero for a dropped hunk.
	StartLine, Line int
	// Commits are the feedback commits that changed the file, oldest first: all of the run
	// when one commit is the run, or when none is known to have.
	Commits []source.Commit
	// Commit is, for a kept hunk, the first of Commits whose own diff changed its lines;
	// CommitPath and CommitLine are where that diff shows them: the file's name after the
	// commit (before it, for a deletion), and Line as the file was just before the commit.
	Commit     source.Commit
	CommitPath string
	CommitLine int
	// Author is who made the change: Commits[0]'s committer, or its author when GitHub
	// committed it (a suggestion applied in the web interface).
	Author string
	// Message is the Commits' messages, each distinct one once, a blank line apart.
	Message string
	// Diff is the hunk as a unified diff fragment, cut after MaxHunkLines lines; "" for a
	// binary file.
	Diff string
	// Drop says why the hunk is not something a reviewer of the reviewed commit asked for;
	// "" when it is.
	Drop string
}

// Body is the hunk as people read it: the message, then the file and the diff.
func (h Hunk) Body() string {
	if h.Diff == "" {
		return fmt.Sprintf("%s\n\n`%s`", h.Message, h.Path)
	}
	return fmt.Sprintf("%s\n\n`%s`:\n```diff\n%s```", h.Message, h.Path, h.Diff)
}

// MaxHunkLines is how much of a hunk Hunk.Diff shows.
const MaxHunkLines = 40

// Feedback reads what a merged branch changed in answer to review. It reads the branch's
// messages, finds the feedback (SelectFeedback), and takes the diff from the reviewed commit
// to the run's last commit, one Hunk per hunk at the reviewed commit's lines, each with the
// feedback commits that made it and, when it is not something a reviewer asked for, the
// reason. A branch that gives nothing (no feedback, no merge-base, every hunk dropped) comes
// back with Branch.Skip set; an error is git's.
func (r Reader) Feedback(ctx context.Context, mb MergedBranch) (Feedback, error) {
	fb := Feedback{Branch: mb}
	if mb.Skip != "" {
		return fb, nil
	}
	shas := []string{mb.Merge.SHA}
	for _, c := range mb.Line {
		shas = append(shas, c.SHA)
	}
	msgs, err := r.Git.Messages(ctx, shas)
	if err != nil {
		return fb, err
	}
	fb.Messages = msgs
	if fb.Branch = SelectFeedback(mb, msgs, r.Ignore); fb.Branch.Skip != "" {
		return fb, nil
	}
	mb = fb.Branch
	head := fb.Head()
	last := mb.Feedback[len(mb.Feedback)-1]
	base, err := r.Git.MergeBase(ctx, mb.Parents[0], head.SHA)
	if err != nil {
		fb.Branch.Skip = fmt.Sprintf("no merge-base of the reviewed commit %s and the base: %v", short(head.SHA), err)
		return fb, nil
	}
	fb.Base = base
	files, err := r.Git.DiffRange(ctx, head.SHA, last.SHA)
	if err != nil {
		return fb, err
	}
	touched, err := r.touchedBy(ctx, mb)
	if err != nil {
		return fb, err
	}
	reviewed, err := r.Git.ChangedFiles(ctx, base, head.SHA)
	if err != nil {
		return fb, err
	}
	if fb.Hunks, err = r.hunks(ctx, mb, files, msgs, touched, reviewed); err != nil {
		return fb, err
	}
	if !slices.ContainsFunc(fb.Hunks, func(h Hunk) bool { return h.Drop == "" }) {
		fb.Branch.Skip = allDropped(fb.Hunks)
	}
	return fb, nil
}

func short(sha string) string { return sha[:min(7, len(sha))] }

// touchedBy maps each path to the feedback commits that changed it, when the run has more
// than one: each hunk then carries the messages of the commits that made its change.
func (r Reader) touchedBy(ctx context.Context, mb MergedBranch) (map[string][]int, error) {
	if len(mb.Feedback) < 2 {
		return nil, nil
	}
	out := map[string][]int{}
	prev := mb.Line[mb.Head].SHA
	for i, c := range mb.Feedback {
		changed, err := r.Git.ChangedFiles(ctx, prev, c.SHA)
		if err != nil {
			return nil, err
		}
		for p := range changed {
			out[p] = append(out[p], i)
		}
		prev = c.SHA
	}
	return out, nil
}

func (r Reader) hunks(ctx context.Context, mb MergedBranch, files []diff.File, msgs map[string]string,
	touched map[string][]int, reviewed map[string]bool) ([]Hunk, error) {
	head := mb.Line[mb.Head].SHA
	last := mb.Feedback[len(mb.Feedback)-1].SHA
	steps := map[int][]diff.File{} // each feedback commit's own diff, read when a hunk needs it
	var out []Hunk
	for _, f := range files {
		// Whose change it is: the feedback commits that touched the file (all of them when
		// one did, or none is known).
		by := slices.Clone(touched[f.OldPath])
		for _, i := range touched[f.NewPath] {
			if !slices.Contains(by, i) {
				by = append(by, i)
			}
		}
		var commits []source.Commit
		for _, i := range by {
			commits = append(commits, mb.Feedback[i])
		}
		if len(commits) == 0 {
			commits = mb.Feedback
		}
		proto := Hunk{Path: cmp.Or(f.OldPath, f.NewPath), Commits: commits,
			Author: committerOf(commits[0]), Message: distinctMessages(commits, msgs)}

		reason := ""
		var lines int
		switch {
		case f.OldPath == "":
			reason = DropAddedFile
		case !pathSelected(r.Paths, f.OldPath) && !pathSelected(r.Paths, f.NewPath):
			reason = DropOutside
		case isTestData(f.OldPath):
			reason = DropTestData
		}
		if reason == "" {
			reason = plan.SkipReason(f, func(p string) []string {
				data, err := r.Git.ReadFile(ctx, last, p)
				if err != nil {
					return nil
				}
				return diff.SplitLines(data)
			})
		}
		if reason == "" && !reviewed[f.OldPath] {
			// A line the reviewed diff does not show cannot be commented on: what the feedback
			// changed there is the fallout of a request (call sites of a renamed helper), or
			// work the review did not ask for.
			reason = DropUntouched
		}
		if reason == "" {
			data, err := r.Git.ReadFile(ctx, head, f.OldPath)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				reason = DropNotAtHead
			case err != nil:
				reason = "cannot be read at head: " + err.Error()
			default:
				lines = len(diff.SplitLines(data))
			}
		}
		if len(f.Hunks) == 0 {
			// A rename or a mode change alone changes no line; a binary file has no lines.
			if f.Binary {
				h := proto
				h.Drop = reason
				out = append(out, h)
			}
			continue
		}
		for _, dh := range f.Hunks {
			h := proto
			h.Diff = hunkText(dh, MaxHunkLines)
			h.Drop = reason
			if h.Drop == "" {
				h.Drop = hunkDropReason(dh)
			}
			first, lastLine := hunkSpan(dh)
			if h.Drop == "" && (first < 1 || lastLine > lines) {
				h.Drop = DropNotAtHead
			}
			if h.Drop == "" {
				h.Line = lastLine
				if first < lastLine {
					h.StartLine = first
				}
				h.Commit, h.CommitPath, h.CommitLine = commits[0], cmp.Or(f.NewPath, f.OldPath), lastLine
				if len(by) > 1 {
					var err error
					if h.Commit, h.CommitPath, h.CommitLine, err = r.firstChange(ctx, mb, by, f.OldPath, first, lastLine, steps); err != nil {
						return nil, err
					}
				}
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// firstChange finds which of the feedback commits by (indexes in mb.Feedback) first changed
// the lines [first, last] of the file at path as the reviewed commit has them: it follows the
// lines through each commit's own diff of the file (steps caches those diffs) until one
// changes them. It returns that commit, the file's name after it, and last as the file was
// just before it; by[0] when none does (the hunk's lines moved where no single commit shows).
func (r Reader) firstChange(ctx context.Context, mb MergedBranch, by []int, path string, first, last int,
	steps map[int][]diff.File) (source.Commit, string, int, error) {
	order := slices.Sorted(slices.Values(by))
	for _, i := range order {
		files, ok := steps[i]
		if !ok {
			prev := mb.Line[mb.Head].SHA
			if i > 0 {
				prev = mb.Feedback[i-1].SHA
			}
			var err error
			if files, err = r.Git.DiffRange(ctx, prev, mb.Feedback[i].SHA); err != nil {
				return source.Commit{}, "", 0, err
			}
			steps[i] = files
		}
		k := slices.IndexFunc(files, func(f diff.File) bool { return f.OldPath == path })
		if k < 0 {
			continue
		}
		f := files[k]
		for _, h := range f.Hunks {
			if s, e := hunkSpan(h); s <= last && first <= e {
				return mb.Feedback[i], cmp.Or(f.NewPath, f.OldPath), last, nil
			}
		}
		first, last, path = afterDiff(f.Hunks, first), afterDiff(f.Hunks, last), cmp.Or(f.NewPath, path)
	}
	return mb.Feedback[order[0]], path, last, nil
}

// afterDiff is where old line n is on the new side of a diff that does not change it.
func afterDiff(hunks []diff.Hunk, n int) int {
	delta := 0
	for _, h := range hunks {
		for _, l := range h.Lines {
			if l.Op == diff.Context && l.Old == n {
				return l.New
			}
		}
		// git numbers a pure insertion by the line it follows.
		if (h.OldLines == 0 && h.OldStart < n) || (h.OldLines > 0 && h.OldStart+h.OldLines <= n) {
			delta += h.NewLines - h.OldLines
		}
	}
	return n + delta
}

// distinctMessages is the messages of commits, each distinct one once (five suggestions
// applied on GitHub all say "Update <path>"), a blank line apart.
func distinctMessages(commits []source.Commit, msgs map[string]string) string {
	var texts []string
	seen := map[string]bool{}
	for _, c := range commits {
		m := msgs[c.SHA]
		if k := strings.TrimSpace(m); !seen[k] {
			seen[k] = true
			texts = append(texts, m)
		}
	}
	return strings.Join(texts, "\n\n")
}

// committerOf is who made a feedback commit: its committer, or its author when GitHub
// committed it on their behalf (a suggestion applied in the web interface).
func committerOf(c source.Commit) string {
	if strings.EqualFold(c.CommitterEmail, "noreply@github.com") || c.Committer == "" {
		return c.Author
	}
	return c.Committer
}

// allDropped says why a branch's feedback left nothing, counting the reasons.
func allDropped(hunks []Hunk) string {
	if len(hunks) == 0 {
		return SkipAllDropped + " (the feedback changed no file)"
	}
	counts := map[string]int{}
	var order []string
	for _, h := range hunks {
		if counts[h.Drop] == 0 {
			order = append(order, h.Drop)
		}
		counts[h.Drop]++
	}
	var parts []string
	for _, r := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[r], r))
	}
	return SkipAllDropped + ": " + strings.Join(parts, "; ")
}

// pathSelected reports whether p is selected by patterns: globs, and "!"-prefixed globs that
// exclude. A path no exclusion matches is selected when it matches an inclusion, or when there
// is none.
func pathSelected(patterns []string, p string) bool {
	if p == "" {
		return false
	}
	included, includes := false, false
	for _, pat := range patterns {
		if ex, ok := strings.CutPrefix(pat, "!"); ok {
			if glob.Match(ex, p) {
				return false
			}
			continue
		}
		includes = true
		included = included || glob.Match(pat, p)
	}
	return included || !includes
}
