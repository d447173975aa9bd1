package bench

import (
	"cmp"
	"slices"
)

// Matching truth items to findings within one sample. Every tier is one bipartite assignment
// over that tier's eligible pairs; a pair's weight is a constant larger than any matching's
// total score plus the pair's own score, so the assignment first matches as many pairs as
// possible and then, among those, prefers close and similar ones.

// matchPair is what matching knows about one (truth item, finding) pair.
type matchPair struct {
	sameFile bool    // same path, and the same side when both say
	body     bool    // the truth item is a review's top-level text: it may match by text alone
	lines    bool    // both have lines, so dist is meaningful
	dist     int     // lines between the two ranges, 0 when they overlap
	sim      float64 // text similarity, computed only for pairs that can use it
}

// score orders the eligible pairs of a tier: similar text, and lines close together.
func (p matchPair) score() float64 {
	s := p.sim
	if p.lines {
		s += 1 / float64(1+p.dist)
	}
	return s
}

// maxPairScore bounds pair.score.
const maxPairScore = 2

// tierMatcher holds what every tier needs: the thresholds and the judge's answers.
type tierMatcher struct {
	window    int
	threshold float64
	same      map[PairKey]bool // L3; nil without a judge
}

// eligible reports whether a pair may be matched at tier. File-level truth items or findings
// (no line) are within any line window of the same file; L2 then asks for the text. At L3 the
// judge's answer decides; a pair it failed on falls back to L2's rule, so that a judge error
// is never a miss the deterministic tiers would not have had.
func (m tierMatcher) eligible(tier string, s *scoredSample, t, f int) bool {
	if tier == TierL3 {
		if same, ok := m.same[s.key(t, f)]; ok {
			return same
		}
		tier = TierL2
	}
	p := s.pair(t, f)
	if p.body {
		return p.sim >= m.threshold
	}
	if !p.sameFile {
		return false
	}
	switch tier {
	case TierL0:
		return true
	case TierL1:
		return !p.lines || p.dist <= m.window
	case TierL2:
		return (!p.lines || p.dist <= m.window) && p.sim >= m.threshold
	}
	return false
}

// scoredSample is one sample with its predictions, both in canonical order (by id) so that
// the order of the input changes nothing, and the pairs between them.
type scoredSample struct {
	sample Sample
	truth  []Truth
	preds  []Prediction
	tOrig  []int       // canonical truth index -> index in sample.Truth
	pOrig  []int       // canonical finding index -> index in the predictions as given
	pairs  []matchPair // [t*len(preds)+f]
	pvec   []textVec   // the findings' texts, for redundancy
}

func (s *scoredSample) pair(t, f int) matchPair { return s.pairs[t*len(s.preds)+f] }

func (s *scoredSample) key(t, f int) PairKey {
	return PairKey{Sample: s.sample.ID, Truth: s.truth[t].ID, Finding: s.preds[f].ID}
}

// sampleInput is one sample and its predictions, as given.
type sampleInput struct {
	sample Sample
	preds  []Prediction
}

// prepareSamples tokenizes every text of the run at once (the IDF is over the whole run) and
// computes each sample's pairs.
func prepareSamples(in []sampleInput) []scoredSample {
	out := make([]scoredSample, len(in))
	var docs [][]string
	for i, x := range in {
		s := &out[i]
		s.sample = x.sample
		s.tOrig = canonicalOrder(x.sample.Truth, func(t Truth) string { return t.ID })
		s.pOrig = canonicalOrder(x.preds, func(p Prediction) string { return p.ID })
		for _, k := range s.tOrig {
			s.truth = append(s.truth, x.sample.Truth[k])
		}
		for _, k := range s.pOrig {
			s.preds = append(s.preds, x.preds[k])
		}
		for _, t := range s.truth {
			docs = append(docs, Tokens(truthText(t)))
		}
		for _, p := range s.preds {
			docs = append(docs, predictionTokens(p))
		}
	}
	vecs := vectorize(docs)
	for i := range out {
		s := &out[i]
		tvec := vecs[:len(s.truth)]
		s.pvec = vecs[len(s.truth) : len(s.truth)+len(s.preds)]
		vecs = vecs[len(s.truth)+len(s.preds):]
		s.pairs = make([]matchPair, len(s.truth)*len(s.preds))
		for t, tr := range s.truth {
			for f, p := range s.preds {
				pr := pairOf(tr, p)
				if pr.sameFile || pr.body {
					pr.sim = textSimilarity(tvec[t], s.pvec[f])
				}
				s.pairs[t*len(s.preds)+f] = pr
			}
		}
	}
	return out
}

// canonicalOrder returns the indices of xs sorted by id (stably, for repeated ids).
func canonicalOrder[T any](xs []T, id func(T) string) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(id(xs[a]), id(xs[b])) })
	return idx
}

func truthText(t Truth) string { return t.Body }

// predictionTokens are the tokens of a finding's title, body and quote. The title and body
// are Markdown; the quote is code copied from the diff, read as written.
func predictionTokens(p Prediction) []string {
	return append(Tokens(p.Title+"\n"+p.Body), codeTokens(p.Quote)...)
}

func pairOf(t Truth, p Prediction) matchPair {
	if t.ReviewBody {
		return matchPair{body: true}
	}
	if t.Path != p.Path || !sameSide(t.Side, p.Side) {
		return matchPair{}
	}
	pr := matchPair{sameFile: true}
	t1, t2 := t.Lines()
	p1, p2 := predictionLines(p)
	if t2 > 0 && p2 > 0 {
		pr.lines = true
		pr.dist = rangeGap(t1, t2, p1, p2)
	}
	return pr
}

func sameSide(a, b string) bool { return a == "" || b == "" || a == b }

// predictionLines is the finding's line range, first to last; 0, 0 when it has no line.
func predictionLines(p Prediction) (first, last int) {
	if p.Line <= 0 {
		return 0, 0
	}
	if p.StartLine <= 0 || p.StartLine > p.Line {
		return p.Line, p.Line
	}
	return p.StartLine, p.Line
}

// rangeGap is the number of lines between two ranges: 0 when they overlap or touch end to end
// on the same line, 1 for adjacent lines.
func rangeGap(a1, a2, b1, b2 int) int {
	return max(0, max(a1, b1)-min(a2, b2))
}

// assignTier matches the truth items of s to the findings cols (canonical indices) at tier
// and returns, per canonical truth index, the canonical finding index it matched or -1.
func (m tierMatcher) assignTier(s *scoredSample, tier string, cols []int) []int {
	match := make([]int, len(s.truth))
	for i := range match {
		match[i] = -1
	}
	// Only rows and columns with an eligible pair take part: most pairs of a sample are in
	// different files, and the assignment is cubic.
	var rows []int
	usedCol := make([]bool, len(cols))
	elig := make([]bool, 0, len(cols)*len(s.truth))
	for t := range s.truth {
		has := false
		for ci, f := range cols {
			e := m.eligible(tier, s, t, f)
			if e {
				has = true
				usedCol[ci] = true
			}
			elig = append(elig, e)
		}
		if has {
			rows = append(rows, t)
		}
	}
	if len(rows) == 0 {
		return match
	}
	var cs []int // indices into cols
	for ci, u := range usedCol {
		if u {
			cs = append(cs, ci)
		}
	}
	big := maxPairScore*float64(min(len(rows), len(cs))) + 1
	w := make([][]float64, len(rows))
	for r, t := range rows {
		w[r] = make([]float64, len(cs))
		for c, ci := range cs {
			if elig[t*len(cols)+ci] {
				w[r][c] = big + s.pair(t, cols[ci]).score()
			}
		}
	}
	for r, c := range hungarian(w) {
		if c >= 0 && w[r][c] > 0 {
			match[rows[r]] = cols[cs[c]]
		}
	}
	return match
}

// duplicates marks the findings of s that repeat another one: same file, within the line
// window, similar text. Repeats are grouped transitively and the first of each group in the
// predictions' own order is the original, so the count does not depend on that order. The
// result is indexed by canonical finding index.
func (m tierMatcher) duplicates(s *scoredSample) []bool {
	n := len(s.preds)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			pa, pb := s.preds[a], s.preds[b]
			if pa.Path != pb.Path || !sameSide(pa.Side, pb.Side) {
				continue
			}
			a1, a2 := predictionLines(pa)
			b1, b2 := predictionLines(pb)
			if a2 > 0 && b2 > 0 && rangeGap(a1, a2, b1, b2) > m.window {
				continue
			}
			if textSimilarity(s.pvec[a], s.pvec[b]) < m.threshold {
				continue
			}
			// The root of a group is its finding that comes first as given.
			ra, rb := find(a), find(b)
			if s.pOrig[ra] < s.pOrig[rb] {
				parent[rb] = ra
			} else {
				parent[ra] = rb
			}
		}
	}
	dup := make([]bool, n)
	for i := range n {
		dup[i] = find(i) != i
	}
	return dup
}
