package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/glob"
	"github.com/council-dev/council/internal/plan"
	"github.com/council-dev/council/internal/source"
)

// GitHistory is the clone an import from git reads (internal/source's Git).
type GitHistory interface {
	// History calls visit for every commit reachable from rev.
	History(ctx context.Context, rev string, visit func(source.Commit) error) error
	Messages(ctx context.Context, shas []string) (map[string]string, error)
	MergeBase(ctx context.Context, a, b string) (string, error)
	// ChangedFiles lists the paths that differ between two commits (old and new of a rename).
	ChangedFiles(ctx context.Context, from, to string) (map[string]bool, error)
	// DiffRange is the diff between two commits with renames found.
	DiffRange(ctx context.Context, from, to string) ([]diff.File, error)
	ReadFile(ctx context.Context, rev, path string) ([]byte, error)
}

// Reasons a merge gives no sample, in import.json.
const (
	SkipNoFeedback     = "no commit of the branch answers review"
	SkipFeedbackFirst  = "the branch's first commit already answers review: no reviewed commit before it"
	SkipNothingMerged  = "merges nothing new: the branch was already in the first parent"
	SkipShallow        = "the branch reaches past the shallow clone's depth (git fetch --unshallow to import it)"
	SkipUnrelated      = "the branch shares no history with the base"
	SkipNoTruthPrefix  = "every feedback hunk was dropped"
	skipOctopusPattern = "an octopus merge of %d branches: no one branch to replay"
)

// GitGraph is a repository's history as an import from git walks it: the commits reachable
// from the default branch, and for each one the merge of the branch's first-parent chain
// that brought it in.
type GitGraph struct {
	commits []source.Commit // Parents cleared once parents holds them
	index   map[string]int32
	parents [][]int32 // -1 for a parent the clone does not have
	chain   []int32   // the first-parent chain from the tip, newest first
	// intro[i] is the position in chain of the commit that brought commit i into the branch:
	// its own position for a chain commit, the merge's for a merged branch's commits.
	intro   []int32
	shallow map[string]bool
}

// LoadGitGraph reads every commit reachable from rev in one walk and works out which merge
// brought each one in: O(commits) time and memory. shallow lists a shallow clone's boundary
// commits (nil for a complete clone).
func LoadGitGraph(ctx context.Context, git GitHistory, rev string, shallow map[string]bool) (*GitGraph, error) {
	g := &GitGraph{index: map[string]int32{}, shallow: shallow}
	err := git.History(ctx, rev, func(c source.Commit) error {
		g.index[c.SHA] = int32(len(g.commits))
		g.commits = append(g.commits, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(g.commits) == 0 {
		return nil, fmt.Errorf("%s has no commits", rev)
	}
	g.parents = make([][]int32, len(g.commits))
	for i := range g.commits {
		ps := make([]int32, len(g.commits[i].Parents))
		for j, p := range g.commits[i].Parents {
			k, ok := g.index[p]
			if !ok {
				k = -1
			}
			ps[j] = k
		}
		g.parents[i] = ps
		g.commits[i].Parents = nil
	}
	// git log lists the tip first.
	for c := int32(0); c >= 0; {
		g.chain = append(g.chain, c)
		if ps := g.parents[c]; len(ps) > 0 {
			c = ps[0]
		} else {
			c = -1
		}
	}
	g.intro = make([]int32, len(g.commits))
	for i := range g.intro {
		g.intro[i] = -1
	}
	// Oldest first: whatever an older chain commit reaches is marked before a newer one looks,
	// so a merge marks exactly what its second (and further) parents brought in.
	var stack []int32
	for pos := len(g.chain) - 1; pos >= 0; pos-- {
		c := g.chain[pos]
		g.intro[c] = int32(pos)
		for _, p := range g.parents[c][min(1, len(g.parents[c])):] {
			stack = append(stack, p)
		}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x < 0 || g.intro[x] >= 0 {
				continue
			}
			g.intro[x] = int32(pos)
			stack = append(stack, g.parents[x]...)
		}
	}
	return g, nil
}

// Commits is how many commits the graph holds.
func (g *GitGraph) Commits() int { return len(g.commits) }

// MergedBranch is one merge of the default branch and what its branch says about review: the
// branch's own commits, the first that answers review and the run of such commits it starts
// (SelectFeedback fills those). Skip says why it gives no sample, when it gives none.
type MergedBranch struct {
	Merge    source.Commit
	Parents  []string        // the merge's parents: the base before it, then the branch
	Line     []source.Commit // the branch's first-parent line, oldest first, with their parents
	Head     int             // Line[Head] is the reviewed commit
	Feedback []source.Commit // the feedback commits that follow it, up to the next other commit
	Phrase   string          // what the first feedback commit's subject says
	Skip     string
}

// Merges returns the merges of the default branch committed in [since, until) (a zero time
// bounds nothing), newest first, each with its branch read: the branch's own line is the
// first-parent chain of its second parent down to the first commit the base already had. A
// branch none of whose commits could answer review by its subject alone is skipped with
// SkipNoFeedback; the others need their messages read (SelectFeedback).
func (g *GitGraph) Merges(since, until time.Time, ignore []string) []MergedBranch {
	var out []MergedBranch
	for pos, c := range g.chain {
		ps := g.parents[c]
		if len(ps) < 2 {
			continue
		}
		m := g.commits[c]
		if (!since.IsZero() && m.Time.Before(since)) || (!until.IsZero() && !m.Time.Before(until)) {
			continue
		}
		out = append(out, g.branch(int32(pos), ignore))
	}
	return out
}

func (g *GitGraph) branch(pos int32, ignore []string) MergedBranch {
	c := g.chain[pos]
	ps := g.parents[c]
	mb := MergedBranch{Merge: g.commits[c], Parents: g.shas(ps)}
	if len(ps) > 2 {
		mb.Skip = fmt.Sprintf(skipOctopusPattern, len(ps)-1)
		return mb
	}
	tip := ps[1]
	switch {
	case tip < 0:
		mb.Skip = SkipShallow
		return mb
	case g.intro[tip] != pos:
		mb.Skip = SkipNothingMerged
		return mb
	}
	var line []int32
	for x := tip; ; {
		if x < 0 || g.shallow[g.commits[x].SHA] {
			mb.Skip = SkipShallow
			return mb
		}
		line = append(line, x)
		xp := g.parents[x]
		if len(xp) == 0 {
			mb.Skip = SkipUnrelated
			return mb
		}
		if xp[0] < 0 {
			mb.Skip = SkipShallow
			return mb
		}
		if g.intro[xp[0]] != pos {
			break
		}
		x = xp[0]
	}
	slices.Reverse(line)
	maybe := false
	for _, x := range line {
		lc := g.commits[x]
		lc.Parents = g.shas(g.parents[x])
		mb.Line = append(mb.Line, lc)
		maybe = maybe || mayAnswerReview(lc, ignore)
	}
	if !maybe {
		mb.Skip = SkipNoFeedback
	}
	return mb
}

// shas names commits by SHA; "" for one the clone does not have.
func (g *GitGraph) shas(ids []int32) []string {
	out := make([]string, len(ids))
	for i, p := range ids {
		if p >= 0 {
			out[i] = g.commits[p].SHA
		}
	}
	return out
}

// SelectFeedback finds, in a merged branch whose commits' messages msgs holds (by SHA), the
// first commit that answers review (AnswersReview) and the run of such commits it starts. The
// commit before it is the head. A branch with none, or whose first commit already answers, is
// skipped.
func SelectFeedback(mb MergedBranch, msgs map[string]string, ignore []string) MergedBranch {
	if mb.Skip != "" {
		return mb
	}
	first := -1
	for i, c := range mb.Line {
		if p, ok := AnswersReview(c, msgs[c.SHA], ignore); ok {
			first, mb.Phrase = i, p
			break
		}
	}
	switch first {
	case -1:
		mb.Skip = SkipNoFeedback
		return mb
	case 0:
		mb.Skip = SkipFeedbackFirst
		return mb
	}
	mb.Head = first - 1
	for _, c := range mb.Line[first:] {
		if _, ok := AnswersReview(c, msgs[c.SHA], ignore); !ok {
			break
		}
		mb.Feedback = append(mb.Feedback, c)
	}
	return mb
}

// GitImporter turns merged branches into samples: the reviewed commit and what the feedback
// commits after it changed, located at it.
type GitImporter struct {
	Git GitHistory
	// Repo is where the samples say the repository is; its Name ("owner/repo") makes their
	// ids, and their pull request URLs when the repository is on GitHub.
	Repo    Repo
	BaseRef string   // the default branch's name
	Ignore  []string // logins that are bots without saying so
	Paths   []string // globs, "!glob" to exclude: truth only from these paths; none: every path
}

// mergeMessage is what a merge commit's message says of its pull request.
var (
	githubMerge = regexp.MustCompile(`^Merge pull request #(\d+) from ([^/\s]+)/\S+`)
	gitlabMerge = regexp.MustCompile(`(?m)^See merge request \S+!(\d+)\s*$`)
	otherMerge  = regexp.MustCompile(`(?i)\(pull request #(\d+)\)`)
)

// PRFromMerge reads a merge commit's message as GitHub, GitLab and Bitbucket write them: the
// pull request's number, title and, for GitHub, the account it came from. A message that
// names no pull request gives number 0 and its subject as the title; GitHub's without the
// title line gives "".
func PRFromMerge(message string) (number int, title, from string) {
	subject, rest, _ := strings.Cut(strings.TrimSpace(message), "\n")
	title = strings.TrimSpace(subject)
	if m := githubMerge.FindStringSubmatch(subject); m != nil {
		number, _ = strconv.Atoi(m[1])
		from = m[2]
		title = ""
		for _, l := range strings.Split(rest, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				title = l
				break
			}
		}
		return number, title, from
	}
	if m := gitlabMerge.FindStringSubmatch(message); m != nil {
		number, _ = strconv.Atoi(m[1])
		for _, l := range strings.Split(rest, "\n") {
			if l = strings.TrimSpace(l); l != "" && !gitlabMerge.MatchString(l) {
				title = l
				break
			}
		}
		return number, title, ""
	}
	if m := otherMerge.FindStringSubmatch(subject); m != nil {
		number, _ = strconv.Atoi(m[1])
	}
	return number, title, ""
}

// GitSampleID is the id of the sample of a merge: owner-repo-<number> as for GitHub's
// pull requests, or owner-repo-<first 8 hex of the merge> when the message names none.
func GitSampleID(name string, number int, merge string) string {
	owner, repo, ok := strings.Cut(name, "/")
	if !ok {
		owner, repo = "", name
	}
	if number > 0 {
		return strings.Trim(SampleID(owner, repo, number), "-")
	}
	return strings.Trim(strings.ToLower(fmt.Sprintf("%s-%s-%s", owner, repo, merge[:8])), "-")
}

// Sample builds the sample of a merged branch once its messages say where the feedback is
// (SelectFeedback, whose result it returns too): base is the merge-base of the reviewed commit
// with the merge's first parent, head the reviewed commit, merge the merge commit, and truth
// one item per hunk of the diff from head to the last feedback commit of the run, at head's
// lines. A branch without feedback, or whose every hunk is dropped, is a *SkipError.
func (im *GitImporter) Sample(ctx context.Context, mb MergedBranch) (Sample, MergedBranch, error) {
	if mb.Skip != "" {
		return Sample{}, mb, &SkipError{Reason: mb.Skip}
	}
	shas := []string{mb.Merge.SHA}
	for _, c := range mb.Line {
		shas = append(shas, c.SHA)
	}
	msgs, err := im.Git.Messages(ctx, shas)
	if err != nil {
		return Sample{}, mb, err
	}
	if mb = SelectFeedback(mb, msgs, im.Ignore); mb.Skip != "" {
		return Sample{}, mb, &SkipError{Reason: mb.Skip}
	}
	head := mb.Line[mb.Head]
	last := mb.Feedback[len(mb.Feedback)-1]
	base, err := im.Git.MergeBase(ctx, mb.Parents[0], head.SHA)
	if err != nil {
		return Sample{}, mb, skipPR("no merge-base of the reviewed commit %s and the base: %v", shortCommit(head.SHA), err)
	}
	files, err := im.Git.DiffRange(ctx, head.SHA, last.SHA)
	if err != nil {
		return Sample{}, mb, err
	}
	touched, err := im.touchedBy(ctx, mb)
	if err != nil {
		return Sample{}, mb, err
	}
	reviewed, err := im.Git.ChangedFiles(ctx, base, head.SHA)
	if err != nil {
		return Sample{}, mb, err
	}
	truth, dropped := im.truth(ctx, mb, files, msgs, touched, reviewed)
	number, title, from := PRFromMerge(msgs[mb.Merge.SHA])
	if title == "" {
		title = mb.Line[0].Subject // GitHub's merge message without the title
	}
	s := Sample{
		SampleVersion: SampleVersion,
		ID:            GitSampleID(im.Repo.Name, number, mb.Merge.SHA),
		Repo:          im.Repo,
		PR: PR{Number: number, Title: title, Body: branchBody(mb.Line[:mb.Head+1], msgs),
			Author: prAuthor(from, im.Repo.Name, mb.Line[0]), BaseRef: im.BaseRef, URL: im.prURL(number)},
		Base: base, Head: head.SHA, Merge: mb.Merge.SHA, Truth: truth, Dropped: dropped,
	}
	if len(truth) == 0 {
		return Sample{}, mb, &SkipError{Reason: noTruthReason(dropped)}
	}
	if err := s.Validate(); err != nil {
		return Sample{}, mb, fmt.Errorf("sample of merge %s: %w", shortCommit(mb.Merge.SHA), err)
	}
	return s, mb, nil
}

// touchedBy maps each path to the feedback commits that changed it, when the run has more
// than one: each truth item then carries the messages of the commits that made its change.
func (im *GitImporter) touchedBy(ctx context.Context, mb MergedBranch) (map[string][]int, error) {
	if len(mb.Feedback) < 2 {
		return nil, nil
	}
	out := map[string][]int{}
	prev := mb.Line[mb.Head].SHA
	for i, c := range mb.Feedback {
		changed, err := im.Git.ChangedFiles(ctx, prev, c.SHA)
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

// maxHunkLines is how much of a hunk a truth item's body shows.
const maxHunkLines = 40

func (im *GitImporter) truth(ctx context.Context, mb MergedBranch, files []diff.File, msgs map[string]string,
	touched map[string][]int, reviewed map[string]bool) ([]Truth, []Dropped) {
	head := mb.Line[mb.Head].SHA
	last := mb.Feedback[len(mb.Feedback)-1].SHA
	idPrefix := mb.Feedback[0].SHA[:10]
	var truth []Truth
	var dropped []Dropped
	n := 0
	for _, f := range files {
		// Whose change it is: the feedback commits that touched the file (all of them when
		// one did, or none is known).
		var by []source.Commit
		for _, i := range touched[f.OldPath] {
			by = append(by, mb.Feedback[i])
		}
		for _, i := range touched[f.NewPath] {
			if !slices.ContainsFunc(by, func(c source.Commit) bool { return c.SHA == mb.Feedback[i].SHA }) {
				by = append(by, mb.Feedback[i])
			}
		}
		if len(by) == 0 {
			by = mb.Feedback
		}
		var texts []string
		for _, c := range by {
			texts = append(texts, msgs[c.SHA])
		}
		message := strings.Join(texts, "\n\n")
		author := committerOf(by[0])

		reason := ""
		var lines int
		switch {
		case f.OldPath == "":
			reason = DropAddedFile
		case !pathSelected(im.Paths, f.OldPath) && !pathSelected(im.Paths, f.NewPath):
			reason = DropOutside
		case isTestData(f.OldPath):
			reason = DropTestData
		}
		if reason == "" {
			reason = plan.SkipReason(f, func(p string) []string {
				data, err := im.Git.ReadFile(ctx, last, p)
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
			data, err := im.Git.ReadFile(ctx, head, f.OldPath)
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
				n++
				dropped = append(dropped, Dropped{ID: fmt.Sprintf("%s-%d", idPrefix, n), Author: author,
					Body: fmt.Sprintf("%s\n\n`%s`", message, cmp.Or(f.OldPath, f.NewPath)), Reason: reason})
			}
			continue
		}
		for _, h := range f.Hunks {
			n++
			id := fmt.Sprintf("%s-%d", idPrefix, n)
			body := fmt.Sprintf("%s\n\n`%s`:\n```diff\n%s```", message, cmp.Or(f.OldPath, f.NewPath), hunkText(h, maxHunkLines))
			r := reason
			if r == "" {
				r = hunkDropReason(h)
			}
			first, lastLine := hunkSpan(h)
			if r == "" && (first < 1 || lastLine > lines) {
				r = DropNotAtHead
			}
			if r != "" {
				dropped = append(dropped, Dropped{ID: id, Author: author, Body: body, Reason: r})
				continue
			}
			t := Truth{ID: id, Author: author, Path: f.OldPath, Line: lastLine, Side: "RIGHT", Body: body,
				Kind: feedbackKind(message, im.Ignore), Addressed: true, Source: SourceFeedback}
			if first < lastLine {
				t.StartLine = first
			}
			truth = append(truth, t)
		}
	}
	return truth, dropped
}

// committerOf is who made a feedback commit: its committer, or its author when GitHub
// committed it on their behalf (a suggestion applied in the web interface).
func committerOf(c source.Commit) string {
	if strings.EqualFold(c.CommitterEmail, "noreply@github.com") || c.Committer == "" {
		return c.Author
	}
	return c.Committer
}

// prAuthor is who opened the pull request: the account GitHub's merge message names, unless
// that is the repository's own owner (a branch of the repository itself), else the author of
// the branch's first commit.
func prAuthor(from, name string, first source.Commit) string {
	owner, _, _ := strings.Cut(name, "/")
	if from != "" && !strings.EqualFold(from, owner) {
		return from
	}
	return first.Author
}

func (im *GitImporter) prURL(number int) string {
	if number == 0 || !strings.Contains(im.Repo.Name, "/") {
		return ""
	}
	if im.Repo.URL != "" {
		if u, err := url.Parse(im.Repo.URL); err != nil || u.Host != "github.com" {
			if !strings.HasPrefix(im.Repo.URL, "git@github.com:") {
				return ""
			}
		}
	}
	return fmt.Sprintf("https://github.com/%s/pull/%d", im.Repo.Name, number)
}

// branchBody is the change's description a reviewer of head would have had at hand: the
// messages of the branch's commits up to head, oldest first (a merge commit does not hold
// the pull request's body).
func branchBody(line []source.Commit, msgs map[string]string) string {
	var parts []string
	for _, c := range line {
		if m := strings.TrimSpace(msgs[c.SHA]); m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, "\n\n---\n\n")
}

// noTruthReason says why a branch's feedback left no truth, counting the reasons.
func noTruthReason(dropped []Dropped) string {
	if len(dropped) == 0 {
		return SkipNoTruthPrefix + " (the feedback changed no file)"
	}
	counts := map[string]int{}
	var order []string
	for _, d := range dropped {
		if counts[d.Reason] == 0 {
			order = append(order, d.Reason)
		}
		counts[d.Reason]++
	}
	var parts []string
	for _, r := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[r], r))
	}
	return SkipNoTruthPrefix + ": " + strings.Join(parts, "; ")
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
