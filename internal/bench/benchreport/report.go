// Package benchreport renders one or several scored benchmark runs (score.json, bench.Score)
// side by side, as Markdown for a terminal or a pull request, and as one self-contained HTML
// page with charts and a per-sample drill-down for a team lead to read.
//
// It is pure: runs in, text out, the same bytes for the same runs. It must never read files,
// touch the network or the clock, fetch anything from the page it writes (no external fonts,
// scripts, styles or images), or put text from a score into HTML unescaped: titles, comment
// bodies and finding bodies come from pull requests and models, and are untrusted.
package benchreport

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/bench"
)

// Run is one scored run as the report shows it.
type Run struct {
	// Name heads the run's column; the caller makes it unique among the runs of a report.
	Name  string
	Score bench.Score
}

var errNoRuns = errors.New("no runs to report")

// knownTiers orders tiers the way score.json defines them; a tier unknown to this version
// sorts after them, by name, so that a newer score still renders.
var knownTiers = []string{bench.TierL0, bench.TierL1, bench.TierL2, bench.TierL3}

func tierLess(a, b string) int {
	ia, ib := slices.Index(knownTiers, a), slices.Index(knownTiers, b)
	if ia < 0 {
		ia = len(knownTiers)
	}
	if ib < 0 {
		ib = len(knownTiers)
	}
	return cmp.Or(cmp.Compare(ia, ib), cmp.Compare(a, b))
}

// tiers is every tier of any run, in order.
func tiers(runs []Run) []string {
	var ts []string
	for _, r := range runs {
		for _, t := range r.Score.Tiers {
			if !slices.Contains(ts, t.Tier) {
				ts = append(ts, t.Tier)
			}
		}
	}
	slices.SortFunc(ts, tierLess)
	return ts
}

// defaultTier is the tier the drill-down opens on: the strictest one every run has, so that
// the first view compares like with like (L3 exists only where a judge ran).
func defaultTier(runs []Run) string {
	all := tiers(runs)
	for i := len(all) - 1; i >= 0; i-- {
		if slices.IndexFunc(runs, func(r Run) bool { _, ok := tierOf(r.Score, all[i]); return !ok }) < 0 {
			return all[i]
		}
	}
	if len(all) > 0 {
		return all[0]
	}
	return ""
}

func tierOf(s bench.Score, tier string) (bench.TierScore, bool) { return tierIn(s.Tiers, tier) }

// tierDescriptions is each tier's description, from the first run that gives one.
func tierDescriptions(runs []Run) map[string]string {
	d := map[string]string{}
	for _, r := range runs {
		for _, t := range r.Score.Tiers {
			if d[t.Tier] == "" {
				d[t.Tier] = t.Description
			}
		}
	}
	return d
}

// groups is every group name of a breakdown (tier -> rates) over all runs, sorted.
func groups(runs []Run, by func(bench.Score) map[string][]bench.Rate) []string {
	var gs []string
	for _, r := range runs {
		for _, rates := range by(r.Score) {
			for _, rt := range rates {
				if !slices.Contains(gs, rt.Group) {
					gs = append(gs, rt.Group)
				}
			}
		}
	}
	slices.Sort(gs)
	return gs
}

func rateOf(rates []bench.Rate, group string) (bench.Rate, bool) {
	for _, r := range rates {
		if r.Group == group {
			return r, true
		}
	}
	return bench.Rate{}, false
}

func byKind(s bench.Score) map[string][]bench.Rate      { return s.ByKind }
func byAddressed(s bench.Score) map[string][]bench.Rate { return s.ByAddressed }
func byAuthor(s bench.Score) map[string][]bench.Rate    { return s.ByAuthor }

// breakdown is one "recall by X" table: its heading, the group column's name, and where the
// rates are.
type breakdown struct {
	ID, Title, Column string
	By                func(bench.Score) map[string][]bench.Rate
}

var breakdowns = []breakdown{
	{"by-kind", "Recall by kind", "Kind", byKind},
	{"by-addressed", "Recall by addressed", "Addressed", byAddressed},
	{"by-author", "Recall by truth author", "Author", byAuthor},
}

// reviewerKey names a reviewer across runs: the same name as a lens and as a persona are two.
type reviewerKey struct{ Name, Kind string }

func reviewers(runs []Run) []reviewerKey {
	var ks []reviewerKey
	for _, r := range runs {
		for _, rv := range r.Score.ByReviewer {
			k := reviewerKey{rv.Reviewer, rv.Kind}
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	slices.SortFunc(ks, func(a, b reviewerKey) int {
		return cmp.Or(cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return ks
}

// kindRank puts lenses first, then personas, then rules: the order a reader knows them in.
func kindRank(k string) int {
	if i := slices.Index([]string{"lens", "persona", "rules"}, k); i >= 0 {
		return i
	}
	return 3
}

func reviewerOf(s bench.Score, k reviewerKey) (bench.ReviewerScore, bool) {
	for _, rv := range s.ByReviewer {
		if rv.Reviewer == k.Name && rv.Kind == k.Kind {
			return rv, true
		}
	}
	return bench.ReviewerScore{}, false
}

// sampleIDs is every sample of any run, scored or not, in the order the runs first give them.
func sampleIDs(runs []Run) []string {
	var ids []string
	add := func(id string) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, r := range runs {
		for _, s := range r.Score.PerSample {
			add(s.ID)
		}
	}
	for _, r := range runs {
		for _, n := range r.Score.NotScored {
			add(n.ID)
		}
	}
	return ids
}

func sampleOf(s bench.Score, id string) (bench.SampleScore, bool) {
	for _, ss := range s.PerSample {
		if ss.ID == id {
			return ss, true
		}
	}
	return bench.SampleScore{}, false
}

func notScoredOf(s bench.Score, id string) (string, bool) {
	for _, n := range s.NotScored {
		if n.ID == id {
			return n.Reason, true
		}
	}
	return "", false
}

// matched counts the sample's truth items matched at tier.
func matched(s bench.SampleScore, tier string) int {
	n := 0
	for _, t := range s.Truth {
		if t.Matches[tier] != "" {
			n++
		}
	}
	return n
}

// num is a ratio in [0, 1] with two decimals, the precision a bootstrap CI over tens of
// samples deserves.
func num(f float64) string { return fmt.Sprintf("%.2f", f) }

// withCI is "0.62 [0.48–0.75]".
func withCI(v float64, ci [2]float64) string {
	return fmt.Sprintf("%s [%s–%s]", num(v), num(ci[0]), num(ci[1]))
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

func usd(f float64) string {
	if f != 0 && f < 0.01 && f > -0.01 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// seconds is a duration for people: "42.0s", "3m12s".
func seconds(f float64) string {
	if f < 60 {
		return fmt.Sprintf("%.1fs", f)
	}
	m := int(f) / 60
	return fmt.Sprintf("%dm%02ds", m, int(f)-60*m)
}

// rateText is "3/5 (0.60)".
func rateText(r bench.Rate) string {
	return fmt.Sprintf("%d/%d (%s)", r.Hits, r.Total, num(r.Recall))
}

// loc is "path:line", "path:10-12", "path" for a file comment, or "(review body)".
func loc(path string, start, line int) string {
	switch {
	case path == "":
		return "(review body)"
	case line == 0:
		return path
	case start > 0 && start < line:
		return fmt.Sprintf("%s:%d-%d", path, start, line)
	default:
		return fmt.Sprintf("%s:%d", path, line)
	}
}

// firstLine is the first non-empty line of s, cut to n runes: a one-line summary of a body.
func firstLine(s string, n int) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > n {
				return string(r[:n-1]) + "…"
			}
			return l
		}
	}
	return ""
}

// plural is "1 finding", "3 findings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
