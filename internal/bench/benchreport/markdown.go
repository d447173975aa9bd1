package benchreport

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/bench"
)

// Markdown writes the runs' report as Markdown: the headline table, the breakdowns, cost and
// time, the judge, the samples not scored and a per-sample summary. Every tier is shown; the
// per-sample summary counts matches at the strictest tier every run has.
func Markdown(w io.Writer, runs []Run) error {
	if len(runs) == 0 {
		return errNoRuns
	}
	p := &mdPrinter{runs: runs, tiers: tiers(runs)}
	p.runsTable()
	p.headline()
	p.byPlacement()
	for _, b := range breakdowns {
		p.breakdown(b)
	}
	p.byReviewer()
	p.reviewerPlacement()
	p.costTime()
	p.volume()
	p.acceptance()
	p.judge()
	p.notScored()
	p.perSample()
	if _, err := io.WriteString(w, strings.Join(p.blocks, "\n\n")+"\n"); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

type mdPrinter struct {
	runs   []Run
	tiers  []string
	blocks []string
}

func (p *mdPrinter) add(format string, args ...any) {
	p.blocks = append(p.blocks, fmt.Sprintf(format, args...))
}

func (p *mdPrinter) text(s string) { p.blocks = append(p.blocks, s) }

func (p *mdPrinter) table(header []string, rows [][]string) {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
	}
	line(seps)
	for _, r := range rows {
		line(r)
	}
	p.blocks = append(p.blocks, strings.TrimSuffix(b.String(), "\n"))
}

// runNames are the run columns' headers.
func (p *mdPrinter) runNames() []string {
	names := make([]string, len(p.runs))
	for i, r := range p.runs {
		names[i] = md(r.Name)
	}
	return names
}

func (p *mdPrinter) runsTable() {
	p.text("# council bench report")
	rows := make([][]string, 0, len(p.runs))
	for _, r := range p.runs {
		s := r.Score
		rows = append(rows, []string{md(r.Name), md(s.Model), md(s.Truth), strconv.Itoa(s.Samples),
			strconv.Itoa(len(s.NotScored)), strconv.Itoa(s.TruthItems), strconv.Itoa(s.Findings)})
	}
	p.table([]string{"Run", "Model", "Truth", "Samples", "Not scored", "Truth items", "Findings"}, rows)
}

func (p *mdPrinter) headline() {
	p.text("## Headline")
	p.text(headlineTable(p.runs).markdown())
	var notes []string
	for _, n := range headlineNotes(p.runs) {
		notes = append(notes, md(n))
	}
	p.text(strings.Join(notes, "\n"))
	p.text("Every tier, all shown findings. Micro pools every pair of every sample; macro is the mean of per-sample values. " +
		"Brackets hold the bootstrap 95% confidence interval.")
	var rows [][]string
	for _, t := range p.tiers {
		for _, r := range p.runs {
			ts, ok := tierOf(r.Score, t)
			if !ok {
				rows = append(rows, []string{t, md(r.Name), "–", "–", "–", "–", "–", "–", "–", "–", "–"})
				continue
			}
			rows = append(rows, []string{t, md(r.Name), strconv.Itoa(ts.TP), strconv.Itoa(ts.FP), strconv.Itoa(ts.FN),
				withCI(ts.Micro.Precision, ts.Micro.PrecisionCI), withCI(ts.Micro.Recall, ts.Micro.RecallCI), withCI(ts.Micro.F1, ts.Micro.F1CI),
				withCI(ts.Macro.Precision, ts.Macro.PrecisionCI), withCI(ts.Macro.Recall, ts.Macro.RecallCI), withCI(ts.Macro.F1, ts.Macro.F1CI)})
		}
	}
	p.table([]string{"Tier", "Run", "TP", "FP", "FN", "Precision", "Recall", "F1", "Macro P", "Macro R", "Macro F1"}, rows)
	desc := tierDescriptions(p.runs)
	var b strings.Builder
	for _, t := range p.tiers {
		if desc[t] != "" {
			fmt.Fprintf(&b, "- **%s**: %s\n", t, md(desc[t]))
		}
	}
	if b.Len() > 0 {
		p.text(strings.TrimSuffix(b.String(), "\n"))
	}
}

// byPlacement is every tier's precision and recall for the findings of each placement,
// matched alone, and the PRs with a truth item caught.
func (p *mdPrinter) byPlacement() {
	p.text("## By placement")
	p.text("Each placement's findings matched alone against the truth (micro), at every tier: recall, precision, and PRs with a truth item caught.")
	var rows [][]string
	for _, place := range placementsIn(p.runs) {
		for _, t := range p.tiers {
			row := []string{placementName(place), t}
			for _, r := range p.runs {
				row = append(row, placementCell(r.Score, place, t))
			}
			rows = append(rows, row)
		}
	}
	p.table(append([]string{"Placement", "Tier"}, p.runNames()...), rows)
}

// placementCell is "R 0.25 [0.10–0.40] · P 0.50 [0.20–0.80] · PRs 1/3"; "–" when the score
// has no such placement or tier.
func placementCell(s bench.Score, place, tier string) string {
	ps, ok := placementIn(s, place)
	if !ok {
		return "–"
	}
	pt, ok := placementTier(ps, tier)
	if !ok {
		return "–"
	}
	cell := fmt.Sprintf("R %s · P %s", ciCell(s, pt.Micro.Recall, pt.Micro.RecallCI), ciCell(s, pt.Micro.Precision, pt.Micro.PrecisionCI))
	if pt.PRsCaught.Of > 0 {
		cell += fmt.Sprintf(" · PRs %d/%d", pt.PRsCaught.N, pt.PRsCaught.Of)
	}
	return cell
}

func (p *mdPrinter) breakdown(bd breakdown) {
	p.add("## %s", bd.Title)
	gs := groups(p.runs, bd.By)
	if len(gs) == 0 {
		p.text("No data.")
		return
	}
	var rows [][]string
	for _, g := range gs {
		row := []string{md(g)}
		for _, r := range p.runs {
			for _, t := range p.tiers {
				row = append(row, rateCell(bd.By(r.Score), t, g))
			}
		}
		rows = append(rows, row)
	}
	p.table(append([]string{bd.Column}, p.tierColumns()...), rows)
}

// tierColumns are the headers of a table with a column per run and tier: "L0", "L1", ... for
// one run, "sonnet L0", ... for several.
func (p *mdPrinter) tierColumns() []string {
	var cols []string
	for _, name := range p.runNames() {
		for _, t := range p.tiers {
			if len(p.runs) == 1 {
				cols = append(cols, t)
			} else {
				cols = append(cols, name+" "+t)
			}
		}
	}
	return cols
}

func rateCell(by map[string][]bench.Rate, tier, group string) string {
	rates, ok := by[tier]
	if !ok {
		return "–"
	}
	rt, ok := rateOf(rates, group)
	if !ok {
		return "–"
	}
	return rateText(rt)
}

func (p *mdPrinter) byReviewer() {
	p.text("## Recall by reviewer")
	ks := reviewers(p.runs)
	if len(ks) == 0 {
		p.text("No data.")
		return
	}
	p.text("Each reviewer's findings matched alone against the truth (micro).")
	var rows [][]string
	for _, k := range ks {
		row := []string{md(k.Name), md(k.Kind)}
		for _, r := range p.runs {
			findings := "–"
			if rv, ok := reviewerOf(r.Score, k); ok {
				findings = strconv.Itoa(rv.Findings)
			}
			row = append(row, findings)
			for _, t := range p.tiers {
				row = append(row, reviewerCell(r.Score, k, t))
			}
		}
		rows = append(rows, row)
	}
	header := []string{"Reviewer", "Kind"}
	cols := p.tierColumns()
	for i, name := range p.runNames() {
		if len(p.runs) == 1 {
			header = append(header, "Findings")
		} else {
			header = append(header, name+" findings")
		}
		header = append(header, cols[i*len(p.tiers):(i+1)*len(p.tiers)]...)
	}
	p.table(header, rows)
}

// reviewerCell is "R 0.40 · P 0.55"; "–" when the run has no such reviewer or tier.
func reviewerCell(s bench.Score, k reviewerKey, tier string) string {
	rv, ok := reviewerOf(s, k)
	if !ok {
		return "–"
	}
	for _, ts := range rv.Tiers {
		if ts.Tier == tier {
			return fmt.Sprintf("R %s · P %s", num(ts.Micro.Recall), num(ts.Micro.Precision))
		}
	}
	return "–"
}

// reviewerPlacement is each reviewer's figures up front beside those in all.
func (p *mdPrinter) reviewerPlacement() {
	p.text("## By reviewer, up front and in all")
	t := reviewerTable(p.runs)
	if len(t.Rows) == 0 {
		p.text("No data.")
		return
	}
	p.text(reviewerNote(p.runs))
	p.text(t.markdown())
}

func (p *mdPrinter) costTime() {
	p.text("## Cost and time per PR")
	rows := make([][]string, 0, len(p.runs))
	for _, r := range p.runs {
		c, t := r.Score.Cost, r.Score.Time
		rows = append(rows, []string{md(r.Name), usd(c.Mean), usd(c.Median), usd(c.Max), usd(c.Total),
			seconds(t.Mean), seconds(t.Median), seconds(t.Max), seconds(t.Total)})
	}
	p.table([]string{"Run", "Cost mean", "Cost median", "Cost max", "Cost total", "Time mean", "Time median", "Time max", "Time total"}, rows)
	if t := costTable(p.runs); len(t.Rows) > 0 {
		p.text("Cost per PR by part, from the reviews' usage; the share is of the run's cost.")
		p.text(t.markdown())
	}
}

func (p *mdPrinter) volume() {
	p.text("## Findings per PR and redundancy")
	p.text("Redundancy is the share of findings that repeat another finding of the same sample.")
	rows := make([][]string, 0, len(p.runs))
	for _, r := range p.runs {
		s := r.Score
		rows = append(rows, []string{md(r.Name), strconv.Itoa(s.Findings), fmt.Sprintf("%.1f", s.FindingsPerPR),
			strconv.Itoa(s.Duplicates), pct(s.Redundancy)})
	}
	p.table([]string{"Run", "Findings", "Findings per PR", "Duplicates", "Redundancy"}, rows)
}

// acceptance is the share of posted comments people acted on, for the runs scored with
// --signals; nothing when none was.
func (p *mdPrinter) acceptance() {
	var rows [][]string
	for _, r := range p.runs {
		a := r.Score.Acceptance
		if a == nil {
			continue
		}
		rows = append(rows, []string{md(r.Name), "all", fmt.Sprintf("%.2f", a.Overall.Rate), strconv.Itoa(a.Overall.Accepted),
			strconv.Itoa(a.Overall.Rejected), strconv.Itoa(a.Overall.Ignored), strconv.Itoa(a.Overall.Total)})
		for _, c := range a.ByReviewer {
			rows = append(rows, []string{md(r.Name), md(c.Reviewer), fmt.Sprintf("%.2f", c.Rate), strconv.Itoa(c.Accepted),
				strconv.Itoa(c.Rejected), strconv.Itoa(c.Ignored), strconv.Itoa(c.Total)})
		}
	}
	if len(rows) == 0 {
		return
	}
	p.text("## Acceptance of posted comments")
	p.text("The share of council's posted comments that were addressed or drew a positive reaction (bench score --signals).")
	p.table([]string{"Run", "Reviewer", "Acceptance", "Accepted", "Rejected", "Ignored", "Comments"}, rows)
}

func (p *mdPrinter) judge() {
	p.text("## Judge")
	var rows [][]string
	for _, r := range p.runs {
		j := r.Score.Judge
		if j == nil {
			continue
		}
		rows = append(rows, []string{md(r.Name), md(j.Model), strconv.Itoa(j.Pairs), strconv.Itoa(j.Cached),
			strconv.Itoa(j.Errors), strconv.Itoa(j.Plausible), strconv.Itoa(j.Fabricated), usd(j.CostUSD)})
	}
	if len(rows) == 0 {
		p.text("No run was scored with a judge (tier L3).")
		return
	}
	p.text("Pairs the judge was asked about; errors count as neither hit nor miss. Plausible and " +
		"fabricated label the findings that matched no truth item.")
	p.table([]string{"Run", "Judge model", "Pairs", "Cached", "Errors", "Plausible", "Fabricated", "Cost"}, rows)
}

func (p *mdPrinter) notScored() {
	p.text("## Samples not scored")
	var rows [][]string
	for _, r := range p.runs {
		for _, n := range r.Score.NotScored {
			rows = append(rows, []string{md(r.Name), md(n.ID), md(n.Reason)})
		}
	}
	if len(rows) == 0 {
		p.text("Every sample was scored.")
		return
	}
	p.table([]string{"Run", "Sample", "Reason"}, rows)
}

func (p *mdPrinter) perSample() {
	tier := defaultTier(p.runs)
	p.text("## Per sample")
	p.add("Truth items matched at %s, and the findings of each run.", tier)
	var rows [][]string
	for _, id := range sampleIDs(p.runs) {
		title := ""
		row := []string{md(id), ""}
		for _, r := range p.runs {
			ss, ok := sampleOf(r.Score, id)
			if !ok {
				if reason, ok := notScoredOf(r.Score, id); ok {
					row = append(row, "not scored: "+md(firstLine(reason, 60)))
				} else {
					row = append(row, "–")
				}
				continue
			}
			if title == "" {
				title = ss.Title
			}
			row = append(row, fmt.Sprintf("%d/%d matched · %s", matched(ss, tier), len(ss.Truth), plural(len(ss.Findings), "finding")))
		}
		row[1] = md(firstLine(title, 80))
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		p.text("No samples.")
		return
	}
	p.table(append([]string{"Sample", "Title"}, p.runNames()...), rows)
}

// md makes untrusted text safe in a Markdown table cell: one line, no column breaks, and no
// tag that a renderer (GitHub's included) would interpret. Only a '<' that could open a tag is
// escaped, so that "line distance <= 3" stays readable raw.
var (
	mdReplacer = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`)
	mdTag      = regexp.MustCompile(`<([A-Za-z/!?])`)
)

func md(s string) string { return mdTag.ReplaceAllString(mdReplacer.Replace(s), "&lt;$1") }
