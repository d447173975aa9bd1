package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
)

// pr is one sample of a test run: its truth items and the findings of its review.
type pr struct {
	truth    []Truth
	findings []finding.Finding
}

// runOf builds a run in which every sample was reviewed: sample i is "s<i>".
func runOf(prs ...pr) ScoreInput {
	in := ScoreInput{Dataset: "ds", Run: RunManifest{Name: "run", Model: "m"}, Reviews: map[string]report.Report{}}
	for i, p := range prs {
		id := fmt.Sprintf("s%d", i)
		in.Samples = append(in.Samples, Sample{ID: id, Truth: p.truth, PR: PR{Title: "PR " + id}})
		in.Run.Samples = append(in.Run.Samples, RunSample{ID: id, Status: StatusDone, CostUSD: float64(i + 1), WallSeconds: 10})
		in.Reviews[id] = report.Report{
			Findings:  p.findings,
			Reviewers: []report.Reviewer{{Name: "correctness", Kind: "lens"}, {Name: "security", Kind: "lens"}},
		}
	}
	return in
}

func truthAt(id, path string, line int, body string) Truth {
	return Truth{ID: id, Author: "alice", Path: path, Line: line, Side: "RIGHT", Body: body, Kind: "bug"}
}

func findingAt(id, path string, line int, title, body string) finding.Finding {
	return finding.Finding{
		ID: id, Lenses: []string{"correctness"}, Path: path, Line: line, Side: finding.Right,
		Severity: finding.Medium, Category: "bug", Title: title, Body: body, Status: finding.Reported,
	}
}

// noCI scores without resampling (the intervals are tested on their own), at the threshold
// the hand-computed cases were worked out for.
func noCI() ScoreOptions {
	o := DefaultScoreOptions()
	o.Bootstrap, o.Threshold = 0, 0.2
	return o
}

// tierCounts is each tier's TP/FP/FN and micro precision and recall.
type tierCounts struct {
	Tier       string
	TP, FP, FN int
	P, R       float64
}

func countsOf(sc Score) []tierCounts {
	var out []tierCounts
	for _, t := range sc.Tiers {
		out = append(out, tierCounts{t.Tier, t.TP, t.FP, t.FN, t.Micro.Precision, t.Micro.Recall})
	}
	return out
}

const (
	nilBody   = "`cfg` can be nil here when the config file is missing, and `cfg.Timeout` then panics."
	nilTitle  = "Nil dereference of cfg when the config file is missing"
	nilBody2  = "`cfg.Timeout` panics because `cfg` is nil when no config file exists."
	lockBody  = "The mutex is released before the map write, so two goroutines can race on `stock`."
	lockTitle = "Map write races: the mutex is unlocked before writing stock"
)

func TestScoreTiers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		prs  []pr
		want []tierCounts
	}{
		{
			name: "perfect predictions hit at every tier",
			prs: []pr{
				{truth: []Truth{truthAt("t1", "a.go", 10, nilBody)}, findings: []finding.Finding{findingAt("f1", "a.go", 10, nilTitle, nilBody2)}},
				{truth: []Truth{truthAt("t2", "b.go", 5, lockBody)}, findings: []finding.Finding{findingAt("f2", "b.go", 5, lockTitle, lockBody)}},
			},
			want: []tierCounts{{"L0", 2, 0, 0, 1, 1}, {"L1", 2, 0, 0, 1, 1}, {"L2", 2, 0, 0, 1, 1}},
		},
		{
			name: "no predictions recall nothing",
			prs:  []pr{{truth: []Truth{truthAt("t1", "a.go", 10, nilBody), truthAt("t2", "b.go", 5, lockBody)}}},
			want: []tierCounts{{"L0", 0, 0, 2, 0, 0}, {"L1", 0, 0, 2, 0, 0}, {"L2", 0, 0, 2, 0, 0}},
		},
		{
			name: "two lines off is within the window",
			prs:  []pr{{truth: []Truth{truthAt("t1", "a.go", 10, nilBody)}, findings: []finding.Finding{findingAt("f1", "a.go", 12, nilTitle, nilBody2)}}},
			want: []tierCounts{{"L0", 1, 0, 0, 1, 1}, {"L1", 1, 0, 0, 1, 1}, {"L2", 1, 0, 0, 1, 1}},
		},
		{
			name: "five lines off is the same file only",
			prs:  []pr{{truth: []Truth{truthAt("t1", "a.go", 10, nilBody)}, findings: []finding.Finding{findingAt("f1", "a.go", 15, nilTitle, nilBody2)}}},
			want: []tierCounts{{"L0", 1, 0, 0, 1, 1}, {"L1", 0, 1, 1, 0, 0}, {"L2", 0, 1, 1, 0, 0}},
		},
		{
			name: "a multi-line range is as close as its nearest line",
			prs: []pr{{
				truth:    []Truth{{ID: "t1", Path: "a.go", StartLine: 20, Line: 30, Body: nilBody, Kind: "bug"}},
				findings: []finding.Finding{findingAt("f1", "a.go", 33, nilTitle, nilBody2)},
			}},
			want: []tierCounts{{"L0", 1, 0, 0, 1, 1}, {"L1", 1, 0, 0, 1, 1}, {"L2", 1, 0, 0, 1, 1}},
		},
		{
			name: "close but about something else misses L2",
			prs:  []pr{{truth: []Truth{truthAt("t1", "a.go", 10, nilBody)}, findings: []finding.Finding{findingAt("f1", "a.go", 10, lockTitle, lockBody)}}},
			want: []tierCounts{{"L0", 1, 0, 0, 1, 1}, {"L1", 1, 0, 0, 1, 1}, {"L2", 0, 1, 1, 0, 0}},
		},
		{
			name: "another file is no hit",
			prs:  []pr{{truth: []Truth{truthAt("t1", "a.go", 10, nilBody)}, findings: []finding.Finding{findingAt("f1", "b.go", 10, nilTitle, nilBody)}}},
			want: []tierCounts{{"L0", 0, 1, 1, 0, 0}, {"L1", 0, 1, 1, 0, 0}, {"L2", 0, 1, 1, 0, 0}},
		},
		{
			name: "the other side of the diff is excluded",
			prs: []pr{{
				truth:    []Truth{{ID: "t1", Path: "a.go", Line: 10, Side: "LEFT", Body: nilBody, Kind: "bug"}},
				findings: []finding.Finding{findingAt("f1", "a.go", 10, nilTitle, nilBody2)},
			}},
			want: []tierCounts{{"L0", 0, 1, 1, 0, 0}, {"L1", 0, 1, 1, 0, 0}, {"L2", 0, 1, 1, 0, 0}},
		},
		{
			name: "an unknown side is not a mismatch",
			prs: []pr{{
				truth:    []Truth{{ID: "t1", Path: "a.go", Line: 10, Body: nilBody, Kind: "bug"}},
				findings: []finding.Finding{findingAt("f1", "a.go", 10, nilTitle, nilBody2)},
			}},
			want: []tierCounts{{"L0", 1, 0, 0, 1, 1}, {"L1", 1, 0, 0, 1, 1}, {"L2", 1, 0, 0, 1, 1}},
		},
		{
			name: "a duplicate finding counts once for recall and against precision",
			prs: []pr{{
				truth: []Truth{truthAt("t1", "a.go", 10, nilBody)},
				findings: []finding.Finding{
					findingAt("f1", "a.go", 10, nilTitle, nilBody2),
					findingAt("f2", "a.go", 11, nilTitle, nilBody2),
				},
			}},
			want: []tierCounts{{"L0", 1, 1, 0, 0.5, 1}, {"L1", 1, 1, 0, 0.5, 1}, {"L2", 1, 1, 0, 0.5, 1}},
		},
		{
			name: "a review-body truth item matches by text, in any file",
			prs: []pr{{
				truth: []Truth{
					{ID: "t1", Body: nilBody, Kind: "bug", ReviewBody: true},
					{ID: "t2", Body: "Please add a changelog entry for this.", Kind: "docs", ReviewBody: true},
				},
				findings: []finding.Finding{findingAt("f1", "z.go", 99, nilTitle, nilBody2)},
			}},
			want: []tierCounts{{"L0", 1, 0, 1, 1, 0.5}, {"L1", 1, 0, 1, 1, 0.5}, {"L2", 1, 0, 1, 1, 0.5}},
		},
		{
			name: "a file-level truth item is near any line of its file",
			prs: []pr{{
				truth: []Truth{
					{ID: "t1", Path: "a.go", Body: nilBody, Kind: "bug"},
					{ID: "t2", Path: "b.go", Body: "This whole file needs tests.", Kind: "tests"},
				},
				findings: []finding.Finding{findingAt("f1", "a.go", 400, nilTitle, nilBody2), findingAt("f2", "b.go", 7, lockTitle, lockBody)},
			}},
			want: []tierCounts{{"L0", 2, 0, 0, 1, 1}, {"L1", 2, 0, 0, 1, 1}, {"L2", 1, 1, 1, 0.5, 0.5}},
		},
		{
			name: "filtered findings are not predictions",
			prs: []pr{{
				truth: []Truth{truthAt("t1", "a.go", 10, nilBody)},
				findings: []finding.Finding{func() finding.Finding {
					f := findingAt("f1", "a.go", 10, nilTitle, nilBody2)
					f.Status = finding.Filtered
					return f
				}()},
			}},
			want: []tierCounts{{"L0", 0, 0, 1, 0, 0}, {"L1", 0, 0, 1, 0, 0}, {"L2", 0, 0, 1, 0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ScoreRun(runOf(tt.prs...), noCI(), nil)
			if d := cmp.Diff(tt.want, countsOf(got)); d != "" {
				t.Errorf("tiers (-want +got):\n%s", d)
			}
		})
	}
}

// TestScoreHungarianBeatsGreedy: f1 is the closest finding to t1, but it is also the only one
// within t2's window; matching t1 to it first, as a greedy pick of the best pair would,
// leaves t2 unmatched.
func TestScoreHungarianBeatsGreedy(t *testing.T) {
	t.Parallel()
	in := runOf(pr{
		truth: []Truth{truthAt("t1", "a.go", 10, "first"), truthAt("t2", "a.go", 14, "second")},
		findings: []finding.Finding{
			findingAt("f1", "a.go", 11, "one", "one"), // 1 from t1, 3 from t2
			findingAt("f2", "a.go", 7, "two", "two"),  // 3 from t1, 7 from t2
		},
	})
	sc := ScoreRun(in, noCI(), nil)
	l1 := sc.Tiers[1]
	if l1.TP != 2 {
		t.Fatalf("L1 TP = %d, want 2", l1.TP)
	}
	got := map[string]string{}
	for _, tr := range sc.PerSample[0].Truth {
		got[tr.ID] = tr.Matches[TierL1]
	}
	if d := cmp.Diff(map[string]string{"t1": "f2", "t2": "f1"}, got); d != "" {
		t.Errorf("L1 matches (-want +got):\n%s", d)
	}
	// The greedy pick: the best-scoring pair first.
	items, _ := in.collect()
	s := prepareItems(items)[0]
	if best, other := s.pair(0, 0).score(), s.pair(0, 1).score(); best <= other {
		t.Fatalf("the crafted case is wrong: t1-f1 scores %v, t1-f2 %v", best, other)
	}
}

func TestScoreMacro(t *testing.T) {
	t.Parallel()
	in := runOf(
		// 2 truth items, 1 finding, matched: P 1, R 0.5, F1 2/3.
		pr{truth: []Truth{truthAt("t1", "a.go", 10, nilBody), truthAt("t2", "b.go", 5, lockBody)}, findings: []finding.Finding{findingAt("f1", "a.go", 10, nilTitle, nilBody2)}},
		// 1 truth item, no finding: R 0, no precision, F1 0.
		pr{truth: []Truth{truthAt("t3", "a.go", 10, nilBody)}},
		// No truth, 2 findings: P 0, no recall, F1 0.
		pr{findings: []finding.Finding{findingAt("f2", "a.go", 10, nilTitle, nilBody2), findingAt("f3", "c.go", 1, lockTitle, lockBody)}},
	)
	sc := ScoreRun(in, noCI(), nil)
	third := 1.0 / 3
	want := TierScore{
		Tier: TierL2, Description: "L1 and text similarity >= 0.20", TP: 1, FP: 2, FN: 2,
		Micro: Metrics{Precision: third, Recall: third, F1: third},
		Macro: Metrics{Precision: 0.5, Recall: 0.25, F1: (2.0 / 3) / 3},
	}
	if d := cmp.Diff(want, sc.Tiers[2], cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("L2 (-want +got):\n%s", d)
	}
}

func TestScoreBreakdowns(t *testing.T) {
	t.Parallel()
	sec := findingAt("f2", "b.go", 5, lockTitle, lockBody)
	sec.Lenses = []string{"security", "correctness"}
	in := runOf(pr{
		truth: []Truth{
			truthAt("t1", "a.go", 10, nilBody),
			{ID: "t2", Author: "bob", Path: "b.go", Line: 5, Body: lockBody, Kind: "concurrency", Addressed: true},
			{ID: "t3", Author: "bob", Path: "c.go", Line: 1, Body: "Rename this.", Kind: "naming"},
		},
		findings: []finding.Finding{findingAt("f1", "a.go", 10, nilTitle, nilBody2), sec, findingAt("f3", "a.go", 10, nilTitle, nilBody)},
	})
	in.Samples = append(in.Samples, Sample{ID: "s9", Truth: []Truth{truthAt("t9", "a.go", 1, "x")}})
	in.Run.Samples = append(in.Run.Samples, RunSample{ID: "s9", Status: StatusFailed, Error: "clone failed"})
	in.Samples = append(in.Samples, Sample{ID: "s8"})
	in.Run.Samples = append(in.Run.Samples, RunSample{ID: "s7", Status: StatusDone})

	sc := ScoreRun(in, noCI(), nil)
	type summary struct {
		Samples, TruthItems, Findings, Duplicates int
		Redundancy, FindingsPerPR                 float64
		NotScored                                 []NotScored
		ByKind, ByAddressed, ByAuthor             []Rate
		Reviewers                                 []string
		ReviewerFindings                          []int
		ReviewerL2TP                              []int
		Cost                                      Spread
		Dup                                       []bool
	}
	got := summary{
		Samples: sc.Samples, TruthItems: sc.TruthItems, Findings: sc.Findings, Duplicates: sc.Duplicates,
		Redundancy: sc.Redundancy, FindingsPerPR: sc.FindingsPerPR, NotScored: sc.NotScored,
		ByKind: sc.ByKind[TierL2], ByAddressed: sc.ByAddressed[TierL2], ByAuthor: sc.ByAuthor[TierL2], Cost: sc.Cost,
	}
	for _, r := range sc.ByReviewer {
		got.Reviewers = append(got.Reviewers, r.Reviewer+"/"+r.Kind)
		got.ReviewerFindings = append(got.ReviewerFindings, r.Findings)
		got.ReviewerL2TP = append(got.ReviewerL2TP, r.Tiers[2].TP)
	}
	for _, f := range sc.PerSample[0].Findings {
		got.Dup = append(got.Dup, f.Duplicate)
	}
	want := summary{
		Samples: 1, TruthItems: 3, Findings: 3, Duplicates: 1, Redundancy: 1.0 / 3, FindingsPerPR: 3,
		NotScored: []NotScored{
			{ID: "s7", Reason: "in the run but not in the dataset"},
			{ID: "s8", Reason: "not in the run: run.json does not list it"},
			{ID: "s9", Reason: "the review failed: clone failed"},
		},
		ByKind:      []Rate{{"bug", 1, 1, 1}, {"concurrency", 1, 1, 1}, {"naming", 0, 1, 0}},
		ByAddressed: []Rate{{"addressed", 1, 1, 1}, {"not addressed", 1, 2, 0.5}},
		ByAuthor:    []Rate{{"alice", 1, 1, 1}, {"bob", 1, 2, 0.5}},
		// Alone, correctness's f1 and f3 both find t1 and its f2 finds t2; security has f2.
		Reviewers:        []string{"correctness/lens", "security/lens"},
		ReviewerFindings: []int{3, 1},
		ReviewerL2TP:     []int{2, 1},
		Cost:             Spread{Total: 1, Mean: 1, Median: 1, Max: 1},
		Dup:              []bool{false, false, true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("score (-want +got):\n%s", d)
	}
}

func TestScoreJudge(t *testing.T) {
	t.Parallel()
	in := runOf(pr{
		truth: []Truth{
			truthAt("t1", "a.go", 10, nilBody),
			{ID: "t2", Body: "Overall the locking looks wrong to me.", Kind: "concurrency", ReviewBody: true},
		},
		findings: []finding.Finding{
			findingAt("f1", "a.go", 40, "Missing config crashes", "Startup fails without a config."),
			findingAt("f2", "b.go", 5, lockTitle, lockBody),
			findingAt("f3", "c.go", 5, "Made up", "Something that is not there."),
		},
	})
	cands := JudgeCandidates(in)
	var keys []PairKey
	for _, c := range cands {
		keys = append(keys, c.Key)
	}
	wantKeys := []PairKey{{"s0", "t1", "f1"}, {"s0", "t2", "f1"}, {"s0", "t2", "f2"}, {"s0", "t2", "f3"}}
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Fatalf("candidates (-want +got):\n%s", d)
	}
	same := map[PairKey]bool{{"s0", "t1", "f1"}: true, {"s0", "t2", "f1"}: false, {"s0", "t2", "f2"}: true}
	var unmatched []FindingKey
	for _, u := range UnmatchedAtL3(in, noCI(), same) {
		unmatched = append(unmatched, u.Key)
	}
	if d := cmp.Diff([]FindingKey{{"s0", "f3"}}, unmatched); d != "" {
		t.Fatalf("unmatched (-want +got):\n%s", d)
	}
	v := &Verdicts{
		Same:      same,
		Plausible: map[FindingKey]bool{{"s0", "f3"}: false},
		Summary:   JudgeSummary{Model: "judge", Pairs: 4, Fabricated: 1},
	}
	sc := ScoreRun(in, noCI(), v)
	wantTiers := []tierCounts{{"L0", 1, 2, 1, 1.0 / 3, 0.5}, {"L1", 0, 3, 2, 0, 0}, {"L2", 0, 3, 2, 0, 0}, {"L3", 2, 1, 0, 2.0 / 3, 1}}
	if d := cmp.Diff(wantTiers, countsOf(sc)); d != "" {
		t.Errorf("tiers (-want +got):\n%s", d)
	}
	var verdicts []string
	for _, f := range sc.PerSample[0].Findings {
		verdicts = append(verdicts, f.ID+":"+f.Verdict)
	}
	if d := cmp.Diff([]string{"f1:", "f2:", "f3:fabricated"}, verdicts); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if sc.Judge == nil || sc.Judge.Fabricated != 1 {
		t.Errorf("judge summary = %+v, want the verdicts' summary", sc.Judge)
	}
}

// randomRun is a run of n samples with random truth and findings over a few files, lines and
// words, so that every tier has hits and misses.
func randomRun(rng *rand.Rand, n int) ScoreInput {
	words := []string{"nil", "config", "lock", "mutex", "race", "timeout", "retry", "parseConfig", "error", "ignored",
		"`cfg.Timeout`", "leak", "goroutine", "close", "channel", "index", "bounds", "overflow", "sql", "injection"}
	text := func() string {
		s := ""
		for range 3 + rng.IntN(6) {
			s += words[rng.IntN(len(words))] + " "
		}
		return s
	}
	files := []string{"a.go", "b.go", "c.go"}
	var prs []pr
	for range n {
		var p pr
		for k := range rng.IntN(6) {
			tr := Truth{ID: fmt.Sprintf("t%d", k), Author: []string{"ann", "bo"}[rng.IntN(2)], Path: files[rng.IntN(3)],
				Line: 1 + rng.IntN(30), Body: text(), Kind: Kinds[rng.IntN(4)], Addressed: rng.IntN(2) == 0}
			if rng.IntN(8) == 0 {
				tr = Truth{ID: tr.ID, Author: tr.Author, Body: tr.Body, Kind: tr.Kind, ReviewBody: true}
			}
			p.truth = append(p.truth, tr)
		}
		for k := range rng.IntN(7) {
			f := findingAt(fmt.Sprintf("f%d", k), files[rng.IntN(3)], 1+rng.IntN(30), text(), text())
			if rng.IntN(3) == 0 {
				f.Lenses = []string{"security"}
			}
			p.findings = append(p.findings, f)
		}
		prs = append(prs, p)
	}
	return runOf(prs...)
}

// shuffled is in with its samples, run samples, truth items and findings in another order.
func shuffled(rng *rand.Rand, in ScoreInput) ScoreInput {
	out := in
	out.Samples = nil
	for _, s := range in.Samples {
		s.Truth = append([]Truth(nil), s.Truth...)
		rng.Shuffle(len(s.Truth), func(i, j int) { s.Truth[i], s.Truth[j] = s.Truth[j], s.Truth[i] })
		out.Samples = append(out.Samples, s)
	}
	rng.Shuffle(len(out.Samples), func(i, j int) { out.Samples[i], out.Samples[j] = out.Samples[j], out.Samples[i] })
	out.Run.Samples = append([]RunSample(nil), in.Run.Samples...)
	rng.Shuffle(len(out.Run.Samples), func(i, j int) {
		out.Run.Samples[i], out.Run.Samples[j] = out.Run.Samples[j], out.Run.Samples[i]
	})
	out.Reviews = map[string]report.Report{}
	for id, rep := range in.Reviews {
		rep.Findings = append([]finding.Finding(nil), rep.Findings...)
		rng.Shuffle(len(rep.Findings), func(i, j int) { rep.Findings[i], rep.Findings[j] = rep.Findings[j], rep.Findings[i] })
		out.Reviews[id] = rep
	}
	return out
}

// TestScoreProperties: on random runs every metric and interval is in [0, 1], and reordering
// samples, truth items and findings changes nothing but the order of the drill-down lists.
func TestScoreProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	opts := DefaultScoreOptions()
	opts.Bootstrap = 50
	// Which of two repeats is the duplicate follows the findings' order; their count does not.
	opt := cmp.Options{
		cmpopts.SortSlices(func(a, b TruthOutcome) bool { return a.ID < b.ID }),
		cmpopts.SortSlices(func(a, b FindingOutcome) bool { return a.ID < b.ID }),
		cmpopts.IgnoreFields(FindingOutcome{}, "Duplicate"),
	}
	for iter := range 40 {
		in := randomRun(rng, 1+rng.IntN(12))
		sc := ScoreRun(in, opts, nil)
		check := func(what string, v float64) {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("run %d: %s = %v, want it in [0, 1]", iter, what, v)
			}
		}
		checkMetrics := func(what string, m Metrics) {
			for name, v := range map[string]float64{"precision": m.Precision, "recall": m.Recall, "f1": m.F1,
				"precision low": m.PrecisionCI[0], "precision high": m.PrecisionCI[1], "recall low": m.RecallCI[0],
				"recall high": m.RecallCI[1], "f1 low": m.F1CI[0], "f1 high": m.F1CI[1]} {
				check(what+" "+name, v)
			}
		}
		for _, ts := range sc.Tiers {
			checkMetrics(ts.Tier+" micro", ts.Micro)
			checkMetrics(ts.Tier+" macro", ts.Macro)
		}
		for _, r := range sc.ByReviewer {
			for _, ts := range r.Tiers {
				checkMetrics(r.Reviewer+" "+ts.Tier, ts.Micro)
			}
		}
		check("redundancy", sc.Redundancy)
		for _, byTier := range []map[string][]Rate{sc.ByKind, sc.ByAddressed, sc.ByAuthor} {
			for tier, rs := range byTier {
				for _, r := range rs {
					check(tier+" "+r.Group, r.Recall)
				}
			}
		}

		again := ScoreRun(shuffled(rng, in), opts, nil)
		if d := cmp.Diff(sc, again, opt); d != "" {
			t.Fatalf("run %d: reordering the input changed the score (-first +reordered):\n%s", iter, d)
		}
	}
}

func TestScoreBootstrap(t *testing.T) {
	t.Parallel()
	in := randomRun(rand.New(rand.NewPCG(3, 3)), 60)
	opts := DefaultScoreOptions()
	opts.Bootstrap = 400
	a, b := ScoreRun(in, opts, nil), ScoreRun(in, opts, nil)
	if d := cmp.Diff(a.Tiers, b.Tiers); d != "" {
		t.Fatalf("the same seed gave other intervals (-first +second):\n%s", d)
	}
	opts.Seed = 2
	if c := ScoreRun(in, opts, nil); cmp.Equal(a.Tiers, c.Tiers) {
		t.Errorf("another seed gave the same intervals")
	}
	within := func(what string, v float64, ci [2]float64) {
		if ci[0] > v || v > ci[1] || ci[0] == ci[1] {
			t.Errorf("%s = %v, interval %v: want a real interval around it", what, v, ci)
		}
	}
	for _, ts := range a.Tiers {
		within(ts.Tier+" micro precision", ts.Micro.Precision, ts.Micro.PrecisionCI)
		within(ts.Tier+" micro recall", ts.Micro.Recall, ts.Micro.RecallCI)
		within(ts.Tier+" micro F1", ts.Micro.F1, ts.Micro.F1CI)
		within(ts.Tier+" macro precision", ts.Macro.Precision, ts.Macro.PrecisionCI)
		within(ts.Tier+" macro recall", ts.Macro.Recall, ts.Macro.RecallCI)
		within(ts.Tier+" macro F1", ts.Macro.F1, ts.Macro.F1CI)
	}
}

func TestPredictions(t *testing.T) {
	t.Parallel()
	rep := report.Report{Findings: []finding.Finding{
		{ID: "f1", Lenses: []string{"security", "correctness"}, Path: "a.go", Line: 9, StartLine: 7, Side: finding.Left,
			Severity: finding.High, Category: "security", Title: "T", Body: "B", Quote: "Q", Status: finding.Reported},
		{ID: "f2", Path: "b.go", Status: finding.Filtered, FilterReason: "below the floor"},
		{ID: "f3", Lenses: []string{"x"}, Path: "c.go", Side: finding.Right, Status: finding.OtherNote},
		{ID: "f4", Lenses: []string{"x"}, Path: "d.go", Side: finding.Right, Status: finding.Minor},
	}}
	want := []Prediction{
		{ID: "f1", Reviewers: []string{"security", "correctness"}, Path: "a.go", Line: 9, StartLine: 7, Side: "LEFT",
			Severity: "high", Category: "security", Title: "T", Body: "B", Quote: "Q", Placement: PlacementUpFront},
		{ID: "f3", Reviewers: []string{"x"}, Path: "c.go", Side: "RIGHT", Placement: PlacementUpFront},
		{ID: "f4", Reviewers: []string{"x"}, Path: "d.go", Side: "RIGHT", Placement: PlacementCollapsed},
	}
	if d := cmp.Diff(want, Predictions(rep)); d != "" {
		t.Errorf("predictions (-want +got):\n%s", d)
	}
}

// A pair the judge failed on is decided by L2's rule at L3: the error is neither a hit nor a
// miss the deterministic tiers would not have had.
func TestScoreJudgeErrorFallsBackToL2(t *testing.T) {
	t.Parallel()
	in := runOf(pr{
		truth:    []Truth{truthAt("t1", "a.go", 10, nilBody)},
		findings: []finding.Finding{findingAt("f1", "a.go", 10, nilTitle, nilBody2)},
	})
	v := &Verdicts{Same: map[PairKey]bool{}, Summary: JudgeSummary{Pairs: 1, Errors: 1}}
	got := countsOf(ScoreRun(in, noCI(), v))
	if l2, l3 := got[2], got[3]; l2.TP != 1 || l3.TP != 1 {
		t.Errorf("L2 %+v, L3 %+v: the judge's error must leave L3 as L2 decided", l2, l3)
	}
	v.Same[PairKey{"s0", "t1", "f1"}] = false
	if l3 := countsOf(ScoreRun(in, noCI(), v))[3]; l3.TP != 0 {
		t.Errorf("L3 %+v: the judge's no must win over L2", l3)
	}
}

// placementRun: s0's t1 is raised up front (f1) and again, a line off, in the minor notes
// (f2), whose f3 also raises t2; s1's only truth item is raised by a minor note (f4); s2's
// finding (f5, up front) is in another file than its truth item.
func placementRun() ScoreInput {
	minor := func(f finding.Finding, lens string) finding.Finding {
		f.Status, f.Lenses = finding.Minor, []string{lens}
		return f
	}
	return runOf(
		pr{
			truth: []Truth{truthAt("t1", "a.go", 10, nilBody), truthAt("t2", "b.go", 5, lockBody)},
			findings: []finding.Finding{
				findingAt("f1", "a.go", 10, nilTitle, nilBody2),
				minor(findingAt("f2", "a.go", 11, nilTitle, nilBody2), "security"),
				minor(findingAt("f3", "b.go", 5, lockTitle, lockBody), "correctness"),
			},
		},
		pr{truth: []Truth{truthAt("t3", "c.go", 1, lockBody)}, findings: []finding.Finding{minor(findingAt("f4", "c.go", 1, lockTitle, lockBody), "security")}},
		pr{truth: []Truth{truthAt("t4", "d.go", 1, nilBody)}, findings: []finding.Finding{findingAt("f5", "e.go", 1, nilTitle, nilBody)}},
	)
}

// TestScorePlacements: each placement's findings are matched alone. Up front, only f1 is a
// prediction; collapsed, f2 is free to match t1 (in all shown f1, the closer, takes it), so a
// split of the all-shown matching by placement would count 2 collapsed hits, not 3.
func TestScorePlacements(t *testing.T) {
	t.Parallel()
	sc := ScoreRun(placementRun(), noCI(), nil)
	type row struct {
		Placement      string
		Findings       int
		PerPR          float64
		TP, FP, FN     int
		P, R           float64
		Caught, OfPRs  int
		CaughtShare    float64
		MacroPrecision float64
	}
	var got []row
	for _, p := range sc.Placements {
		l1 := p.Tiers[1]
		if l1.Tier != TierL1 {
			t.Fatalf("%s: second tier is %s", p.Placement, l1.Tier)
		}
		got = append(got, row{p.Placement, p.Findings, p.FindingsPerPR, l1.TP, l1.FP, l1.FN, l1.Micro.Precision, l1.Micro.Recall,
			l1.PRsCaught.N, l1.PRsCaught.Of, l1.PRsCaught.Share, l1.Macro.Precision})
	}
	want := []row{
		{PlacementUpFront, 2, 2.0 / 3, 1, 1, 3, 0.5, 0.25, 1, 3, 1.0 / 3, 0},
		{PlacementCollapsed, 3, 1, 3, 0, 1, 1, 0.75, 2, 3, 2.0 / 3, 0},
		{PlacementAllShown, 5, 5.0 / 3, 3, 2, 1, 0.6, 0.75, 2, 3, 2.0 / 3, 0},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("placements at L1 (-want +got):\n%s", d)
	}
	// All shown is the headline, tier for tier.
	for i, ts := range sc.Tiers {
		all := sc.Placements[2].Tiers[i].TierScore
		ts.Macro = Metrics{}
		if d := cmp.Diff(ts, all); d != "" {
			t.Errorf("%s: all shown differs from the headline (-headline +all shown):\n%s", ts.Tier, d)
		}
	}
	var places []string
	for _, f := range sc.PerSample[0].Findings {
		places = append(places, f.ID+":"+f.Placement)
	}
	if d := cmp.Diff([]string{"f1:up_front", "f2:collapsed", "f3:collapsed"}, places); d != "" {
		t.Errorf("drill-down placements (-want +got):\n%s", d)
	}
	// Per reviewer, up front: correctness has f1 and f5 (f3 is minor), security nothing.
	type rv struct {
		Name                   string
		Findings, UpFront, UTP int
		UpFrontP               float64
	}
	var rvs []rv
	for _, r := range sc.ByReviewer {
		rvs = append(rvs, rv{r.Reviewer, r.Findings, r.UpFrontFindings, r.UpFrontTiers[1].TP, r.UpFrontTiers[1].Micro.Precision})
	}
	if d := cmp.Diff([]rv{{"correctness", 3, 2, 1, 0.5}, {"security", 2, 0, 0, 0}}, rvs); d != "" {
		t.Errorf("reviewers (-want +got):\n%s", d)
	}
}

// TestScorePlacementIntervals: every placement's intervals come from the bootstrap, and all
// shown's are the headline's.
func TestScorePlacementIntervals(t *testing.T) {
	t.Parallel()
	in := randomRun(rand.New(rand.NewPCG(5, 5)), 40)
	for id, rep := range in.Reviews {
		for i := range rep.Findings {
			if i%2 == 1 {
				rep.Findings[i].Status = finding.Minor
			}
		}
		in.Reviews[id] = rep
	}
	opts := DefaultScoreOptions()
	opts.Bootstrap = 200
	sc := ScoreRun(in, opts, nil)
	for _, p := range sc.Placements {
		for i, ts := range p.Tiers {
			m := ts.Micro
			if m.RecallCI[0] > m.Recall || m.Recall > m.RecallCI[1] || m.RecallCI[0] == m.RecallCI[1] {
				t.Errorf("%s %s: recall %v, interval %v: want a real interval around it", p.Placement, ts.Tier, m.Recall, m.RecallCI)
			}
			if p.Placement == PlacementAllShown && m != sc.Tiers[i].Micro {
				t.Errorf("%s: all shown's micro %+v is not the headline's %+v", ts.Tier, m, sc.Tiers[i].Micro)
			}
		}
	}
}

func TestScoreCostByPart(t *testing.T) {
	t.Parallel()
	in := runOf(pr{}, pr{}, pr{})
	rv := func(costs ...float64) []report.Reviewer {
		var out []report.Reviewer
		for _, c := range costs {
			out = append(out, report.Reviewer{Name: "r", Usage: provider.Usage{CostUSD: c}})
		}
		return out
	}
	// s0: reviewers, validator and warm-up make the whole cost; s1's total holds $0.10 more
	// than its reviewers; s2's usage has no breakdown.
	s0 := report.Report{Reviewers: rv(0.3, 0.2), Validation: report.Validation{Usage: provider.Usage{CostUSD: 0.1}}}
	s0.Usage.CacheWarmup.CostUSD = 0.05
	in.Reviews["s0"], in.Reviews["s1"], in.Reviews["s2"] = s0, report.Report{Reviewers: rv(0.4)}, report.Report{}
	for i, c := range []float64{0.65, 0.5, 0.25} {
		in.Run.Samples[i].CostUSD = c
	}
	sc := ScoreRun(in, noCI(), nil)
	want := []CostPart{
		{Part: CostReviewers, Total: 0.9, Mean: 0.3, Share: 0.9 / 1.4},
		{Part: CostValidator, Total: 0.1, Mean: 0.1 / 3, Share: 0.1 / 1.4},
		{Part: CostCacheWarmup, Total: 0.05, Mean: 0.05 / 3, Share: 0.05 / 1.4},
		{Part: CostOther, Total: 0.1, Mean: 0.1 / 3, Share: 0.1 / 1.4},
		{Part: CostUnsplit, Total: 0.25, Mean: 0.25 / 3, Share: 0.25 / 1.4},
	}
	if d := cmp.Diff(want, sc.CostByPart, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("cost by part (-want +got):\n%s", d)
	}
	if sc.Cost.Total-1.4 > 1e-12 || 1.4-sc.Cost.Total > 1e-12 {
		t.Errorf("cost total %v, want 1.4: the parts must add up to it", sc.Cost.Total)
	}
}
