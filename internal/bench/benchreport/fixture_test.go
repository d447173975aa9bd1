package benchreport

import (
	"github.com/council-dev/council/internal/bench"
)

// tierScore builds a tier with its CIs a little either side of each value.
func tierScore(tier, desc string, tp, fp, fn int, p, r float64) bench.TierScore {
	f1 := 0.0
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	ci := func(v, w float64) [2]float64 { return [2]float64{max(0, v-w), min(1, v+w)} }
	return bench.TierScore{Tier: tier, Description: desc, TP: tp, FP: fp, FN: fn,
		Micro: bench.Metrics{Precision: p, Recall: r, F1: f1, PrecisionCI: ci(p, 0.15), RecallCI: ci(r, 0.18), F1CI: ci(f1, 0.12)},
		Macro: bench.Metrics{Precision: p - 0.05, Recall: r + 0.04, F1: f1 - 0.02, PrecisionCI: ci(p-0.05, 0.2), RecallCI: ci(r+0.04, 0.2), F1CI: ci(f1-0.02, 0.17)},
	}
}

// ptier is a placement's tier, micro only, with caught of the 2 samples caught.
func ptier(tier, desc string, tp, fp, fn int, p, r float64, caught int) bench.PlacementTier {
	ts := tierScore(tier, desc, tp, fp, fn, p, r)
	ts.Macro = bench.Metrics{}
	return bench.PlacementTier{TierScore: ts, PRsCaught: share(caught, 2)}
}

func share(n, of int) bench.Share {
	sh := bench.Share{N: n, Of: of}
	if of > 0 {
		sh.Share = float64(n) / float64(of)
	}
	return sh
}

// labelCounts are the labels of findings shown findings, the asking ones of them useful
// besides the valid ones; the unlabelled are the rest.
func labelCounts(findings, valid, minor, wrong, useful int) bench.LabelCounts {
	labelled := valid + minor + wrong
	return bench.LabelCounts{Findings: findings, Labelled: labelled, Valid: valid, Minor: minor, Wrong: wrong,
		JudgedValid: share(valid, labelled), Useful: share(useful, labelled)}
}

const (
	descL0 = "same file"
	descL1 = "same file, line distance <= 3"
	descL2 = "L1 and text similarity >= 0.3"
	descL3 = "the judge said: the same underlying issue"
)

// truthItems are the two samples' human comments, shared by both runs.
func truthItems(matches ...map[string]string) []bench.TruthOutcome {
	items := []bench.TruthOutcome{
		{ID: "c1", Author: "alice", Path: "store/store.go", Line: 52, StartLine: 50, Kind: "concurrency",
			Body: "This reads the stock under one lock and writes it under another:\ntwo reservations can both pass the check."},
		{ID: "c2", Author: "bob", Path: "api/handler.go", Line: 40, Kind: "error-handling", Addressed: true,
			Body: "The error from `strconv.Atoi` is dropped; `n=-5` adds stock."},
		{ID: "c3", Author: "alice", Kind: "tests", Body: "Please add a test for concurrent reservations."},
	}
	for i := range items {
		items[i].Matches = matches[i]
	}
	return items
}

func sonnet() Run {
	return Run{Name: "sonnet", Score: bench.Score{
		ScoreVersion: bench.ScoreVersion, Run: "sonnet", Truth: "bench/acme", Model: "claude-sonnet-4-5",
		Options: bench.ScoreOptions{LineWindow: 3, Threshold: 0.3, Bootstrap: 1000, Seed: 1, Judge: "anthropic:claude-haiku-4-5"},
		Tiers: []bench.TierScore{
			tierScore("L0", descL0, 4, 3, 1, 0.57, 0.8),
			tierScore("L1", descL1, 3, 4, 2, 0.43, 0.6),
			tierScore("L2", descL2, 2, 5, 3, 0.29, 0.4),
			tierScore("L3", descL3, 3, 4, 2, 0.43, 0.6),
		},
		Samples:    2,
		NotScored:  []bench.NotScored{{ID: "acme-svc-9", Reason: "review failed: rate limited after 3 retries"}},
		TruthItems: 5,
		Findings:   7,
		ByKind: map[string][]bench.Rate{
			"L0": {{Group: "concurrency", Hits: 2, Total: 2, Recall: 1}, {Group: "error-handling", Hits: 1, Total: 2, Recall: 0.5}, {Group: "tests", Hits: 1, Total: 1, Recall: 1}},
			"L1": {{Group: "concurrency", Hits: 2, Total: 2, Recall: 1}, {Group: "error-handling", Hits: 1, Total: 2, Recall: 0.5}, {Group: "tests", Hits: 0, Total: 1, Recall: 0}},
			"L2": {{Group: "concurrency", Hits: 1, Total: 2, Recall: 0.5}, {Group: "error-handling", Hits: 1, Total: 2, Recall: 0.5}, {Group: "tests", Hits: 0, Total: 1, Recall: 0}},
			"L3": {{Group: "concurrency", Hits: 2, Total: 2, Recall: 1}, {Group: "error-handling", Hits: 1, Total: 2, Recall: 0.5}, {Group: "tests", Hits: 0, Total: 1, Recall: 0}},
		},
		ByAddressed: map[string][]bench.Rate{
			"L0": {{Group: "addressed", Hits: 2, Total: 2, Recall: 1}, {Group: "not addressed", Hits: 2, Total: 3, Recall: 0.67}},
			"L1": {{Group: "addressed", Hits: 2, Total: 2, Recall: 1}, {Group: "not addressed", Hits: 1, Total: 3, Recall: 0.33}},
			"L2": {{Group: "addressed", Hits: 1, Total: 2, Recall: 0.5}, {Group: "not addressed", Hits: 1, Total: 3, Recall: 0.33}},
			"L3": {{Group: "addressed", Hits: 2, Total: 2, Recall: 1}, {Group: "not addressed", Hits: 1, Total: 3, Recall: 0.33}},
		},
		ByAuthor: map[string][]bench.Rate{
			"L0": {{Group: "alice", Hits: 3, Total: 3, Recall: 1}, {Group: "bob", Hits: 1, Total: 2, Recall: 0.5}},
			"L1": {{Group: "alice", Hits: 2, Total: 3, Recall: 0.67}, {Group: "bob", Hits: 1, Total: 2, Recall: 0.5}},
			"L2": {{Group: "alice", Hits: 1, Total: 3, Recall: 0.33}, {Group: "bob", Hits: 1, Total: 2, Recall: 0.5}},
			"L3": {{Group: "alice", Hits: 2, Total: 3, Recall: 0.67}, {Group: "bob", Hits: 1, Total: 2, Recall: 0.5}},
		},
		ByReviewer: []bench.ReviewerScore{
			{Reviewer: "correctness", Kind: "lens", Findings: 4, Tiers: []bench.TierScore{
				tierScore("L0", "", 3, 1, 2, 0.75, 0.6), tierScore("L1", "", 2, 2, 3, 0.5, 0.4),
				tierScore("L2", "", 2, 2, 3, 0.5, 0.4), tierScore("L3", "", 2, 2, 3, 0.5, 0.4)},
				UpFrontFindings: 3, UpFrontTiers: []bench.TierScore{
					tierScore("L0", "", 2, 1, 3, 0.67, 0.4), tierScore("L1", "", 2, 1, 3, 0.67, 0.4),
					tierScore("L2", "", 1, 2, 4, 0.33, 0.2), tierScore("L3", "", 2, 1, 3, 0.67, 0.4)}},
			{Reviewer: "security", Kind: "lens", Findings: 2, Tiers: []bench.TierScore{
				tierScore("L0", "", 1, 1, 4, 0.5, 0.2), tierScore("L1", "", 0, 2, 5, 0, 0),
				tierScore("L2", "", 0, 2, 5, 0, 0), tierScore("L3", "", 1, 1, 4, 0.5, 0.2)},
				UpFrontFindings: 1, UpFrontTiers: []bench.TierScore{
					tierScore("L0", "", 1, 0, 4, 1, 0.2), tierScore("L1", "", 0, 1, 5, 0, 0),
					tierScore("L2", "", 0, 1, 5, 0, 0), tierScore("L3", "", 1, 0, 4, 1, 0.2)}},
			{Reviewer: "alice", Kind: "persona", Findings: 1, Tiers: []bench.TierScore{
				tierScore("L0", "", 1, 0, 4, 1, 0.2), tierScore("L1", "", 1, 0, 4, 1, 0.2),
				tierScore("L2", "", 0, 1, 5, 0, 0), tierScore("L3", "", 1, 0, 4, 1, 0.2)},
				UpFrontTiers: []bench.TierScore{
					tierScore("L0", "", 0, 0, 5, 0, 0), tierScore("L1", "", 0, 0, 5, 0, 0),
					tierScore("L2", "", 0, 0, 5, 0, 0), tierScore("L3", "", 0, 0, 5, 0, 0)}},
		},
		Redundancy: 0.14, Duplicates: 1, FindingsPerPR: 3.5,
		Cost: bench.Spread{Total: 0.84, Mean: 0.42, Median: 0.42, Max: 0.51},
		Time: bench.Spread{Total: 151.2, Mean: 75.6, Median: 75.6, Max: 88.3},
		CostByPart: []bench.CostPart{
			{Part: bench.CostReviewers, Total: 0.5, Mean: 0.25, Share: 0.5 / 0.84},
			{Part: bench.CostValidator, Total: 0.22, Mean: 0.11, Share: 0.22 / 0.84},
			{Part: bench.CostCacheWarmup, Total: 0.12, Mean: 0.06, Share: 0.12 / 0.84},
			{Part: bench.CostOther}, {Part: bench.CostUnsplit},
		},
		Judge: &bench.JudgeSummary{Model: "anthropic:claude-haiku-4-5", Pairs: 9, Cached: 2, Errors: 1, Plausible: 2, Fabricated: 1, CostUSD: 0.0312},
		Placements: []bench.PlacementScore{
			{Placement: bench.PlacementUpFront, Findings: 4, FindingsPerPR: 2, Tiers: []bench.PlacementTier{
				ptier("L0", descL0, 3, 1, 2, 0.75, 0.6, 2), ptier("L1", descL1, 2, 2, 3, 0.5, 0.4, 1),
				ptier("L2", descL2, 1, 3, 4, 0.25, 0.2, 1), ptier("L3", descL3, 2, 2, 3, 0.5, 0.4, 2)}},
			{Placement: bench.PlacementCollapsed, Findings: 3, FindingsPerPR: 1.5, Tiers: []bench.PlacementTier{
				ptier("L0", descL0, 1, 2, 4, 0.33, 0.2, 1), ptier("L1", descL1, 1, 2, 4, 0.33, 0.2, 1),
				ptier("L2", descL2, 1, 2, 4, 0.33, 0.2, 1), ptier("L3", descL3, 1, 2, 4, 0.33, 0.2, 1)}},
			{Placement: bench.PlacementAllShown, Findings: 7, FindingsPerPR: 3.5, Tiers: []bench.PlacementTier{
				ptier("L0", descL0, 4, 3, 1, 0.57, 0.8, 2), ptier("L1", descL1, 3, 4, 2, 0.43, 0.6, 2),
				ptier("L2", descL2, 2, 5, 3, 0.29, 0.4, 1), ptier("L3", descL3, 3, 4, 2, 0.43, 0.6, 2)}},
		},
		Labels: &bench.LabelScore{File: "labels.jsonl", Labels: 8, Counted: 6, NotInRun: 2,
			Unlabelled: []bench.FindingRef{{Sample: "acme-svc-2", Finding: "g3", Placement: bench.PlacementUpFront}},
			Placements: []bench.LabelPlacement{
				{Placement: bench.PlacementUpFront, LabelCounts: labelCounts(4, 2, 1, 0, 3), AsksCaught: share(2, 5), PRsAsksCaught: share(1, 2)},
				{Placement: bench.PlacementCollapsed, LabelCounts: labelCounts(3, 0, 2, 1, 1), AsksCaught: share(1, 5), PRsAsksCaught: share(1, 2)},
				{Placement: bench.PlacementAllShown, LabelCounts: labelCounts(7, 2, 3, 1, 4), AsksCaught: share(3, 5), PRsAsksCaught: share(2, 2)},
			},
			ByReviewer: []bench.ReviewerLabels{
				{Reviewer: "alice", AllShown: labelCounts(1, 0, 1, 0, 0)},
				{Reviewer: "correctness", UpFront: labelCounts(3, 2, 0, 0, 2), AllShown: labelCounts(4, 2, 1, 0, 3)},
				{Reviewer: "security", UpFront: labelCounts(1, 0, 1, 0, 1), AllShown: labelCounts(2, 0, 1, 1, 1)},
			}},
		PerSample: []bench.SampleScore{
			{ID: "acme-svc-1", Title: "Reserve stock atomically", URL: "https://github.com/acme/svc/pull/1", CostUSD: 0.51, WallSeconds: 88.3,
				Truth: truthItems(
					map[string]string{"L0": "f1", "L1": "f1", "L2": "f1", "L3": "f1"},
					map[string]string{"L0": "f2", "L1": "f2", "L3": "f2"},
					map[string]string{"L0": "f3"},
				),
				Findings: []bench.FindingOutcome{
					{ID: "f1", Placement: bench.PlacementUpFront, Reviewers: []string{"correctness", "alice"}, Path: "store/store.go", Line: 51, Severity: "high", Category: "concurrency",
						Title: "Reserve can oversell under concurrency", Body: "Hold `s.mu` for the whole of `Reserve`.",
						Matches: map[string]string{"L0": "c1", "L1": "c1", "L2": "c1", "L3": "c1"}},
					{ID: "f2", Placement: bench.PlacementUpFront, Reviewers: []string{"correctness"}, Path: "api/handler.go", Line: 41, Severity: "medium", Category: "error-handling",
						Title: "Parse error of n ignored", Body: "A non-numeric n becomes 0.",
						Matches: map[string]string{"L0": "c2", "L1": "c2", "L3": "c2"}},
					{ID: "f3", Placement: bench.PlacementUpFront, Reviewers: []string{"security"}, Path: "api/handler.go", Line: 50, Severity: "critical", Category: "security",
						Title: "Path traversal in /export", Body: "`name=../../etc/passwd` escapes the export directory.", Verdict: "plausible",
						Matches: map[string]string{"L0": "c3"}},
					{ID: "f4", Placement: bench.PlacementCollapsed, Reviewers: []string{"correctness"}, Path: "api/handler.go", Line: 44, Severity: "low", Category: "other",
						Title: "Consider logging reservations", Body: "It might be useful to log each reservation.", Verdict: "fabricated",
						Matches: map[string]string{}},
				}},
			{ID: "acme-svc-2", Title: "Cache the price list", CostUSD: 0.33, WallSeconds: 62.9,
				Truth: truthItems(
					map[string]string{"L0": "g1", "L1": "g1", "L3": "g1"},
					map[string]string{},
					map[string]string{},
				)[:2],
				Findings: []bench.FindingOutcome{
					{ID: "g1", Placement: bench.PlacementUpFront, Reviewers: []string{"correctness"}, Path: "store/store.go", Line: 53, Severity: "high", Category: "concurrency",
						Title: "Data race on the cache map", Body: "The cache is written without the lock.",
						Matches: map[string]string{"L0": "c1", "L1": "c1", "L3": "c1"}},
					{ID: "g2", Placement: bench.PlacementCollapsed, Reviewers: []string{"security"}, Path: "store/cache.go", Line: 12, Severity: "medium", Category: "security",
						Title: "Cache key includes the user's token", Body: "Tokens end up in memory dumps.", Duplicate: true,
						Matches: map[string]string{}},
					{ID: "g3", Placement: bench.PlacementCollapsed, Reviewers: []string{"correctness"}, Path: "store/cache.go", Line: 30, StartLine: 28, Severity: "low", Category: "performance",
						Title: "Unbounded cache", Body: "Add an eviction policy.",
						Matches: map[string]string{}},
				}},
		},
	}}
}

func haiku() Run {
	return Run{Name: "haiku", Score: bench.Score{
		ScoreVersion: bench.ScoreVersion, Run: "haiku", Truth: "bench/acme", Model: "claude-haiku-4-5",
		Options: bench.ScoreOptions{LineWindow: 3, Threshold: 0.3, Bootstrap: 1000, Seed: 1},
		Tiers: []bench.TierScore{
			tierScore("L0", descL0, 3, 2, 2, 0.6, 0.6),
			tierScore("L1", descL1, 2, 3, 3, 0.4, 0.4),
			tierScore("L2", descL2, 1, 4, 4, 0.2, 0.2),
		},
		Samples:    2,
		TruthItems: 5,
		Findings:   5,
		ByKind: map[string][]bench.Rate{
			"L0": {{Group: "concurrency", Hits: 1, Total: 2, Recall: 0.5}, {Group: "error-handling", Hits: 2, Total: 2, Recall: 1}, {Group: "tests", Hits: 0, Total: 1, Recall: 0}},
			"L1": {{Group: "concurrency", Hits: 1, Total: 2, Recall: 0.5}, {Group: "error-handling", Hits: 1, Total: 2, Recall: 0.5}, {Group: "tests", Hits: 0, Total: 1, Recall: 0}},
			"L2": {{Group: "concurrency", Hits: 0, Total: 2, Recall: 0}, {Group: "error-handling", Hits: 1, Total: 2, Recall: 0.5}, {Group: "tests", Hits: 0, Total: 1, Recall: 0}},
		},
		ByAddressed: map[string][]bench.Rate{
			"L0": {{Group: "addressed", Hits: 2, Total: 2, Recall: 1}, {Group: "not addressed", Hits: 1, Total: 3, Recall: 0.33}},
			"L1": {{Group: "addressed", Hits: 1, Total: 2, Recall: 0.5}, {Group: "not addressed", Hits: 1, Total: 3, Recall: 0.33}},
			"L2": {{Group: "addressed", Hits: 1, Total: 2, Recall: 0.5}, {Group: "not addressed", Hits: 0, Total: 3, Recall: 0}},
		},
		ByAuthor: map[string][]bench.Rate{
			"L0": {{Group: "alice", Hits: 1, Total: 3, Recall: 0.33}, {Group: "bob", Hits: 2, Total: 2, Recall: 1}},
			"L1": {{Group: "alice", Hits: 1, Total: 3, Recall: 0.33}, {Group: "bob", Hits: 1, Total: 2, Recall: 0.5}},
			"L2": {{Group: "alice", Hits: 0, Total: 3, Recall: 0}, {Group: "bob", Hits: 1, Total: 2, Recall: 0.5}},
		},
		ByReviewer: []bench.ReviewerScore{
			{Reviewer: "correctness", Kind: "lens", Findings: 3, Tiers: []bench.TierScore{
				tierScore("L0", "", 2, 1, 3, 0.67, 0.4), tierScore("L1", "", 2, 1, 3, 0.67, 0.4), tierScore("L2", "", 1, 2, 4, 0.33, 0.2)}},
			{Reviewer: "security", Kind: "lens", Findings: 2, Tiers: []bench.TierScore{
				tierScore("L0", "", 1, 1, 4, 0.5, 0.2), tierScore("L1", "", 0, 2, 5, 0, 0), tierScore("L2", "", 0, 2, 5, 0, 0)}},
		},
		Redundancy: 0, FindingsPerPR: 2.5,
		Cost: bench.Spread{Total: 0.12, Mean: 0.06, Median: 0.06, Max: 0.08},
		Time: bench.Spread{Total: 61.8, Mean: 30.9, Median: 30.9, Max: 35.2},
		PerSample: []bench.SampleScore{
			{ID: "acme-svc-1", Title: "Reserve stock atomically", URL: "https://github.com/acme/svc/pull/1", CostUSD: 0.08, WallSeconds: 35.2,
				Truth: truthItems(
					map[string]string{"L0": "h1", "L1": "h1"},
					map[string]string{"L0": "h2", "L1": "h2", "L2": "h2"},
					map[string]string{},
				),
				Findings: []bench.FindingOutcome{
					{ID: "h1", Reviewers: []string{"correctness"}, Path: "store/store.go", Line: 49, Severity: "high", Category: "concurrency",
						Title: "Stock check and update race", Body: "Two goroutines can both see enough stock.",
						Matches: map[string]string{"L0": "c1", "L1": "c1"}},
					{ID: "h2", Reviewers: []string{"correctness"}, Path: "api/handler.go", Line: 40, Severity: "medium", Category: "error-handling",
						Title: "strconv.Atoi error dropped", Body: "Check the error and reject n <= 0.",
						Matches: map[string]string{"L0": "c2", "L1": "c2", "L2": "c2"}},
					{ID: "h3", Reviewers: []string{"security"}, Path: "api/handler.go", Line: 50, Severity: "high", Category: "security",
						Title: "Path traversal in /export", Body: "Clean the name.", Matches: map[string]string{}},
				}},
			{ID: "acme-svc-2", Title: "Cache the price list", CostUSD: 0.04, WallSeconds: 26.6,
				Truth: truthItems(
					map[string]string{},
					map[string]string{"L0": "k1"},
					map[string]string{},
				)[:2],
				Findings: []bench.FindingOutcome{
					{ID: "k1", Reviewers: []string{"security"}, Path: "api/handler.go", Line: 90, Severity: "low", Category: "style",
						Title: "Rename p to price", Body: "Single-letter names hide intent.", Matches: map[string]string{"L0": "c2"}},
					{ID: "k2", Reviewers: []string{"correctness"}, Path: "store/cache.go", Line: 12, Severity: "medium", Category: "performance",
						Title: "Cache never expires", Body: "Prices change daily.", Matches: map[string]string{}},
				}},
		},
	}}
}

func twoRuns() []Run { return []Run{sonnet(), haiku()} }
