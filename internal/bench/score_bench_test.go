package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// benchRun is a run of n samples with 30 truth items and 30 findings each, made from a fixed
// seed: ten files of 400 lines, comments of 12 to 40 words from a 600-word vocabulary, and a
// third of the findings paraphrasing a truth item near its line, so that every tier works.
func benchRun(n int) ScoreInput {
	rng := rand.New(rand.NewPCG(42, 42))
	vocab := make([]string, 600)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("word%d", i)
	}
	vocab[0], vocab[1], vocab[2] = "`cfg.Timeout`", "parseConfig", "the"
	text := func() string {
		ws := make([]string, 12+rng.IntN(29))
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	in := ScoreInput{Dataset: "bench", Run: RunManifest{Name: "bench"}, Reviews: map[string]report.Report{}}
	for s := range n {
		id := fmt.Sprintf("sample-%04d", s)
		smp := Sample{ID: id}
		for k := range 30 {
			tr := Truth{ID: fmt.Sprintf("t%d", k), Author: fmt.Sprintf("u%d", rng.IntN(5)), Path: fmt.Sprintf("pkg/f%d.go", rng.IntN(10)),
				Line: 1 + rng.IntN(400), Body: text(), Kind: Kinds[rng.IntN(len(Kinds))], Addressed: rng.IntN(2) == 0}
			if k%10 == 9 {
				tr = Truth{ID: tr.ID, Author: tr.Author, Body: tr.Body, Kind: tr.Kind, ReviewBody: true}
			}
			smp.Truth = append(smp.Truth, tr)
		}
		var fs []finding.Finding
		for k := range 30 {
			f := finding.Finding{ID: fmt.Sprintf("f%d", k), Lenses: []string{[]string{"correctness", "security", "maintainability"}[k%3]},
				Path: fmt.Sprintf("pkg/f%d.go", rng.IntN(10)), Line: 1 + rng.IntN(400), Side: finding.Right,
				Title: text(), Body: text(), Status: finding.Reported}
			if k%3 == 0 {
				tr := smp.Truth[rng.IntN(len(smp.Truth))]
				f.Path, f.Line, f.Body = tr.Path, max(1, tr.Line+rng.IntN(7)-3), tr.Body+" "+text()
			}
			fs = append(fs, f)
		}
		in.Samples = append(in.Samples, smp)
		in.Run.Samples = append(in.Run.Samples, RunSample{ID: id, Status: StatusDone, CostUSD: 0.1, WallSeconds: 30})
		in.Reviews[id] = report.Report{Findings: fs}
	}
	return in
}

// BenchmarkScore scores 1,000 samples of 30 truth items and 30 findings with the default
// options (1,000 bootstrap resamples): it must stay well under 5 s per run.
func BenchmarkScore(b *testing.B) {
	in := benchRun(1000)
	opts := DefaultScoreOptions()
	b.ReportAllocs()
	for b.Loop() {
		sc := ScoreRun(in, opts, nil)
		if sc.Tiers[2].TP == 0 {
			b.Fatal("the generated run has no L2 hit: the benchmark measures nothing")
		}
	}
}
