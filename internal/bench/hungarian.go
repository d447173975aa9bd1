package bench

import "math"

// hungarian returns a one-to-one assignment of rows to columns of w that maximises the total
// weight: for each row, its column, or -1 when the row is left out (only when there are more
// rows than columns). w is rectangular: every row has the same length. Pairs that must not be
// matched are given weight 0 by the caller and dropped afterwards; with non-negative weights a
// maximum-weight matching is always part of a maximum-weight full assignment.
//
// It is the Hungarian algorithm with potentials (Kuhn-Munkres as in Jonker-Volgenant's
// shortest augmenting paths), O(n²m) for n rows <= m columns: each row is added by one
// Dijkstra-like search over the reduced costs. Ties are broken by index, so the result is
// deterministic for a given matrix.
func hungarian(w [][]float64) []int {
	n := len(w)
	if n == 0 {
		return nil
	}
	m := len(w[0])
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	if m == 0 {
		return out
	}
	if n > m {
		t := make([][]float64, m)
		for j := range t {
			t[j] = make([]float64, n)
			for i := range n {
				t[j][i] = w[i][j]
			}
		}
		for j, i := range hungarian(t) {
			if i >= 0 {
				out[i] = j
			}
		}
		return out
	}

	// 1-based, with column 0 as the virtual start of each augmenting path; cost is -weight.
	u := make([]float64, n+1)
	v := make([]float64, m+1)
	p := make([]int, m+1)   // p[j]: the row assigned to column j, 0 for none
	way := make([]int, m+1) // way[j]: the previous column on the shortest path to j
	minv := make([]float64, m+1)
	used := make([]bool, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := p[j0]
			delta := math.Inf(1)
			j1 := 0
			row := w[i0-1]
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := -row[j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j] = cur
					way[j] = j0
				}
				if minv[j] < delta {
					delta = minv[j]
					j1 = j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	for j := 1; j <= m; j++ {
		if p[j] != 0 {
			out[p[j]-1] = j - 1
		}
	}
	return out
}
