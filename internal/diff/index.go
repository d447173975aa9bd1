package diff

import (
	"sort"

	"github.com/council-dev/council/internal/finding"
)

// Pos locates a hunk: Hunk indexes File's Hunks, File indexes the slice the Index was built
// from.
type Pos struct{ File, Hunk int }

// Index answers, for a path, a side and a line number, whether GitHub would accept a review
// comment there and which hunk holds the line. GitHub accepts a RIGHT comment on a line that
// exists in the new file inside a hunk (added or context) and a LEFT comment on a line that
// exists in the old file inside a hunk (deleted or context); anything else is answered with a
// 422, so every finding goes through here before it is posted.
//
// An Index is immutable and safe for concurrent use. It keeps no reference to the files.
type Index struct {
	files map[string]int
	spans map[sideKey]spanList
}

type sideKey struct {
	path string
	side finding.Side
}

// span is one hunk seen from one side: the line numbers it holds there, ascending.
type span struct {
	nums []int
	pos  Pos
}

func (s span) first() int { return s.nums[0] }
func (s span) last() int  { return s.nums[len(s.nums)-1] }

// spanList holds the spans of one path and side sorted by first line. maxLast[i] is the
// largest last line among spans[:i+1]: git never emits overlapping hunks, but a hand-made
// patch may, and this keeps a lookup correct for it without a second structure.
type spanList struct {
	spans   []span
	maxLast []int
}

// NewIndex indexes files (as returned by Parse). Files are looked up by Path(); a renamed
// file is also found by its old path, unless another file of the change lives at that path.
// When two files share a path (git reports a file turned into a symlink as a deletion and an
// addition of the same path), the one with a new side wins in File, and Lookup finds the LEFT
// lines of the one and the RIGHT lines of the other.
func NewIndex(files []File) *Index {
	ix := &Index{files: make(map[string]int, len(files)), spans: make(map[sideKey]spanList)}

	owned := make(map[string]bool, len(files))
	for _, f := range files {
		owned[f.Path()] = true
	}
	addFile := func(path string, i int) {
		if _, ok := ix.files[path]; !ok {
			ix.files[path] = i
		}
	}
	// Three passes give the precedence: a file living at the path, then a file deleted from
	// it, then a file renamed away from it.
	for i, f := range files {
		if f.NewPath != "" {
			addFile(f.NewPath, i)
		}
	}
	for i, f := range files {
		if f.Status == Deleted {
			addFile(f.OldPath, i)
		}
	}
	for i, f := range files {
		if f.Status == Renamed && f.OldPath != "" && !owned[f.OldPath] {
			addFile(f.OldPath, i)
		}
	}

	pending := make(map[sideKey][]span)
	for i, f := range files {
		names := []string{f.Path()}
		if f.Status == Renamed && f.OldPath != "" && f.OldPath != f.Path() && !owned[f.OldPath] {
			names = append(names, f.OldPath)
		}
		for j, h := range f.Hunks {
			var left, right []int
			for _, l := range h.Lines {
				if l.Op != Add && l.Old > 0 {
					left = append(left, l.Old)
				}
				if l.Op != Delete && l.New > 0 {
					right = append(right, l.New)
				}
			}
			// Parse yields ascending numbers; a hand-built hunk might not.
			if !sort.IntsAreSorted(left) {
				sort.Ints(left)
			}
			if !sort.IntsAreSorted(right) {
				sort.Ints(right)
			}
			for _, name := range names {
				if len(left) > 0 {
					k := sideKey{name, finding.Left}
					pending[k] = append(pending[k], span{nums: left, pos: Pos{i, j}})
				}
				if len(right) > 0 {
					k := sideKey{name, finding.Right}
					pending[k] = append(pending[k], span{nums: right, pos: Pos{i, j}})
				}
			}
		}
	}
	for k, spans := range pending {
		sort.SliceStable(spans, func(a, b int) bool { return spans[a].first() < spans[b].first() })
		maxLast := make([]int, len(spans))
		for i, s := range spans {
			maxLast[i] = s.last()
			if i > 0 && maxLast[i-1] > maxLast[i] {
				maxLast[i] = maxLast[i-1]
			}
		}
		ix.spans[k] = spanList{spans: spans, maxLast: maxLast}
	}
	return ix
}

// Lookup reports whether line on side of path is a line GitHub accepts a comment on, and the
// hunk that holds it. It costs O(log n) in the number of hunks of the file plus O(log m) in
// the number of lines of the hunk.
func (ix *Index) Lookup(path string, side finding.Side, line int) (Pos, bool) {
	l, ok := ix.spans[sideKey{path, side}]
	if !ok || line <= 0 {
		return Pos{}, false
	}
	// The first span starting after line; only spans before it can hold line.
	i := sort.Search(len(l.spans), func(i int) bool { return l.spans[i].first() > line })
	for j := i - 1; j >= 0 && l.maxLast[j] >= line; j-- {
		s := l.spans[j]
		if line > s.last() {
			continue
		}
		// Parse numbers each side of a hunk without gaps, but a File may be built by hand;
		// finding the number itself keeps the answer exact either way.
		if k := sort.SearchInts(s.nums, line); k < len(s.nums) && s.nums[k] == line {
			return s.pos, true
		}
	}
	return Pos{}, false
}

// File returns the index of the file a reviewer means by path: see NewIndex for which paths
// are known.
func (ix *Index) File(path string) (int, bool) {
	i, ok := ix.files[path]
	return i, ok
}

// SameHunk reports whether lines start through end of side of path are all commentable and
// belong to one hunk, which is what GitHub requires of a multi-line comment. Since a hunk
// numbers each side without gaps, checking both ends is enough. start > end is false: GitHub
// rejects a range that runs backwards.
func (ix *Index) SameHunk(path string, side finding.Side, start, end int) bool {
	if start > end {
		return false
	}
	a, ok := ix.Lookup(path, side, start)
	if !ok {
		return false
	}
	b, ok := ix.Lookup(path, side, end)
	return ok && a == b
}
