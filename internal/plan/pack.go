package plan

import (
	"cmp"
	"slices"

	"github.com/council-dev/council/internal/diff"
)

// unitBuilder is a unit being filled.
type unitBuilder struct {
	items   []item
	used    int // sum of the items' costs
	sources map[int]bool
}

func (u *unitBuilder) add(it item) {
	u.items = append(u.items, it)
	u.used += it.cost()
	u.sources[it.source] = true
}

func newUnitBuilder() *unitBuilder { return &unitBuilder{sources: make(map[int]bool)} }

// pack splits files over the budget by hunks, then packs the items into units: directory by
// directory in path order, each directory as a whole into the first unit it fits in (first
// fit), so that files that belong together are reviewed together and units stay few. A
// directory too large for any unit fills new units of its own, in path order.
func pack(items []item, budget, extra int) []Unit {
	var pieces []item
	for _, it := range items {
		if it.cost() > budget && len(it.file.Hunks) > 1 {
			pieces = append(pieces, split(it, budget, extra)...)
			continue
		}
		pieces = append(pieces, it)
	}

	// Directories in the order their first file comes; items arrive sorted by path.
	var groups [][]item
	groupOf := make(map[string]int)
	for _, it := range pieces {
		g, ok := groupOf[it.dir]
		if !ok {
			g = len(groups)
			groupOf[it.dir] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], it)
	}

	var units []*unitBuilder
	for _, g := range groups {
		total := 0
		for _, it := range g {
			total += it.cost()
		}
		if total <= budget {
			var into *unitBuilder
			for _, u := range units {
				if u.used+total <= budget {
					into = u
					break
				}
			}
			if into == nil {
				into = newUnitBuilder()
				units = append(units, into)
			}
			for _, it := range g {
				into.add(it)
			}
			continue
		}
		// Next fit, not first fit: the directory then spans consecutive units instead of
		// scattering into the gaps of earlier ones. Two pieces of one file never share a unit,
		// since splitting already made each piece as large as the budget allows.
		var cur *unitBuilder
		for _, it := range g {
			if cur == nil || len(cur.items) > 0 && cur.used+it.cost() > budget || cur.sources[it.source] {
				cur = newUnitBuilder()
				units = append(units, cur)
			}
			cur.add(it)
		}
	}

	if len(units) == 0 {
		return nil
	}
	out := make([]Unit, len(units))
	for i, u := range units {
		slices.SortStableFunc(u.items, func(a, b item) int { return cmp.Compare(a.file.Path(), b.file.Path()) })
		size := 0
		files := make([]diff.File, len(u.items))
		for j, it := range u.items {
			files[j] = it.file
			size += it.size
		}
		// RenderAll puts one newline between files.
		out[i] = Unit{Files: files, Tokens: tokensFor(size + len(files) - 1)}
	}
	return out
}

// split cuts a file over the budget into pieces of consecutive hunks, each as large as fits.
// A hunk larger than the budget by itself is a piece of its own, whole.
func split(it item, budget, extra int) []item {
	f := it.file
	header := len(diff.Render(withHunks(f, nil), it.head, extra))
	sizes := make([]int, len(f.Hunks))
	for i := range f.Hunks {
		sizes[i] = len(diff.Render(withHunks(f, f.Hunks[i:i+1]), it.head, extra)) - header
	}

	var out []item
	for start := 0; start < len(f.Hunks); {
		end, size := start+1, header+sizes[start]
		for end < len(f.Hunks) && tokensFor(size+sizes[end]+1) <= budget {
			size += sizes[end]
			end++
		}
		p := newItem(withHunks(f, f.Hunks[start:end]), it.head, it.source, extra)
		// Rendered together, hunks can take more room than apart (the number columns widen to
		// the largest number of the piece); give back hunks until the piece fits.
		for p.cost() > budget && end-start > 1 {
			end--
			p = newItem(withHunks(f, f.Hunks[start:end]), it.head, it.source, extra)
		}
		out = append(out, p)
		start = end
	}
	return out
}

// withHunks returns a copy of f holding only hunks, with its counts recomputed for them.
func withHunks(f diff.File, hunks []diff.Hunk) diff.File {
	f.Hunks = slices.Clip(hunks)
	f.Added, f.Deleted = 0, 0
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case diff.Add:
				f.Added++
			case diff.Delete:
				f.Deleted++
			}
		}
	}
	return f
}
