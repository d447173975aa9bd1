package benchreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/bench"
)

// The page is one template with its CSS and script inline: the file must open from a laptop,
// a CI artifact or an air-gapped network the same way, so it loads nothing.
//
//go:embed report.html.tmpl
var pageTemplate string

// Only html/template: it escapes every value by context (text, attribute, URL, CSS). No
// function here returns template.HTML, template.JS or template.CSS.
var pageTmpl = template.Must(template.New("report").Parse(pageTemplate))

// HTML writes the runs' report as one self-contained HTML page: the tables of Markdown, a
// precision-recall chart per run, a recall-by-kind chart, and a per-sample drill-down with a
// tier selector.
func HTML(w io.Writer, runs []Run) error {
	if len(runs) == 0 {
		return errNoRuns
	}
	if err := pageTmpl.Execute(w, newPage(runs)); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// palette is the Okabe-Ito set, distinguishable with the common colour-vision deficiencies;
// the CSS classes c0..c7 of the template hold the same colours.
const paletteSize = 8

// tiered is an element of the page shown for some tiers only: data-tiers lists them, the
// script shows the element when the selected tier is among them. Hidden holds the state for
// the default tier, so that the page reads right before (or without) the script.
type tiered struct {
	Tiers  string
	Hidden bool
}

func tieredOf(ts []string, def string) tiered {
	return tiered{Tiers: strings.Join(ts, " "), Hidden: !slices.Contains(ts, def)}
}

type runView struct {
	Name, Short string
	Class       string // the run's colour
	Model       string
	Truth       string
	Samples     int
	NotScored   int
	TruthItems  int
	Findings    int
	PerPR       string
	Duplicates  int
	Redundancy  string
	Cost, Time  [4]string // mean, median, max, total
	Judge       *judgeView
}

type judgeView struct {
	Model                                        string
	Pairs, Cached, Errors, Plausible, Fabricated int
	Cost                                         string
}

type tierView struct {
	Name, Desc string
	Selected   bool
}

type headGroup struct {
	Tier, Desc string
	Rows       []headRow
}

type headRow struct {
	Run                  runView
	Present              bool
	TP, FP, FN           int
	P, R, F1             string
	MP, MR, MF1          string
	BestP, BestR, F1Best bool // the best of the runs at this tier, when there are several
}

type bdView struct {
	ID, Title, Column string
	Note              string
	Kind              bool // the reviewer table has a kind column
	Rows              []bdRow
}

type bdRow struct {
	tiered
	Group, Kind, Tier string
	Cells             []bdCell
}

type bdCell struct {
	Present bool
	Class   string
	Width   string // the meter's fill, "60%"
	Text    string
	Sub     string
}

type notScoredView struct{ Run, ID, Reason string }

type page struct {
	Runs       []runView
	Tiers      []tierView
	Default    string
	Truths     []string
	Placement  textTable // the headline: up front, collapsed, all shown
	Notes      []string  // what the placement table's words mean
	Reviewers  textTable // each reviewer up front and in all
	CostParts  textTable
	Headline   []headGroup
	PRCharts   []prChart
	KindChart  *barChart
	Breakdowns []bdView
	AnyJudge   bool
	NotScored  []notScoredView
	Samples    []sampleView
}

func newPage(runs []Run) page {
	all, def := tiers(runs), defaultTier(runs)
	p := page{Default: def}
	desc := tierDescriptions(runs)
	for _, t := range all {
		p.Tiers = append(p.Tiers, tierView{Name: t, Desc: desc[t], Selected: t == def})
	}
	scores := make([]bench.Score, len(runs))
	for i, r := range runs {
		scores[i] = r.Score
		rv := newRunView(i, r)
		p.Runs = append(p.Runs, rv)
		p.AnyJudge = p.AnyJudge || rv.Judge != nil
		if !slices.Contains(p.Truths, r.Score.Truth) {
			p.Truths = append(p.Truths, r.Score.Truth)
		}
		for _, n := range r.Score.NotScored {
			p.NotScored = append(p.NotScored, notScoredView{Run: r.Name, ID: n.ID, Reason: n.Reason})
		}
	}
	p.Placement, p.Notes = headlineTable(runs), headlineNotes(runs)
	p.Reviewers, p.CostParts = reviewerTable(runs), costTable(runs)
	for _, t := range all {
		p.Headline = append(p.Headline, newHeadGroup(p.Runs, runs, t, desc[t]))
	}
	for i, r := range runs {
		p.PRCharts = append(p.PRCharts, newPRChart(p.Runs[i], r.Score))
	}
	p.KindChart = newBarChart(p.Runs, scores, all, def)
	p.Breakdowns = append(p.Breakdowns, newPlacementBreakdown(p.Runs, runs, all, def))
	for _, b := range breakdowns {
		p.Breakdowns = append(p.Breakdowns, newBreakdown(p.Runs, runs, all, def, b))
	}
	p.Breakdowns = append(p.Breakdowns, newReviewerBreakdown(p.Runs, runs, all, def))
	for _, id := range sampleIDs(runs) {
		p.Samples = append(p.Samples, newSampleView(p.Runs, runs, all, def, id))
	}
	return p
}

func newRunView(i int, r Run) runView {
	s := r.Score
	rv := runView{Name: r.Name, Short: short(r.Name, runNameMax), Class: "c" + strconv.Itoa(i%paletteSize),
		Model: s.Model, Truth: s.Truth, Samples: s.Samples, NotScored: len(s.NotScored),
		TruthItems: s.TruthItems, Findings: s.Findings, PerPR: fmt.Sprintf("%.1f", s.FindingsPerPR),
		Duplicates: s.Duplicates, Redundancy: pct(s.Redundancy),
		Cost: [4]string{usd(s.Cost.Mean), usd(s.Cost.Median), usd(s.Cost.Max), usd(s.Cost.Total)},
		Time: [4]string{seconds(s.Time.Mean), seconds(s.Time.Median), seconds(s.Time.Max), seconds(s.Time.Total)},
	}
	if j := s.Judge; j != nil {
		rv.Judge = &judgeView{Model: j.Model, Pairs: j.Pairs, Cached: j.Cached, Errors: j.Errors,
			Plausible: j.Plausible, Fabricated: j.Fabricated, Cost: usd(j.CostUSD)}
	}
	return rv
}

func newHeadGroup(views []runView, runs []Run, tier, desc string) headGroup {
	g := headGroup{Tier: tier, Desc: desc}
	var bestP, bestR, bestF, present = -1.0, -1.0, -1.0, 0
	for i, r := range runs {
		ts, ok := tierOf(r.Score, tier)
		row := headRow{Run: views[i], Present: ok}
		if ok {
			present++
			m, a := ts.Micro, ts.Macro
			row.TP, row.FP, row.FN = ts.TP, ts.FP, ts.FN
			row.P, row.R, row.F1 = withCI(m.Precision, m.PrecisionCI), withCI(m.Recall, m.RecallCI), withCI(m.F1, m.F1CI)
			row.MP, row.MR, row.MF1 = withCI(a.Precision, a.PrecisionCI), withCI(a.Recall, a.RecallCI), withCI(a.F1, a.F1CI)
			bestP, bestR, bestF = max(bestP, m.Precision), max(bestR, m.Recall), max(bestF, m.F1)
		}
		g.Rows = append(g.Rows, row)
	}
	// Bold marks the leader of a comparison; with one run there is nothing to compare.
	if present > 1 {
		for i, r := range runs {
			if ts, ok := tierOf(r.Score, tier); ok {
				g.Rows[i].BestP = ts.Micro.Precision == bestP
				g.Rows[i].BestR = ts.Micro.Recall == bestR
				g.Rows[i].F1Best = ts.Micro.F1 == bestF
			}
		}
	}
	return g
}

func meterCell(class string, recall float64, text, sub string) bdCell {
	return bdCell{Present: true, Class: class, Width: fmt.Sprintf("%.0f%%", 100*clamp(recall)), Text: text, Sub: sub}
}

func newBreakdown(views []runView, runs []Run, all []string, def string, b breakdown) bdView {
	v := bdView{ID: b.ID, Title: b.Title, Column: b.Column}
	for _, g := range groups(runs, b.By) {
		for _, t := range all {
			row := bdRow{tiered: tieredOf([]string{t}, def), Group: g, Tier: t}
			for i, r := range runs {
				rt, ok := rateOf(b.By(r.Score)[t], g)
				if !ok {
					row.Cells = append(row.Cells, bdCell{})
					continue
				}
				row.Cells = append(row.Cells, meterCell(views[i].Class, rt.Recall, num(rt.Recall), fmt.Sprintf("%d/%d", rt.Hits, rt.Total)))
			}
			v.Rows = append(v.Rows, row)
		}
	}
	return v
}

// newPlacementBreakdown is each placement's recall at the selected tier, its findings matched
// alone, with precision and the PRs with a truth item caught.
func newPlacementBreakdown(views []runView, runs []Run, all []string, def string) bdView {
	v := bdView{ID: "by-placement", Title: "By placement", Column: "Placement",
		Note: "Each placement's findings matched alone against the truth (micro): recall, then precision and the PRs with a truth item caught."}
	for _, place := range placementsIn(runs) {
		for _, t := range all {
			row := bdRow{tiered: tieredOf([]string{t}, def), Group: placementName(place), Tier: t}
			for i, r := range runs {
				cell := bdCell{}
				ps, _ := placementIn(r.Score, place)
				if pt, ok := placementTier(ps, t); ok {
					sub := "P " + num(pt.Micro.Precision)
					if pt.PRsCaught.Of > 0 {
						sub += fmt.Sprintf(" · PRs %d/%d", pt.PRsCaught.N, pt.PRsCaught.Of)
					}
					cell = meterCell(views[i].Class, pt.Micro.Recall, num(pt.Micro.Recall), sub)
				}
				row.Cells = append(row.Cells, cell)
			}
			v.Rows = append(v.Rows, row)
		}
	}
	return v
}

func newReviewerBreakdown(views []runView, runs []Run, all []string, def string) bdView {
	v := bdView{ID: "by-reviewer", Title: "Recall by reviewer", Column: "Reviewer", Kind: true,
		Note: "Each reviewer's findings matched alone against the truth (micro): recall, then precision and the reviewer's finding count."}
	for _, k := range reviewers(runs) {
		for _, t := range all {
			row := bdRow{tiered: tieredOf([]string{t}, def), Group: k.Name, Kind: k.Kind, Tier: t}
			for i, r := range runs {
				cell := bdCell{}
				if rv, ok := reviewerOf(r.Score, k); ok {
					for _, ts := range rv.Tiers {
						if ts.Tier == t {
							cell = meterCell(views[i].Class, ts.Micro.Recall, num(ts.Micro.Recall),
								fmt.Sprintf("P %s · %s", num(ts.Micro.Precision), plural(rv.Findings, "finding")))
						}
					}
				}
				row.Cells = append(row.Cells, cell)
			}
			v.Rows = append(v.Rows, row)
		}
	}
	return v
}

// The drill-down.

type sampleView struct {
	ID, Title, URL string
	Heads          []sampleHead
	Truth          []truthRow
	Unmatched      []cellView
}

// sampleHead is a run's line in a sample's summary: how many truth items it matched at each
// tier, or why the sample is not in it.
type sampleHead struct {
	Run    runView
	Note   string
	Chips  []chip
	Cost   string
	Wall   string
	Scored bool
}

type chip struct {
	tiered
	Text string
	Good bool // every truth item matched
	None bool // no truth item matched
}

type truthRow struct {
	ID, Author, Loc, Kind, Source string
	Addressed                     bool
	Body                          string
	Cells                         []cellView
}

// cellView is one run's column in a row of the drill-down: a note when the run has no such
// sample or truth item, else one block per group of tiers that share an outcome.
type cellView struct {
	Note   string
	Blocks []block
}

type block struct {
	tiered
	Note    string
	Missed  bool
	Finding *findingView
}

type findingView struct {
	ID, Reviewers, Loc, Severity, Category, Title, Body, Verdict string
	Duplicate                                                    bool
	Collapsed                                                    bool // a minor note: the review shows it in its collapsed list
}

func newFindingView(f bench.FindingOutcome) *findingView {
	return &findingView{ID: f.ID, Reviewers: strings.Join(f.Reviewers, ", "), Loc: loc(f.Path, f.StartLine, f.Line),
		Severity: f.Severity, Category: f.Category, Title: f.Title, Body: f.Body, Verdict: f.Verdict, Duplicate: f.Duplicate,
		Collapsed: f.Placement == bench.PlacementCollapsed}
}

// groupTiers groups tiers by an outcome key, in tier order: L1, L2 and L3 matching the same
// finding show it once.
func groupTiers(all []string, key func(string) string) (keys []string, tiersOf map[string][]string) {
	tiersOf = map[string][]string{}
	for _, t := range all {
		k := key(t)
		if _, ok := tiersOf[k]; !ok {
			keys = append(keys, k)
		}
		tiersOf[k] = append(tiersOf[k], t)
	}
	return keys, tiersOf
}

// noTier is the outcome key of a tier the run was not scored at.
const noTier = "\x00no tier"

func newSampleView(views []runView, runs []Run, all []string, def, id string) sampleView {
	sv := sampleView{ID: id}
	var truthIDs []string
	truthOf := map[string]bench.TruthOutcome{}
	for i, r := range runs {
		head := sampleHead{Run: views[i]}
		ss, ok := sampleOf(r.Score, id)
		switch {
		case ok:
			head.Scored = true
			head.Cost, head.Wall = usd(ss.CostUSD), seconds(ss.WallSeconds)
			keys, tiersOf := groupTiers(all, func(t string) string {
				if _, ok := tierOf(r.Score, t); !ok {
					return noTier
				}
				return strconv.Itoa(matched(ss, t))
			})
			for _, k := range keys {
				c := chip{tiered: tieredOf(tiersOf[k], def)}
				if k == noTier {
					c.Text = "not scored at " + strings.Join(tiersOf[k], ", ")
				} else {
					n, _ := strconv.Atoi(k)
					c.Text = fmt.Sprintf("%d/%d matched · %s", n, len(ss.Truth), plural(len(ss.Findings), "finding"))
					c.Good, c.None = n == len(ss.Truth) && n > 0, n == 0 && len(ss.Truth) > 0
				}
				head.Chips = append(head.Chips, c)
			}
			if sv.Title == "" {
				sv.Title, sv.URL = ss.Title, ss.URL
			}
			for _, t := range ss.Truth {
				if _, seen := truthOf[t.ID]; !seen {
					truthIDs = append(truthIDs, t.ID)
					truthOf[t.ID] = t
				}
			}
		default:
			if reason, ok := notScoredOf(r.Score, id); ok {
				head.Note = "not scored: " + reason
			} else {
				head.Note = "not in this run"
			}
		}
		sv.Heads = append(sv.Heads, head)
	}
	for _, tid := range truthIDs {
		t := truthOf[tid]
		row := truthRow{ID: t.ID, Author: t.Author, Loc: loc(t.Path, t.StartLine, t.Line), Kind: t.Kind,
			Source: t.Source, Addressed: t.Addressed, Body: t.Body}
		for i, r := range runs {
			row.Cells = append(row.Cells, truthCell(sv.Heads[i], r.Score, all, def, id, tid))
		}
		sv.Truth = append(sv.Truth, row)
	}
	for i, r := range runs {
		sv.Unmatched = append(sv.Unmatched, unmatchedCell(sv.Heads[i], r.Score, all, def, id))
	}
	return sv
}

func truthCell(head sampleHead, s bench.Score, all []string, def, sample, truth string) cellView {
	if !head.Scored {
		return cellView{Note: "–"}
	}
	ss, _ := sampleOf(s, sample)
	i := slices.IndexFunc(ss.Truth, func(t bench.TruthOutcome) bool { return t.ID == truth })
	if i < 0 {
		return cellView{Note: "not in this run's truth"}
	}
	t := ss.Truth[i]
	keys, tiersOf := groupTiers(all, func(tier string) string {
		if _, ok := tierOf(s, tier); !ok {
			return noTier
		}
		return t.Matches[tier]
	})
	var c cellView
	for _, k := range keys {
		b := block{tiered: tieredOf(tiersOf[k], def)}
		switch k {
		case noTier:
			b.Note = "not scored at " + strings.Join(tiersOf[k], ", ")
		case "":
			b.Missed = true
		default:
			if j := slices.IndexFunc(ss.Findings, func(f bench.FindingOutcome) bool { return f.ID == k }); j >= 0 {
				b.Finding = newFindingView(ss.Findings[j])
			} else {
				b.Note = "matched finding " + k + ", which the score does not list"
			}
		}
		c.Blocks = append(c.Blocks, b)
	}
	return c
}

// unmatchedCell lists the findings that matched no truth item: each once, shown at the tiers
// where it is unmatched.
func unmatchedCell(head sampleHead, s bench.Score, all []string, def, sample string) cellView {
	if !head.Scored {
		return cellView{Note: "–"}
	}
	ss, _ := sampleOf(s, sample)
	var have, missing []string
	for _, t := range all {
		if _, ok := tierOf(s, t); ok {
			have = append(have, t)
		} else {
			missing = append(missing, t)
		}
	}
	var c cellView
	unmatchedAt := map[string]bool{}
	for _, f := range ss.Findings {
		var ts []string
		for _, t := range have {
			if f.Matches[t] == "" {
				ts = append(ts, t)
				unmatchedAt[t] = true
			}
		}
		if len(ts) > 0 {
			c.Blocks = append(c.Blocks, block{tiered: tieredOf(ts, def), Finding: newFindingView(f)})
		}
	}
	var none []string
	for _, t := range have {
		if !unmatchedAt[t] {
			none = append(none, t)
		}
	}
	if len(none) > 0 {
		note := "every finding matched a truth item"
		if len(ss.Findings) == 0 {
			note = "no findings"
		}
		c.Blocks = append(c.Blocks, block{tiered: tieredOf(none, def), Note: note})
	}
	if len(missing) > 0 {
		c.Blocks = append(c.Blocks, block{tiered: tieredOf(missing, def), Note: "not scored at " + strings.Join(missing, ", ")})
	}
	return c
}
