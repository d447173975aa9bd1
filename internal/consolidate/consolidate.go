// Package consolidate turns what every reviewer reported into one list: the same issue raised by
// several reviewers becomes one finding, owned by the most specific version and crediting the
// others (every version is kept for the validator); caps,
// severity floors and confidence floors mark findings Filtered with a reason; every finding
// gets a fingerprint that survives re-runs and line shifts.
//
// It is pure: findings in, findings out, in a deterministic order. It must never do I/O, and
// it must never drop a finding except a duplicate merged into the finding that owns it.
package consolidate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/finding"
)

// Options are the limits a council is configured with. The zero value filters nothing.
type Options struct {
	// MaxPerReviewer caps the inline (Reported) findings of one reviewer; the least severe,
	// then least confident, beyond the cap are filtered. 0 means no cap.
	MaxPerReviewer int
	// SeverityFloor filters findings less severe than it. "" means none.
	SeverityFloor finding.Severity
	// MinConfidence filters findings less confident than it. 0 means none.
	MinConfidence float64
}

// Stats says what the stage did. Out == In - Merged == len(output).
type Stats struct {
	In       int // findings given
	Merged   int // duplicates folded into the finding that owns them
	Filtered int // findings this stage marked Filtered (those filtered before are not counted)
	Out      int // findings returned, Filtered ones included
}

// Similarity thresholds on the Jaccard index of two findings' identifier-aware tokens.
const (
	similar       = 0.3 // two reviewers describe the same issue
	nearIdentical = 0.6 // one reviewer reported the same issue twice
	maxGap        = 2   // distance between two ranges that still counts as the same place: 10 and 12 merge, 10 and 13 do not
)

// Consolidate merges duplicates, applies o, sets every ID and returns the findings sorted by
// path, line, severity (most severe first), owner and title. fs is expected in reviewer order,
// each finding with Lenses = [its reviewer]; the input is not modified.
//
// Findings merge when they are on the same path and side, equally anchored or not, their line
// ranges overlap or their nearest lines are at most two apart, and their text is similar. A finding already
// filtered by an earlier stage is passed through untouched: merging it would let a rejected
// finding raise the severity of an accepted one.
func Consolidate(fs []finding.Finding, o Options) ([]finding.Finding, Stats) {
	st := Stats{In: len(fs)}
	items := make([]*item, len(fs))
	for i, f := range fs {
		items[i] = newItem(i, f)
	}

	groups := merge(items)
	out := make([]finding.Finding, 0, len(groups))
	for _, g := range groups {
		out = append(out, g.finding())
		st.Merged += len(g.members) - 1
	}

	// Sort before the cap so that ties at the cap are broken in output order.
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareOutput(out[a], out[b]) })
	sorted := make([]finding.Finding, len(out))
	for i, k := range order {
		sorted[i] = out[k]
	}
	out = sorted

	setIDs(out)
	st.Filtered = Filter(out, o)
	st.Out = len(out)
	return out, st
}

// item is one input finding with what merging needs, computed once.
type item struct {
	idx    int
	f      finding.Finding
	owner  string
	lo, hi int
	toks   []string // sorted, unique; computed on first comparison, most findings have none
	quote  string   // whitespace-normalised
	cat    string
}

func newItem(idx int, f finding.Finding) *item {
	f.Lenses = slices.Clone(f.Lenses)
	it := &item{
		idx:   idx,
		f:     f,
		owner: f.Owner(),
		quote: normalizeSpace(f.Quote),
		cat:   strings.ToLower(strings.TrimSpace(f.Category)),
	}
	it.hi = f.Line
	it.lo = f.StartLine
	if it.lo <= 0 || it.lo > it.hi {
		it.lo = it.hi
	}
	return it
}

func (it *item) tokens() []string {
	if it.toks == nil {
		it.toks = tokens(it.f.Title + "\n" + it.f.Body + "\n" + it.f.Quote)
		if it.toks == nil {
			it.toks = []string{}
		}
	}
	return it.toks
}

// group is a finding and the duplicates merged into it; members[0] owns it.
type group struct {
	id      int // creation order, to break ties between equally good groups
	members []*item
}

func (g *group) owner() *item { return g.members[0] }

type bucketKey struct {
	path     string
	side     finding.Side
	anchored bool
}

// merge groups duplicates. Findings are bucketed by path, side and anchoring, so that
// comparisons happen only between findings that could be about the same lines; within a
// bucket each finding, in input (reviewer) order, joins the most similar existing group whose
// owner is near it, or starts a new group.
func merge(items []*item) []*group {
	var groups []*group
	buckets := map[bucketKey][]*group{}
	for _, it := range items {
		if it.f.Status == finding.Filtered {
			groups = append(groups, &group{id: len(groups), members: []*item{it}})
			continue
		}
		k := bucketKey{path: it.f.Path, side: sideOf(it.f), anchored: it.f.Anchored}
		var best *group
		bestSim := 0.0
		for _, g := range buckets[k] {
			ok, sim := joins(g, it)
			if ok && (best == nil || sim > bestSim) {
				best, bestSim = g, sim
			}
		}
		if best != nil {
			best.members = append(best.members, it)
			continue
		}
		g := &group{id: len(groups), members: []*item{it}}
		groups = append(groups, g)
		buckets[k] = append(buckets[k], g)
	}
	return groups
}

// joins reports whether it belongs in g, and how similar it is to g's owner.
func joins(g *group, it *item) (bool, float64) {
	o := g.owner()
	if it.lo > o.hi+maxGap || o.lo > it.hi+maxGap {
		return false, 0
	}
	sim := jaccard(o.tokens(), it.tokens())
	if sim < similar && (it.quote == "" || it.quote != o.quote || it.cat != o.cat) {
		return false, 0
	}
	// A reviewer that says two things about nearby lines means two things, unless it
	// repeated itself.
	for _, m := range g.members {
		if m.owner != it.owner {
			continue
		}
		if m.lo != it.lo || m.hi != it.hi || jaccard(m.tokens(), it.tokens()) < nearIdentical {
			return false, 0
		}
	}
	return true, sim
}

// finding is the finding of the most specific member, crediting every other member, with
// every member's version kept for the validator.
func (g *group) finding() finding.Finding {
	best := g.members[0]
	for _, m := range g.members[1:] {
		if moreSpecific(m, best) {
			best = m
		}
	}
	f := best.f
	if len(g.members) > 1 {
		f.Versions = []finding.Finding{best.f}
	}
	for _, m := range g.members {
		if m == best {
			continue
		}
		f.Versions = append(f.Versions, m.f)
		for _, l := range m.f.Lenses {
			if !slices.Contains(f.Lenses, l) {
				f.Lenses = append(f.Lenses, l)
			}
		}
		if m.f.Severity.Rank() > f.Severity.Rank() {
			f.Severity = m.f.Severity
		}
		f.Confidence = max(f.Confidence, m.f.Confidence)
		// Another reviewer's suggestion replaces its own range; it fits only the same one.
		if f.Suggestion == "" && m.f.Suggestion != "" && m.lo == best.lo && m.hi == best.hi {
			f.Suggestion = m.f.Suggestion
		}
		if f.FixPrompt == "" {
			f.FixPrompt = m.f.FixPrompt
		}
	}
	return f
}

// moreSpecific says whether a states the issue more specifically than b: it comes with a
// committable fix, or it points at fewer lines. Otherwise the earlier reviewer keeps it.
func moreSpecific(a, b *item) bool {
	if (a.f.Suggestion != "") != (b.f.Suggestion != "") {
		return a.f.Suggestion != ""
	}
	return a.f.Anchored && a.hi-a.lo < b.hi-b.lo
}

// Filter marks findings Filtered by o, in place, and returns how many it marked. fs is in
// output order, which breaks ties at the cap. Consolidate applies it; a caller that validates
// between merging and capping calls Consolidate with no limits, then Filter.
func Filter(fs []finding.Finding, o Options) int {
	n := 0
	mark := func(f *finding.Finding, why string) {
		f.Status = finding.Filtered
		f.FilterReason = why
		n++
	}
	for i := range fs {
		f := &fs[i]
		switch {
		case f.Status == finding.Filtered:
		case o.SeverityFloor != "" && f.Severity.Rank() < o.SeverityFloor.Rank():
			mark(f, fmt.Sprintf("below severity floor %s", o.SeverityFloor))
		case o.MinConfidence > 0 && f.Confidence < o.MinConfidence:
			mark(f, fmt.Sprintf("confidence %g below %g", f.Confidence, o.MinConfidence))
		}
	}
	if o.MaxPerReviewer <= 0 {
		return n
	}
	byOwner := map[string][]int{}
	var owners []string
	for i, f := range fs {
		if f.Status != finding.Reported {
			continue
		}
		if _, ok := byOwner[f.Owner()]; !ok {
			owners = append(owners, f.Owner())
		}
		byOwner[f.Owner()] = append(byOwner[f.Owner()], i)
	}
	for _, owner := range owners {
		idx := byOwner[owner]
		if len(idx) <= o.MaxPerReviewer {
			continue
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			if c := cmp.Compare(fs[b].Severity.Rank(), fs[a].Severity.Rank()); c != 0 {
				return c
			}
			return cmp.Compare(fs[b].Confidence, fs[a].Confidence)
		})
		for _, i := range idx[o.MaxPerReviewer:] {
			mark(&fs[i], fmt.Sprintf("over the cap of %d comments for %s", o.MaxPerReviewer, owner))
		}
	}
	return n
}

// compareOutput orders findings by path, line, severity (most severe first), owner, title.
func compareOutput(a, b finding.Finding) int {
	return cmp.Or(
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
		cmp.Compare(a.Owner(), b.Owner()),
		cmp.Compare(a.Title, b.Title),
	)
}

func sideOf(f finding.Finding) finding.Side {
	if f.Side == finding.Left {
		return finding.Left
	}
	return finding.Right
}
