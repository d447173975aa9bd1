package learn

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Bucket counts the outcomes of the signals that share a key.
type Bucket struct {
	Key                         string
	Accepted, Rejected, Ignored int
	Total                       int
	Rate                        float64 // Accepted / Total; 0 when Total is 0
}

// Stats are the outcomes of a set of signals, overall and broken down. Council's own comments
// and human reviewers' asks are counted apart: an ask is not council's to be accepted, and a
// change found in git is accepted by definition, so that mixing them would say nothing of
// council. Each breakdown is sorted by Total, most first, then by Key, so that the output is
// the same on every run.
type Stats struct {
	// Council's own comments (Signal.IsAsk false).
	Overall    Bucket
	ByReviewer []Bucket // keyed by Signal.Reviewer
	ByCategory []Bucket // keyed by Signal.Category ("" when the comment had none)
	BySeverity []Bucket // keyed by Signal.Severity ("" when the comment had none)
	ByPath     []Bucket // keyed by the directory of Signal.Path, "." for the repository's root
	// Human reviewers' asks (Signal.IsAsk).
	Asks         Bucket
	AsksBySource []Bucket // keyed by Signal.Source: SourceReview, SourceFeedback
	AsksByDir    []Bucket // keyed by the top directory of Signal.Path, "." for a file at the root
}

// Acceptance is the share of council's comments that were accepted.
func (s Stats) Acceptance() float64 { return s.Overall.Rate }

// ComputeStats counts the outcomes of ss.
func ComputeStats(ss []Signal) Stats {
	var st Stats
	reviewers, categories, severities, dirs := map[string]*Bucket{}, map[string]*Bucket{}, map[string]*Bucket{}, map[string]*Bucket{}
	sources, tops := map[string]*Bucket{}, map[string]*Bucket{}
	for _, s := range ss {
		o := s.Outcome()
		if s.IsAsk() {
			st.Asks.add(o)
			bucket(sources, s.Source).add(o)
			bucket(tops, TopDir(s.Path)).add(o)
			continue
		}
		st.Overall.add(o)
		bucket(reviewers, s.Reviewer).add(o)
		bucket(categories, s.Category).add(o)
		bucket(severities, s.Severity).add(o)
		bucket(dirs, path.Dir(s.Path)).add(o)
	}
	st.Overall.rate()
	st.Asks.rate()
	st.ByReviewer, st.ByCategory, st.BySeverity, st.ByPath = sorted(reviewers), sorted(categories), sorted(severities), sorted(dirs)
	st.AsksBySource, st.AsksByDir = sorted(sources), sorted(tops)
	return st
}

// TopDir is the first directory of a slash-separated path, "." for a file at the root.
func TopDir(p string) string {
	if dir, _, ok := strings.Cut(p, "/"); ok {
		return dir
	}
	return "."
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
