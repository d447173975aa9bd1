package bench

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// ScoreInput is everything a score is computed from, read by the caller: the dataset, the
// run's manifest and the reviews the run wrote.
type ScoreInput struct {
	Dataset string                   // the dataset directory as given; Score.Truth
	Samples []Sample                 // the dataset's samples
	Run     RunManifest              // run.json
	Reviews map[string]report.Report // by sample id: the review of each sample the run finished
}

// DefaultScoreOptions are the score's knobs when neither flags nor config set them.
func DefaultScoreOptions() ScoreOptions {
	d := config.Default().Bench
	return ScoreOptions{LineWindow: d.LineWindow, Threshold: d.SimilarityThreshold, Bootstrap: 1000, Seed: 1}
}

// Predictions are the findings of a review that scoring counts: those shown to the user, up
// front (reported inline or as other notes) or collapsed (minor notes); filtered findings are
// not predictions.
func Predictions(rep report.Report) []Prediction {
	var out []Prediction
	for _, f := range rep.Findings {
		if f.Status == finding.Filtered {
			continue
		}
		out = append(out, Prediction{
			ID: f.ID, Reviewers: slices.Clone(f.Lenses), Path: f.Path, Line: f.Line, StartLine: f.StartLine,
			Side: string(f.Side), Severity: string(f.Severity), Category: f.Category,
			Title: f.Title, Body: f.Body, Quote: f.Quote, Placement: placementOf(f.Status),
		})
	}
	return out
}

// placementOf is where a review shows a finding of status s: minor notes are collapsed, and
// every other shown finding is up front, whatever put it there (a finding a learning asked
// for is reported or an other note like any other).
func placementOf(s finding.Status) string {
	if s == finding.Minor {
		return PlacementCollapsed
	}
	return PlacementUpFront
}

// scoredItem is a sample that has a review, with what the run says it cost.
type scoredItem struct {
	sample Sample
	rep    report.Report
	cost   float64
	wall   float64
}

// collect splits the dataset into the samples with a review, sorted by id so that the input's
// order changes nothing (the bootstrap draws by position), and those left out, with why.
func (in ScoreInput) collect() ([]scoredItem, []NotScored) {
	runs := map[string]RunSample{}
	for _, rs := range in.Run.Samples {
		runs[rs.ID] = rs
	}
	inData := map[string]bool{}
	var items []scoredItem
	var not []NotScored
	for _, s := range in.Samples {
		inData[s.ID] = true
		rs, ok := runs[s.ID]
		rep, has := in.Reviews[s.ID]
		switch {
		case !ok:
			not = append(not, NotScored{ID: s.ID, Reason: "not in the run: run.json does not list it"})
		case rs.Status == StatusFailed:
			not = append(not, NotScored{ID: s.ID, Reason: reasonWith("the review failed", rs.Error)})
		case rs.Status == StatusStopped:
			not = append(not, NotScored{ID: s.ID, Reason: reasonWith("stopped before its review finished", rs.Error)})
		case rs.Status != StatusDone:
			not = append(not, NotScored{ID: s.ID, Reason: fmt.Sprintf("run status %q", rs.Status)})
		case !has:
			not = append(not, NotScored{ID: s.ID, Reason: "done, but its review file is missing"})
		default:
			it := scoredItem{sample: s, rep: rep, cost: rs.CostUSD, wall: rs.WallSeconds}
			// Older or hand-made run.json files may lack the ledger; the review has its own.
			if it.cost == 0 {
				it.cost = rep.Usage.CostUSD
			}
			if it.wall == 0 {
				it.wall = rep.Usage.WallSeconds
			}
			items = append(items, it)
		}
	}
	for _, rs := range in.Run.Samples {
		if !inData[rs.ID] {
			not = append(not, NotScored{ID: rs.ID, Reason: "in the run but not in the dataset"})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].sample.ID < items[j].sample.ID })
	sort.Slice(not, func(i, j int) bool { return not[i].ID < not[j].ID })
	return items, not
}

func reasonWith(reason, detail string) string {
	if detail == "" {
		return reason
	}
	return reason + ": " + detail
}

func prepareItems(items []scoredItem) []scoredSample {
	in := make([]sampleInput, len(items))
	for i, it := range items {
		in[i] = sampleInput{sample: it.sample, preds: Predictions(it.rep)}
	}
	return prepareSamples(in)
}

// JudgeCandidates are the pairs worth asking the judge about: every (truth item, finding) pair
// in the same file, and every pair of a review-body truth item with a finding. They are in a
// fixed order: by sample, truth id, finding id.
func JudgeCandidates(in ScoreInput) []JudgePair {
	items, _ := in.collect()
	var out []JudgePair
	for _, s := range prepareItems(items) {
		for t := range s.truth {
			for f := range s.preds {
				if p := s.pair(t, f); p.sameFile || p.body {
					out = append(out, JudgePair{Key: s.key(t, f), Truth: s.truth[t], Finding: s.preds[f]})
				}
			}
		}
	}
	return out
}

// UnmatchedAtL3 are the findings that the judge's "same issue" answers leave unmatched once
// tier L3's one-to-one assignment is made: the judge is asked next whether each is plausible.
func UnmatchedAtL3(in ScoreInput, opts ScoreOptions, same map[PairKey]bool) []JudgeFinding {
	items, _ := in.collect()
	m := tierMatcher{window: opts.LineWindow, threshold: opts.Threshold, same: same}
	var out []JudgeFinding
	for _, s := range prepareItems(items) {
		matched := make([]bool, len(s.preds))
		for _, f := range m.assignTier(&s, TierL3, allColumns(len(s.preds))) {
			if f >= 0 {
				matched[f] = true
			}
		}
		for f, p := range s.preds {
			if !matched[f] {
				out = append(out, JudgeFinding{Key: FindingKey{Sample: s.sample.ID, Finding: p.ID}, Finding: p})
			}
		}
	}
	return out
}

func allColumns(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// ScoreRun scores a run against its dataset's truth. It is deterministic: the same input and
// options give the same score, whatever the order of samples, truth items and findings. With
// v (the judge's answers, gathered beforehand) it adds tier L3 and labels the findings L3 left
// unmatched. Confidence intervals need opts.Bootstrap > 0; they are zero otherwise.
func ScoreRun(in ScoreInput, opts ScoreOptions, v *Verdicts) Score {
	items, notScored := in.collect()
	samples := prepareItems(items)
	m := tierMatcher{window: opts.LineWindow, threshold: opts.Threshold}
	tiers := []string{TierL0, TierL1, TierL2}
	if v != nil {
		m.same = v.Same
		tiers = append(tiers, TierL3)
	}

	sc := Score{
		ScoreVersion: ScoreVersion, Run: in.Run.Name, Truth: in.Dataset, Model: in.Run.Model, Options: opts,
		Samples: len(samples), NotScored: notScored,
		ByKind: map[string][]Rate{}, ByAddressed: map[string][]Rate{}, ByAuthor: map[string][]Rate{},
		// Empty lists rather than null, so that readers of score.json need not tell them apart.
		ByReviewer: []ReviewerScore{}, PerSample: []SampleScore{},
	}
	reviewers, kinds := reviewersOf(items, samples)
	// Tallies per placement (Placements' order), tier and sample; all shown is the headline.
	ptallies := make([][][]tierTally, len(Placements))
	pfindings := make([]int, len(Placements))
	for p := range ptallies {
		ptallies[p] = make([][]tierTally, len(tiers))
	}
	all := len(Placements) - 1
	tallies := ptallies[all]
	// Per reviewer: its findings in all and up front, tallied per tier and sample.
	type reviewerTallies struct {
		findings, upFront int
		all, up           [][]tierTally
	}
	rtallies := make([]reviewerTallies, len(reviewers))
	groups := make([]map[string]map[string]*Rate, 3) // kind, addressed, author -> tier -> group
	for g := range groups {
		groups[g] = map[string]map[string]*Rate{}
	}
	for r := range rtallies {
		rtallies[r].all = make([][]tierTally, len(tiers))
		rtallies[r].up = make([][]tierTally, len(tiers))
	}
	var costs, walls []float64
	parts := make([]float64, len(CostParts))

	for si := range samples {
		s := &samples[si]
		it := items[si]
		ss := SampleScore{
			ID: s.sample.ID, Title: s.sample.PR.Title, URL: s.sample.PR.URL, CostUSD: it.cost, WallSeconds: it.wall,
			Truth: make([]TruthOutcome, len(s.truth)), Findings: make([]FindingOutcome, len(s.preds)),
		}
		costs = append(costs, it.cost)
		walls = append(walls, it.wall)
		for i, c := range costParts(it.rep, it.cost) {
			parts[i] += c
		}
		for t, tr := range s.truth {
			ss.Truth[s.tOrig[t]] = TruthOutcome{
				ID: tr.ID, Author: tr.Author, Path: tr.Path, Line: tr.Line, StartLine: tr.StartLine,
				Kind: tr.Kind, Addressed: tr.Addressed, Body: tr.Body, Source: tr.Source, Matches: map[string]string{},
			}
		}
		dup := m.duplicates(s)
		for f, p := range s.preds {
			ss.Findings[s.pOrig[f]] = FindingOutcome{
				ID: p.ID, Reviewers: p.Reviewers, Path: p.Path, Line: p.Line, StartLine: p.StartLine,
				Severity: p.Severity, Category: p.Category, Title: p.Title, Body: p.Body, Placement: p.Placement,
				Duplicate: dup[f], Matches: map[string]string{},
			}
			if dup[f] {
				sc.Duplicates++
			}
		}
		cols := allColumns(len(s.preds))
		for ti, tier := range tiers {
			match := m.assignTier(s, tier, cols)
			tl := tierTally{truth: len(s.truth), findings: len(s.preds)}
			for t, f := range match {
				tr := s.truth[t]
				hit := f >= 0
				if hit {
					tl.tp++
					ss.Truth[s.tOrig[t]].Matches[tier] = s.preds[f].ID
					ss.Findings[s.pOrig[f]].Matches[tier] = tr.ID
				}
				addRate(groups[0], tier, tr.Kind, hit)
				addRate(groups[1], tier, addressedGroup(tr.Addressed), hit)
				addRate(groups[2], tier, tr.Author, hit)
			}
			tallies[ti] = append(tallies[ti], tl)
			if tier == TierL3 {
				labelUnmatched(&ss, v.Plausible)
			}
		}
		pfindings[all] += len(s.preds)
		for p, place := range Placements[:all] {
			pc := s.columnsWhere(func(pr Prediction) bool { return pr.Placement == place })
			pfindings[p] += len(pc)
			for ti, tier := range tiers {
				ptallies[p][ti] = append(ptallies[p][ti], m.tally(s, tier, pc))
			}
		}
		for r, name := range reviewers {
			rc := s.columnsWhere(func(p Prediction) bool { return slices.Contains(p.Reviewers, name) })
			up := s.columnsWhere(func(p Prediction) bool { return p.Placement == PlacementUpFront && slices.Contains(p.Reviewers, name) })
			rt := &rtallies[r]
			rt.findings += len(rc)
			rt.upFront += len(up)
			for ti, tier := range tiers {
				rt.all[ti] = append(rt.all[ti], m.tally(s, tier, rc))
				rt.up[ti] = append(rt.up[ti], m.tally(s, tier, up))
			}
		}
		sc.TruthItems += len(s.truth)
		sc.Findings += len(s.preds)
		sc.PerSample = append(sc.PerSample, ss)
	}

	// One bootstrap for every statistic, so that all intervals come from the same resamples.
	// The all-shown placement is the headline's own tallies: it takes the headline's intervals.
	const perTier = 6
	k := len(tiers)*perTier + (len(reviewers)*2+all)*len(tiers)*3
	cis := bootstrapCIs(len(samples), opts.Bootstrap, opts.Seed, k, func(idx []int, out []float64) {
		o := 0
		for ti := range tiers {
			out[o], out[o+1], out[o+2] = microMetrics(tallies[ti], idx)
			out[o+3], out[o+4], out[o+5] = macroMetrics(tallies[ti], idx)
			o += perTier
		}
		for r := range reviewers {
			for ti := range tiers {
				out[o], out[o+1], out[o+2] = microMetrics(rtallies[r].all[ti], idx)
				o += 3
			}
		}
		for p := range all {
			for ti := range tiers {
				out[o], out[o+1], out[o+2] = microMetrics(ptallies[p][ti], idx)
				o += 3
			}
		}
		for r := range reviewers {
			for ti := range tiers {
				out[o], out[o+1], out[o+2] = microMetrics(rtallies[r].up[ti], idx)
				o += 3
			}
		}
	})

	o := 0
	// microScore is a tier of tallies ts, micro only, with the next three intervals.
	microScore := func(tier string, ts []tierTally) TierScore {
		out := tierScore(tier, m, ts)
		out.Macro = Metrics{}
		out.Micro.PrecisionCI, out.Micro.RecallCI, out.Micro.F1CI = cis[o], cis[o+1], cis[o+2]
		o += 3
		return out
	}
	for ti, tier := range tiers {
		ts := tierScore(tier, m, tallies[ti])
		ts.Micro.PrecisionCI, ts.Micro.RecallCI, ts.Micro.F1CI = cis[o], cis[o+1], cis[o+2]
		ts.Macro.PrecisionCI, ts.Macro.RecallCI, ts.Macro.F1CI = cis[o+3], cis[o+4], cis[o+5]
		o += perTier
		sc.Tiers = append(sc.Tiers, ts)
	}
	for r, name := range reviewers {
		rs := ReviewerScore{Reviewer: name, Kind: kinds[name], Findings: rtallies[r].findings, UpFrontFindings: rtallies[r].upFront}
		for ti, tier := range tiers {
			rs.Tiers = append(rs.Tiers, microScore(tier, rtallies[r].all[ti]))
		}
		sc.ByReviewer = append(sc.ByReviewer, rs)
	}
	for p, place := range Placements {
		ps := PlacementScore{Placement: place, Findings: pfindings[p], FindingsPerPR: perPR(pfindings[p], len(samples))}
		for ti, tier := range tiers {
			var ts TierScore
			if p == all {
				ts = sc.Tiers[ti]
				ts.Macro = Metrics{}
			} else {
				ts = microScore(tier, ptallies[p][ti])
			}
			ps.Tiers = append(ps.Tiers, PlacementTier{TierScore: ts, PRsCaught: prsCaught(ptallies[p][ti])})
		}
		sc.Placements = append(sc.Placements, ps)
	}
	for r := range sc.ByReviewer {
		for ti, tier := range tiers {
			sc.ByReviewer[r].UpFrontTiers = append(sc.ByReviewer[r].UpFrontTiers, microScore(tier, rtallies[r].up[ti]))
		}
	}
	for _, tier := range tiers {
		sc.ByKind[tier] = ratesOf(groups[0][tier], nil)
		sc.ByAddressed[tier] = ratesOf(groups[1][tier], []string{"addressed", "not addressed"})
		sc.ByAuthor[tier] = ratesOf(groups[2][tier], nil)
	}
	sc.Redundancy = safeRatio(sc.Duplicates, sc.Findings)
	sc.FindingsPerPR = perPR(sc.Findings, len(samples))
	sc.Cost = spreadOf(costs)
	sc.Time = spreadOf(walls)
	for i, part := range CostParts {
		sc.CostByPart = append(sc.CostByPart, CostPart{Part: part, Total: parts[i], Mean: ratioOf(parts[i], float64(len(samples))),
			Share: ratioOf(parts[i], sc.Cost.Total)})
	}
	if v != nil {
		summary := v.Summary
		sc.Judge = &summary
	}
	return sc
}

// tally matches the findings cols (canonical indices) of s alone against its truth at tier.
func (m tierMatcher) tally(s *scoredSample, tier string, cols []int) tierTally {
	tl := tierTally{truth: len(s.truth), findings: len(cols)}
	if len(cols) == 0 {
		return tl
	}
	for _, f := range m.assignTier(s, tier, cols) {
		if f >= 0 {
			tl.tp++
		}
	}
	return tl
}

// columnsWhere are the canonical indices of the findings of s that keep says to keep.
func (s *scoredSample) columnsWhere(keep func(Prediction) bool) []int {
	var cols []int
	for f, p := range s.preds {
		if keep(p) {
			cols = append(cols, f)
		}
	}
	return cols
}

// prsCaught counts the samples with truth whose truth the tallies matched at least once.
func prsCaught(ts []tierTally) Share {
	var caught, with int
	for _, t := range ts {
		if t.truth > 0 {
			with++
			if t.tp > 0 {
				caught++
			}
		}
	}
	return shareOf(caught, with)
}

// costEpsilon is a cost too small to be more than the rounding of a sum of costs.
const costEpsilon = 1e-9

// costParts splits a review's cost (total, the run's ledger for the sample) by where it went,
// in the order of CostParts, from the review's usage: the reviewers', the validator's and the
// cache warm-up's, and whatever else the total holds. A review whose usage has no breakdown
// (an older council's, or one made by hand) is unsplit.
func costParts(rep report.Report, total float64) []float64 {
	var reviewers float64
	for _, r := range rep.Reviewers {
		reviewers += r.Usage.CostUSD
	}
	validator, warmup := rep.Validation.Usage.CostUSD, rep.Usage.CacheWarmup.CostUSD
	known := reviewers + validator + warmup
	if known == 0 {
		return []float64{0, 0, 0, 0, total}
	}
	other := total - known
	if math.Abs(other) <= costEpsilon {
		other = 0
	}
	return []float64{reviewers, validator, warmup, other, 0}
}

// perPR is n per sample of samples; 0 with no samples.
func perPR(n, samples int) float64 { return ratioOf(float64(n), float64(samples)) }

// ratioOf is x/total, 0 when total is 0.
func ratioOf(x, total float64) float64 {
	if total == 0 {
		return 0
	}
	return x / total
}

// TierDescription says what a tier counts as a hit, with the knobs it was computed with.
func TierDescription(tier string, window int, threshold float64) string {
	switch tier {
	case TierL0:
		return "same file"
	case TierL1:
		return fmt.Sprintf("same file, within %d lines", window)
	case TierL2:
		return fmt.Sprintf("L1 and text similarity >= %.2f", threshold)
	case TierL3:
		return "the judge said: the same issue"
	}
	return tier
}

func tierScore(tier string, m tierMatcher, ts []tierTally) TierScore {
	out := TierScore{Tier: tier, Description: TierDescription(tier, m.window, m.threshold)}
	var truth, findings int
	for _, t := range ts {
		out.TP += t.tp
		truth += t.truth
		findings += t.findings
	}
	out.FP = findings - out.TP
	out.FN = truth - out.TP
	out.Micro.Precision, out.Micro.Recall, out.Micro.F1 = microMetrics(ts, nil)
	out.Macro.Precision, out.Macro.Recall, out.Macro.F1 = macroMetrics(ts, nil)
	return out
}

// labelUnmatched gives the findings that no truth item matched at L3 the judge's verdict on
// them, when it gave one.
func labelUnmatched(ss *SampleScore, plausible map[FindingKey]bool) {
	for i := range ss.Findings {
		f := &ss.Findings[i]
		if _, hit := f.Matches[TierL3]; hit {
			continue
		}
		ok, asked := plausible[FindingKey{Sample: ss.ID, Finding: f.ID}]
		switch {
		case !asked:
		case ok:
			f.Verdict = "plausible"
		default:
			f.Verdict = "fabricated"
		}
	}
}

// reviewersOf lists every reviewer of the scored reviews, sorted by name, with its kind: those
// the reviews list and any that only appear on findings.
func reviewersOf(items []scoredItem, samples []scoredSample) ([]string, map[string]string) {
	kinds := map[string]string{}
	for _, it := range items {
		for _, r := range it.rep.Reviewers {
			if kinds[r.Name] == "" {
				kinds[r.Name] = r.Kind
			}
		}
	}
	for _, s := range samples {
		for _, p := range s.preds {
			for _, r := range p.Reviewers {
				if _, ok := kinds[r]; !ok {
					kinds[r] = ""
				}
			}
		}
	}
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, kinds
}

func addressedGroup(addressed bool) string {
	if addressed {
		return "addressed"
	}
	return "not addressed"
}

func addRate(g map[string]map[string]*Rate, tier, group string, hit bool) {
	byGroup := g[tier]
	if byGroup == nil {
		byGroup = map[string]*Rate{}
		g[tier] = byGroup
	}
	r := byGroup[group]
	if r == nil {
		r = &Rate{Group: group}
		byGroup[group] = r
	}
	r.Total++
	if hit {
		r.Hits++
	}
}

// ratesOf lists the groups in order (sorted by name when order is nil), each with its recall.
func ratesOf(g map[string]*Rate, order []string) []Rate {
	out := []Rate{}
	if order == nil {
		for name := range g {
			order = append(order, name)
		}
		sort.Strings(order)
	}
	for _, name := range order {
		if r := g[name]; r != nil {
			r.Recall = safeRatio(r.Hits, r.Total)
			out = append(out, *r)
		}
	}
	return out
}

func spreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Total: sum, Mean: sum / float64(len(s)), Median: med, Max: s[len(s)-1]}
}
