package persona

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// PRRef names one pull request of a repository ("owner/name").
type PRRef struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	// First is when the maintainer first commented on it: the order of the holdout.
	First time.Time `json:"first_comment"`
}

// Split is a history cut in two for an evaluation: Train builds the persona, Held is never
// shown to it.
type Split struct {
	Train, Held       []Comment
	TrainPRs, HeldPRs []PRRef // oldest first
}

// HoldOut orders the pull requests that comments were made on by the time of their first
// comment and holds out the n most recent: every comment on those, whoever's and whenever
// made, is in Held and none is in Train. Ties are broken by repository and number, so the
// split does not depend on the input's order.
func HoldOut(comments []Comment, n int) Split {
	type key struct {
		repo string
		pr   int
	}
	first := map[key]time.Time{}
	for _, c := range comments {
		k := key{strings.ToLower(c.Repo), c.PR}
		if t, ok := first[k]; !ok || c.CreatedAt.Before(t) {
			first[k] = c.CreatedAt
		}
	}
	refs := make([]PRRef, 0, len(first))
	for k, t := range first {
		refs = append(refs, PRRef{Repo: k.repo, Number: k.pr, First: t})
	}
	slices.SortFunc(refs, func(a, b PRRef) int {
		return cmp.Or(a.First.Compare(b.First), cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Number, b.Number))
	})
	n = min(max(n, 0), len(refs))
	var s Split
	s.TrainPRs, s.HeldPRs = refs[:len(refs)-n], refs[len(refs)-n:]
	held := map[key]bool{}
	for _, r := range s.HeldPRs {
		held[key{r.Repo, r.Number}] = true
	}
	for _, c := range comments {
		if held[key{strings.ToLower(c.Repo), c.PR}] {
			s.Held = append(s.Held, c)
		} else {
			s.Train = append(s.Train, c)
		}
	}
	return s
}
