package bench

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func total(w [][]float64, rowToCol []int) float64 {
	var s float64
	for r, c := range rowToCol {
		if c >= 0 {
			s += w[r][c]
		}
	}
	return s
}

// greedy picks the heaviest remaining pair until none is left: what a simple matcher does.
func greedy(w [][]float64) []int {
	out := make([]int, len(w))
	for i := range out {
		out[i] = -1
	}
	usedCol := map[int]bool{}
	for {
		br, bc, best := -1, -1, math.Inf(-1)
		for r := range w {
			if out[r] >= 0 {
				continue
			}
			for c, v := range w[r] {
				if !usedCol[c] && v > best {
					br, bc, best = r, c, v
				}
			}
		}
		if br < 0 {
			return out
		}
		out[br] = bc
		usedCol[bc] = true
	}
}

// bruteForce is the best total over every one-to-one assignment of the rows.
func bruteForce(w [][]float64) float64 {
	m := len(w[0])
	used := make([]bool, m)
	var rec func(r int) float64
	rec = func(r int) float64 {
		if r == len(w) {
			return 0
		}
		best := rec(r + 1) // row r left out
		for c := range m {
			if !used[c] {
				used[c] = true
				best = max(best, w[r][c]+rec(r+1))
				used[c] = false
			}
		}
		return best
	}
	return rec(0)
}

func TestHungarian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		w         [][]float64
		want      []int
		wantTotal float64
	}{
		{name: "empty", w: nil, want: nil},
		{name: "no columns", w: [][]float64{{}, {}}, want: []int{-1, -1}},
		{name: "one pair", w: [][]float64{{5}}, want: []int{0}, wantTotal: 5},
		{
			// Greedy takes the 3 and is left with the 0: 3 in all, where 2+2 is 4.
			name: "beats greedy", w: [][]float64{{3, 2}, {2, 0}}, want: []int{1, 0}, wantTotal: 4,
		},
		{name: "more columns than rows", w: [][]float64{{1, 9, 3}, {8, 9, 1}}, want: []int{1, 0}, wantTotal: 17},
		{name: "more rows than columns", w: [][]float64{{1, 2}, {9, 1}, {8, 7}}, want: []int{-1, 0, 1}, wantTotal: 16},
		{name: "ties break by index", w: [][]float64{{1, 1}, {1, 1}}, want: []int{0, 1}, wantTotal: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := hungarian(tt.w)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("assignment (-want +got):\n%s", d)
			}
			if got := total(tt.w, got); got != tt.wantTotal {
				t.Errorf("total = %v, want %v", got, tt.wantTotal)
			}
		})
	}
	w := [][]float64{{3, 2}, {2, 0}}
	if g, h := total(w, greedy(w)), total(w, hungarian(w)); g >= h {
		t.Errorf("greedy total %v, hungarian %v: the crafted case should favour hungarian", g, h)
	}
}

// TestHungarianOptimal checks the assignment against every assignment on random small
// rectangular matrices, with zero weights as the scorer gives pairs that are not eligible.
func TestHungarianOptimal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		w := make([][]float64, n)
		for r := range w {
			w[r] = make([]float64, m)
			for c := range w[r] {
				if rng.IntN(3) > 0 {
					w[r][c] = float64(rng.IntN(20)) + rng.Float64()
				}
			}
		}
		got := hungarian(w)
		seen := map[int]bool{}
		for _, c := range got {
			if c >= 0 && seen[c] {
				t.Fatalf("case %d: column %d assigned twice: %v", iter, c, got)
			}
			seen[c] = true
		}
		if want, have := bruteForce(w), total(w, got); math.Abs(want-have) > 1e-9 {
			t.Fatalf("case %d: total %v, the best is %v\nw = %v\nassignment %v", iter, have, want, w, got)
		}
	}
}
