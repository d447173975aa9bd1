package consolidate

import "github.com/council-dev/council/internal/finding"

// Suppression is one pattern of findings a team has said it does not want raised: a suppress
// learning of .council/learnings.yaml, read at the base revision. Match decides; Reason is
// what the filtered finding carries ("learning <id>: <text>").
type Suppression struct {
	Reason string
	Match  func(finding.Finding) bool
}

// Suppress marks Filtered, with the reason of the first suppression that matches, every finding
// that is still shown (reported, other note or minor) and matched by one of ss. A critical
// finding is never suppressed, whatever matches it: a learning is a pattern of past noise, and
// must not silence the one finding that should stop a merge. Nothing is removed.
//
// It returns, per suppression, how many findings it filtered; their sum is the number this
// stage filtered.
func Suppress(fs []finding.Finding, ss []Suppression) []int {
	n := make([]int, len(ss))
	if len(ss) == 0 {
		return n
	}
	for i := range fs {
		f := &fs[i]
		if f.Status == finding.Filtered || f.Severity == finding.Critical {
			continue
		}
		for k, s := range ss {
			if s.Match != nil && s.Match(*f) {
				f.Status = finding.Filtered
				f.FilterReason = s.Reason
				n[k]++
				break
			}
		}
	}
	return n
}
