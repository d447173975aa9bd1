package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	type metrics struct{ P, R, F1 float64 }
	tests := []struct {
		name         string
		ts           []tierTally
		micro, macro metrics
	}{
		{name: "nothing", ts: nil},
		{name: "all found", ts: []tierTally{{2, 2, 2}, {1, 1, 1}}, micro: metrics{1, 1, 1}, macro: metrics{1, 1, 1}},
		{name: "no findings", ts: []tierTally{{0, 3, 0}}, micro: metrics{0, 0, 0}, macro: metrics{0, 0, 0}},
		{
			// Sample 1: P 1/2, R 1, F1 2/3. Sample 2 has no truth: P 0, no recall, F1 0.
			name:  "a sample without truth has no recall",
			ts:    []tierTally{{1, 1, 2}, {0, 0, 2}},
			micro: metrics{0.25, 1, 0.4},
			macro: metrics{0.25, 1, 1.0 / 3},
		},
		{
			// Sample 2 has no findings: R 0, no precision, F1 0.
			name:  "a sample without findings has no precision",
			ts:    []tierTally{{1, 1, 2}, {0, 2, 0}},
			micro: metrics{0.5, 1.0 / 3, 0.4},
			macro: metrics{0.5, 0.5, 1.0 / 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var micro, macro metrics
			micro.P, micro.R, micro.F1 = microMetrics(tt.ts, nil)
			macro.P, macro.R, macro.F1 = macroMetrics(tt.ts, nil)
			approx := cmpopts.EquateApprox(0, 1e-12)
			if d := cmp.Diff(tt.micro, micro, approx); d != "" {
				t.Errorf("micro (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.macro, macro, approx); d != "" {
				t.Errorf("macro (-want +got):\n%s", d)
			}
		})
	}
}

func TestBootstrapCIs(t *testing.T) {
	t.Parallel()
	ts := make([]tierTally, 50)
	for i := range ts {
		ts[i] = tierTally{tp: i % 3, truth: 3, findings: 4}
	}
	stat := func(idx []int, out []float64) { out[0], out[1], out[2] = microMetrics(ts, idx) }
	a := bootstrapCIs(len(ts), 500, 1, 3, stat)
	if d := cmp.Diff(a, bootstrapCIs(len(ts), 500, 1, 3, stat)); d != "" {
		t.Errorf("the same seed gave other intervals (-first +second):\n%s", d)
	}
	if cmp.Equal(a, bootstrapCIs(len(ts), 500, 2, 3, stat)) {
		t.Errorf("another seed gave the same intervals")
	}
	p, r, f1 := microMetrics(ts, nil)
	for i, v := range []float64{p, r, f1} {
		if !(a[i][0] < v && v < a[i][1]) {
			t.Errorf("statistic %d = %v, interval %v: want it inside", i, v, a[i])
		}
	}
	if d := cmp.Diff([][2]float64{{0, 0}}, bootstrapCIs(0, 500, 1, 1, stat)); d != "" {
		t.Errorf("no samples (-want +got):\n%s", d)
	}
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{nil, 0.5, 0},
		{[]float64{7}, 0.975, 7},
		{[]float64{1, 2, 3, 4, 5}, 0.5, 3},
		{[]float64{1, 2, 3, 4, 5}, 0.025, 1.1},
		{[]float64{1, 2, 3, 4, 5}, 0.975, 4.9},
		{[]float64{1, 2, 3, 4, 5}, 1, 5},
	}
	for _, tt := range tests {
		if got := scoreQuantile(tt.xs, tt.q); !cmp.Equal(tt.want, got, cmpopts.EquateApprox(0, 1e-12)) {
			t.Errorf("quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
}
