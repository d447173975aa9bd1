package learn

import (
	"cmp"
	"path"
	"slices"
)

// Bucket counts the outcomes of the signals that share a key.
type Bucket struct {
	Key                         string
	Accepted, Rejected, Ignored int
	Total                       int
	Rate                        float64 // Accepted / Total; 0 when Total is 0
}

// Stats are the outcomes of a set of signals, overall and broken down. Each breakdown is
// sorted by Total, most first, then by Key, so that the output is the same on every run.
type Stats struct {
	Overall    Bucket
	ByReviewer []Bucket // keyed by Signal.Reviewer
	ByCategory []Bucket // keyed by Signal.Category ("" when the comment had none)
	BySeverity []Bucket // keyed by Signal.Severity ("" when the comment had none)
	ByPath     []Bucket // keyed by the directory of Signal.Path, "." for the repository's root
}

// Acceptance is the share of all signals whose comment was accepted.
func (s Stats) Acceptance() float64 { return s.Overall.Rate }

// ComputeStats counts the outcomes of ss.
func ComputeStats(ss []Signal) Stats {
	var st Stats
	reviewers, categories, severities, dirs := map[string]*Bucket{}, map[string]*Bucket{}, map[string]*Bucket{}, map[string]*Bucket{}
	for _, s := range ss {
		o := s.Outcome()
		st.Overall.add(o)
		bucket(reviewers, s.Reviewer).add(o)
		bucket(categories, s.Category).add(o)
		bucket(severities, s.Severity).add(o)
		bucket(dirs, path.Dir(s.Path)).add(o)
	}
	st.Overall.rate()
	st.ByReviewer, st.ByCategory, st.BySeverity, st.ByPath = sorted(reviewers), sorted(categories), sorted(severities), sorted(dirs)
	return st
}

func bucket(m map[string]*Bucket, key string) *Bucket {
	b, ok := m[key]
	if !ok {
		b = &Bucket{Key: key}
		m[key] = b
	}
	return b
}

func (b *Bucket) add(o Outcome) {
	switch o {
	case Accepted:
		b.Accepted++
	case Rejected:
		b.Rejected++
	default:
		b.Ignored++
	}
	b.Total++
}

func (b *Bucket) rate() {
	b.Rate = 0
	if b.Total > 0 {
		b.Rate = float64(b.Accepted) / float64(b.Total)
	}
}

func sorted(m map[string]*Bucket) []Bucket {
	if len(m) == 0 {
		return nil
	}
	out := make([]Bucket, 0, len(m))
	for _, b := range m {
		b.rate()
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b Bucket) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out
}
