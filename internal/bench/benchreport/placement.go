package benchreport

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/bench"
)

// The tables of where findings were shown (up front, collapsed, all shown), per run and per
// reviewer, and of what each part of a review cost. bench score prints them and the report
// shows them, from the same rows, so that a table pasted from either says the same.

// textTable is a table of plain-text cells; Num marks the columns of numbers.
type textTable struct {
	Header []string
	Num    []bool
	Rows   [][]string
}

func (t *textTable) column(name string, num bool) {
	t.Header = append(t.Header, name)
	t.Num = append(t.Num, num)
}

// newTable starts a table of the runs: a Run column when there are several, then the text
// column named first.
func newTable(runs []Run, first string) textTable {
	var t textTable
	if len(runs) > 1 {
		t.column("Run", false)
	}
	t.column(first, false)
	return t
}

// markdown is the table as Markdown with its columns padded to one width: a person can paste
// it into a note, and it reads in a terminal. Cells are escaped with md.
func (t textTable) markdown() string {
	cells := make([][]string, 0, len(t.Rows)+1)
	cells = append(cells, t.Header)
	for _, r := range t.Rows {
		cells = append(cells, r)
	}
	width := make([]int, len(t.Header))
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(md(c)), 3)
		}
	}
	var b strings.Builder
	line := func(row []string, sep bool) {
		b.WriteString("|")
		for i, c := range row {
			c = md(c)
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case sep && t.Num[i]:
				c = strings.Repeat("-", width[i]-1) + ":"
			case sep:
				c = strings.Repeat("-", width[i])
			case t.Num[i]:
				c = pad + c
			default:
				c += pad
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(t.Header, false)
	line(t.Header, true)
	for _, r := range t.Rows {
		line(r, false)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// placementNames are the placements as people read them.
var placementNames = map[string]string{
	bench.PlacementUpFront:   "up front",
	bench.PlacementCollapsed: "collapsed",
	bench.PlacementAllShown:  "all shown",
}

func placementName(p string) string {
	if n, ok := placementNames[p]; ok {
		return n
	}
	return p
}

// headlineTiers are the tiers of the headline tables: L1, the deterministic tier that asks
// only for the place, and L3, the judge's, when a run has it.
func headlineTiers(runs []Run) []string {
	var out []string
	for _, t := range []string{bench.TierL1, bench.TierL3} {
		if slices.Contains(tiers(runs), t) {
			out = append(out, t)
		}
	}
	return out
}

func anyLabels(runs []Run) bool {
	return slices.ContainsFunc(runs, func(r Run) bool { return r.Score.Labels != nil })
}

// placementsOf are a score's placements; a score made before placements has its tiers as all
// shown, with no count of PRs caught.
func placementsOf(s bench.Score) []bench.PlacementScore {
	if len(s.Placements) > 0 {
		return s.Placements
	}
	all := bench.PlacementScore{Placement: bench.PlacementAllShown, Findings: s.Findings, FindingsPerPR: s.FindingsPerPR}
	for _, t := range s.Tiers {
		all.Tiers = append(all.Tiers, bench.PlacementTier{TierScore: t})
	}
	return []bench.PlacementScore{all}
}

// placementsIn are the placements any run has, in order.
func placementsIn(runs []Run) []string {
	var out []string
	for _, place := range bench.Placements {
		if slices.ContainsFunc(runs, func(r Run) bool {
			return slices.ContainsFunc(placementsOf(r.Score), func(p bench.PlacementScore) bool { return p.Placement == place })
		}) {
			out = append(out, place)
		}
	}
	return out
}

// find is the first of xs that is, and whether there is one.
func find[T any](xs []T, is func(T) bool) (T, bool) {
	if i := slices.IndexFunc(xs, is); i >= 0 {
		return xs[i], true
	}
	var zero T
	return zero, false
}

// placementIn is a score's placement of that name.
func placementIn(s bench.Score, place string) (bench.PlacementScore, bool) {
	return find(placementsOf(s), func(p bench.PlacementScore) bool { return p.Placement == place })
}

func placementTier(p bench.PlacementScore, tier string) (bench.PlacementTier, bool) {
	return find(p.Tiers, func(t bench.PlacementTier) bool { return t.Tier == tier })
}

func labelsOf(l *bench.LabelScore, placement string) (bench.LabelPlacement, bool) {
	if l == nil {
		return bench.LabelPlacement{}, false
	}
	return find(l.Placements, func(p bench.LabelPlacement) bool { return p.Placement == placement })
}

// ciCell is "0.62 [0.48–0.75]", without the interval when the score has none.
func ciCell(s bench.Score, v float64, ci [2]float64) string {
	if s.Options.Bootstrap <= 0 {
		return num(v)
	}
	return withCI(v, ci)
}

// precisionCell is a tier's precision; "–" when it had no findings to be precise about.
func precisionCell(t bench.TierScore) string {
	if t.TP+t.FP == 0 {
		return "–"
	}
	return num(t.Micro.Precision)
}

// shareCell is "0.62 (10/16)"; "–" for a share of nothing.
func shareCell(sh bench.Share) string {
	if sh.Of == 0 {
		return "–"
	}
	return fmt.Sprintf("%s (%d/%d)", num(sh.Share), sh.N, sh.Of)
}

// headlineTable has a row per run and placement, up front first: findings per PR, recall (with
// its interval), precision and the share of PRs with a truth item caught at the headline
// tiers, and, for runs scored with --labels, the judges' figures.
func headlineTable(runs []Run) textTable {
	t := newTable(runs, "Placement")
	t.column("Findings/PR", true)
	ts := headlineTiers(runs)
	for _, tier := range ts {
		t.column("Recall "+tier, true)
		t.column("Precision "+tier, true)
		t.column("PRs caught "+tier, true)
	}
	labels := anyLabels(runs)
	if labels {
		t.column("Judged valid", true)
		t.column("Useful", true)
		t.column("Asks caught (judged)", true)
		t.column("PRs with an ask caught (judged)", true)
	}
	for _, r := range runs {
		for _, p := range placementsOf(r.Score) {
			var row []string
			if len(runs) > 1 {
				row = append(row, r.Name)
			}
			row = append(row, placementName(p.Placement), fmt.Sprintf("%.2f", p.FindingsPerPR))
			for _, tier := range ts {
				pt, ok := placementTier(p, tier)
				if !ok {
					row = append(row, "–", "–", "–")
					continue
				}
				row = append(row, ciCell(r.Score, pt.Micro.Recall, pt.Micro.RecallCI), precisionCell(pt.TierScore), shareCell(pt.PRsCaught))
			}
			if labels {
				if l, ok := labelsOf(r.Score.Labels, p.Placement); ok {
					row = append(row, shareCell(l.JudgedValid), shareCell(l.Useful), shareCell(l.AsksCaught), shareCell(l.PRsAsksCaught))
				} else {
					row = append(row, "–", "–", "–", "–")
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// headlineNotes say what the headline table's words mean, and what the labels left out.
func headlineNotes(runs []Run) []string {
	notes := []string{"Up front: inline comments and other notes, what a reader is asked to look at; collapsed: the minor notes, " +
		"one collapsed list; all shown: both. Each placement's findings are matched alone (micro). " +
		"PRs caught: PRs with at least one truth item matched, of the PRs with truth."}
	if anyLabels(runs) {
		notes = append(notes, "Judged valid: the share of labelled findings judges labelled valid; useful: valid, or asking for "+
			"a truth item; asks caught (judged): the share of truth items some finding asks for, in the judges' words.")
	}
	for _, r := range runs {
		if len(r.Score.Placements) == 0 {
			notes = append(notes, r.Name+": scored before placements were: score the run again for up front and collapsed.")
		}
		l := r.Score.Labels
		if l == nil {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s: labels from %s, %d of this run's findings (%d of other runs' or filtered ones); %s unlabelled, left out.",
			r.Name, l.File, l.Counted, l.NotInRun, plural(len(l.Unlabelled), "shown finding")))
	}
	return notes
}

// reviewerNote says how to read reviewerTable.
func reviewerNote(runs []Run) string {
	note := "Each cell is up front / all shown: the reviewer's findings matched alone (micro)"
	if anyLabels(runs) {
		note += "; the judges' labels of the findings it owns"
	}
	return note + "."
}

// reviewerTable has a row per reviewer (and run): each cell "up front / all shown".
func reviewerTable(runs []Run) textTable {
	t := newTable(runs, "Reviewer")
	t.column("Findings", true)
	ts := headlineTiers(runs)
	for _, tier := range ts {
		t.column("Recall "+tier, true)
		t.column("Precision "+tier, true)
	}
	labels := anyLabels(runs)
	if labels {
		t.column("Judged valid", true)
		t.column("Useful", true)
	}
	pair := func(up, all string) string { return up + " / " + all }
	for _, k := range reviewers(runs) {
		for _, r := range runs {
			rv, ok := reviewerOf(r.Score, k)
			if !ok {
				continue
			}
			var row []string
			if len(runs) > 1 {
				row = append(row, r.Name)
			}
			upFindings := "–"
			if rv.UpFrontTiers != nil {
				upFindings = fmt.Sprint(rv.UpFrontFindings)
			}
			row = append(row, k.Name, pair(upFindings, fmt.Sprint(rv.Findings)))
			for _, tier := range ts {
				up, upOK := tierIn(rv.UpFrontTiers, tier)
				all, allOK := tierIn(rv.Tiers, tier)
				rec, prec := [2]string{"–", "–"}, [2]string{"–", "–"}
				if upOK {
					rec[0], prec[0] = num(up.Micro.Recall), precisionCell(up)
				}
				if allOK {
					rec[1], prec[1] = num(all.Micro.Recall), precisionCell(all)
				}
				row = append(row, pair(rec[0], rec[1]), pair(prec[0], prec[1]))
			}
			if labels {
				valid, useful := "–", "–"
				if l, ok := reviewerLabels(r.Score.Labels, k.Name); ok {
					valid = pair(shareCell(l.UpFront.JudgedValid), shareCell(l.AllShown.JudgedValid))
					useful = pair(shareCell(l.UpFront.Useful), shareCell(l.AllShown.Useful))
				}
				row = append(row, valid, useful)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func tierIn(ts []bench.TierScore, tier string) (bench.TierScore, bool) {
	return find(ts, func(t bench.TierScore) bool { return t.Tier == tier })
}

func reviewerLabels(l *bench.LabelScore, name string) (bench.ReviewerLabels, bool) {
	if l == nil {
		return bench.ReviewerLabels{}, false
	}
	return find(l.ByReviewer, func(r bench.ReviewerLabels) bool { return r.Reviewer == name })
}

// cents is an amount in US dollars to a hundredth of a cent below a dollar: a review costs
// cents, and parts rounded to the cent would not add up.
func cents(v float64) string {
	if v < 1 && v > -1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// costPartNames are the cost parts as people read them.
var costPartNames = map[string]string{
	bench.CostReviewers:   "reviewers",
	bench.CostValidator:   "validator",
	bench.CostCacheWarmup: "cache warm-up",
	bench.CostOther:       "other",
	bench.CostUnsplit:     "unsplit (no breakdown in the review)",
}

// costTable has a row per run and part that cost anything: the mean per PR, the total and the
// share. A score made before the split has no rows.
func costTable(runs []Run) textTable {
	t := newTable(runs, "Part")
	t.column("Per PR", true)
	t.column("Total", true)
	t.column("Share", true)
	for _, r := range runs {
		for _, c := range r.Score.CostByPart {
			if c.Total == 0 {
				continue
			}
			name, ok := costPartNames[c.Part]
			if !ok {
				name = c.Part
			}
			var row []string
			if len(runs) > 1 {
				row = append(row, r.Name)
			}
			t.Rows = append(t.Rows, append(row, name, cents(c.Mean), cents(c.Total), pct(c.Share)))
		}
	}
	return t
}

// HeadlineMarkdown writes the placement table of the runs, up front first, as an aligned
// Markdown table, then what its words mean.
func HeadlineMarkdown(w io.Writer, runs []Run) error {
	return writeTable(w, headlineTable(runs), headlineNotes(runs)...)
}

// ReviewersMarkdown writes each reviewer's findings, recall and precision (and labels), up
// front and in all, as an aligned Markdown table.
func ReviewersMarkdown(w io.Writer, runs []Run) error {
	return writeTable(w, reviewerTable(runs))
}

// CostMarkdown writes the runs' cost per PR by part as an aligned Markdown table; nothing
// when no score has the split.
func CostMarkdown(w io.Writer, runs []Run) error {
	t := costTable(runs)
	if len(t.Rows) == 0 {
		return nil
	}
	return writeTable(w, t)
}

func writeTable(w io.Writer, t textTable, notes ...string) error {
	text := t.markdown() + "\n"
	for _, n := range notes {
		text += md(n) + "\n"
	}
	if _, err := io.WriteString(w, text); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}
