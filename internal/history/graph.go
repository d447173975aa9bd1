package history

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/source"
)

// Reasons a merged branch gives nothing: bench import --git lists them in import.json, learn
// --git counts them.
const (
	SkipNoFeedback     = "no commit of the branch answers review"
	SkipFeedbackFirst  = "the branch's first commit already answers review: no reviewed commit before it"
	SkipNothingMerged  = "merges nothing new: the branch was already in the first parent"
	SkipShallow        = "the branch reaches past the shallow clone's depth (git fetch --unshallow to import it)"
	SkipUnrelated      = "the branch shares no history with the base"
	SkipAllDropped     = "every feedback hunk was dropped" // a prefix: the reasons are counted after it
	skipOctopusPattern = "an octopus merge of %d branches: no one branch to replay"
)

// Graph is a repository's history as a walk of its merges sees it: the commits reachable
// from the default branch, and for each one the merge of the branch's first-parent chain
// that brought it in.
type Graph struct {
	commits []source.Commit // Parents cleared once parents holds them
	index   map[string]int32
	parents [][]int32 // -1 for a parent the clone does not have
	chain   []int32   // the first-parent chain from the tip, newest first
	// intro[i] is the position in chain of the commit that brought commit i into the branch:
	// its own position for a chain commit, the merge's for a merged branch's commits.
	intro   []int32
	shallow map[string]bool
}

// LoadGraph reads every commit reachable from rev in one walk and works out which merge
// brought each one in: O(commits) time and memory. shallow lists a shallow clone's boundary
// commits (nil for a complete clone).
func LoadGraph(ctx context.Context, git Git, rev string, shallow map[string]bool) (*Graph, error) {
	g := &Graph{index: map[string]int32{}, shallow: shallow}
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
		stack = append(stack, g.parents[c][min(1, len(g.parents[c])):]...)
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
func (g *Graph) Commits() int { return len(g.commits) }

// MergedBranch is one merge of the default branch and what its branch says about review: the
// branch's own commits, the first that answers review and the run of such commits it starts
// (SelectFeedback fills those). Skip says why it gives nothing, when it gives nothing.
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
func (g *Graph) Merges(since, until time.Time, ignore []string) []MergedBranch {
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

func (g *Graph) branch(pos int32, ignore []string) MergedBranch {
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
func (g *Graph) shas(ids []int32) []string {
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

// mergeMessage is what a merge commit's message says of its pull request.
var (
	githubMerge = regexp.MustCompile(`^Merge pull request #(\d+) from ([^/\s]+)/\S+`)
	gitlabMerge = regexp.MustCompile(`(?m)^See merge request \S+!(\d+)\s*$`)
	otherMerge  = regexp.MustCompile(`(?i)\(pull request #(\d+)\)`)
	// titleMerge is GitHub's merge commit when the repository's setting gives it the pull
	// request's title and description: "Title (#123)", then the description.
	titleMerge = regexp.MustCompile(`^(.*\S)\s+\(#(\d+)\)$`)
)

// PRFromMerge reads a merge commit's message as GitHub, GitLab and Bitbucket write them: the
// pull request's number, title and, for GitHub, the account it came from. GitHub writes
// "Merge pull request #123 from user/branch" with the title on the next line, or, where the
// repository says so, "Title (#123)". A message that
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
		return number, title, ""
	}
	if m := titleMerge.FindStringSubmatch(title); m != nil {
		number, _ = strconv.Atoi(m[2])
		title = m[1]
	}
	return number, title, ""
}
