package bench

import (
	"math"
	"math/rand/v2"
	"sort"
)

// tierTally is one sample's counts at one tier: matched truth items, truth items, findings.
type tierTally struct{ tp, truth, findings int }

// safeRatio is num/den, and 0 for 0/0: no findings is no precision to speak of, and counting it
// as 0 keeps every metric in [0, 1] and JSON free of NaN.
func safeRatio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// microMetrics pools the counts of the samples idx (every sample when idx is nil). F1 is
// 2TP/(truth+findings), the harmonic mean of precision and recall.
func microMetrics(ts []tierTally, idx []int) (p, r, f1 float64) {
	var sum tierTally
	eachTally(ts, idx, func(t tierTally) {
		sum.tp += t.tp
		sum.truth += t.truth
		sum.findings += t.findings
	})
	return safeRatio(sum.tp, sum.findings), safeRatio(sum.tp, sum.truth), safeRatio(2*sum.tp, sum.truth+sum.findings)
}

// macroMetrics averages per-sample values over the samples idx (every sample when idx is nil).
// A sample with no truth items has no recall and one with no findings no precision: each is
// left out of that mean. A sample's F1 is 2TP/(truth+findings), so 0 when it matched nothing,
// and only a sample with neither truth nor findings is left out of the F1 mean.
func macroMetrics(ts []tierTally, idx []int) (p, r, f1 float64) {
	var sp, sr, sf float64
	var np, nr, nf int
	eachTally(ts, idx, func(t tierTally) {
		if t.findings > 0 {
			sp += safeRatio(t.tp, t.findings)
			np++
		}
		if t.truth > 0 {
			sr += safeRatio(t.tp, t.truth)
			nr++
		}
		if t.truth+t.findings > 0 {
			sf += safeRatio(2*t.tp, t.truth+t.findings)
			nf++
		}
	})
	mean := func(s float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return s / float64(n)
	}
	return mean(sp, np), mean(sr, nr), mean(sf, nf)
}

func eachTally(ts []tierTally, idx []int, fn func(tierTally)) {
	if idx == nil {
		for _, t := range ts {
			fn(t)
		}
		return
	}
	for _, i := range idx {
		fn(ts[i])
	}
}

// pcgStream is the PCG stream of the bootstrap; the seed picks the state. Changing it changes
// every published interval, so it is a constant of the score format.
const pcgStream = 0x636f756e63696c // "council"

// bootstrapCIs resamples the n samples with replacement, resamples times, calls stat with
// the indices of each resample to fill k statistics, and returns each statistic's 95%
// percentile interval. The generator is seeded, so the same seed gives the same intervals.
// With no samples or no resamples the intervals are left zero.
func bootstrapCIs(n, resamples int, seed int64, k int, stat func(idx []int, out []float64)) [][2]float64 {
	cis := make([][2]float64, k)
	if n == 0 || resamples <= 0 || k == 0 {
		return cis
	}
	rng := rand.New(rand.NewPCG(uint64(seed), pcgStream)) //nolint:gosec // a seed's bits, not a quantity
	vals := make([][]float64, k)
	for j := range vals {
		vals[j] = make([]float64, 0, resamples)
	}
	idx := make([]int, n)
	out := make([]float64, k)
	for range resamples {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		stat(idx, out)
		for j, v := range out {
			vals[j] = append(vals[j], v)
		}
	}
	for j, v := range vals {
		sort.Float64s(v)
		cis[j] = [2]float64{scoreQuantile(v, 0.025), scoreQuantile(v, 0.975)}
	}
	return cis
}

// scoreQuantile is the q-quantile of sorted values, interpolated between the two nearest ranks
// (R's type 7, numpy's default).
func scoreQuantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	h := q * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}
