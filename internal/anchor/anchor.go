// Package anchor pins each finding to the diff lines its quote is about and enforces GitHub's
// rules for review comments: every line of a comment inside one hunk, on one side, and a
// suggestion that replaces exactly the commented lines. A line number from a model is a hint;
// the quote is the ground truth. A quote of unchanged lines is anchored when they are context
// inside a hunk, where GitHub takes comments; lines shown only around the hunks are not in the
// diff. What cannot be anchored becomes an "other note" with the reason.
//
// It is pure: diff files and findings in, findings out. It must never read files, git, the
// network or the clock, and it must never drop a finding.
package anchor

import (
	"fmt"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
)

// Stats says what the stage did. In == Anchored + OtherNotes.
type Stats struct {
	In         int // findings given
	Anchored   int // pinned to lines inside one hunk
	OtherNotes int // not anchored: Status OtherNote, unless an earlier stage had filtered them
}

// Why a finding could not be anchored; they end up in AnchorNote.
const (
	notePathUnknown = "path not in the diff"
	noteBinary      = "binary file"
	noteNoHunks     = "no lines of this file are in the diff"
	noteNotFound    = "quote not found in the diff"
	noteCrossHunks  = "quote spans two hunks"
)

// How a finding was anchored.
const (
	howExact     = "exact"
	howSpace     = "whitespace-insensitive"
	howSubstring = "substring"
	howHint      = "hint line"
)

// minSubstring is the least number of non-space characters a one-line quote needs before it
// may match part of a line: shorter fragments ("err)", "return") match too much.
const minSubstring = 12

// Anchor returns the findings in the same order, each either anchored (Anchored, Status
// Reported, Line/StartLine/Side rewritten, hints kept in HintLine/HintStartLine) or turned
// into an other note with AnchorNote saying why. A finding an earlier stage filtered keeps
// Status Filtered but is still anchored, so that the artifact shows where it was.
func Anchor(files []diff.File, fs []finding.Finding) ([]finding.Finding, Stats) {
	return anchorAll(files, fs, defaultIndexAbove)
}

// anchorAll is Anchor with the size above which a file side is indexed, so that tests can run
// both search strategies against the same expectations.
func anchorAll(files []diff.File, fs []finding.Finding, indexAbove int) ([]finding.Finding, Stats) {
	a := newAnchorer(files, indexAbove)
	out := make([]finding.Finding, len(fs))
	st := Stats{In: len(fs)}
	for i, f := range fs {
		out[i] = a.anchor(f)
		if out[i].Anchored {
			st.Anchored++
		} else {
			st.OtherNotes++
		}
	}
	return out, st
}

type anchorer struct {
	files      []diff.File
	byPath     map[string]int
	index      []*fileIndex // built on first use; most files of a large change get no finding
	indexAbove int
}

func newAnchorer(files []diff.File, indexAbove int) *anchorer {
	a := &anchorer{
		files:      files,
		indexAbove: indexAbove,
		byPath:     make(map[string]int, len(files)),
		index:      make([]*fileIndex, len(files)),
	}
	// New paths first, so that a path renamed away and then re-added means the new file.
	for i, f := range files {
		if p := f.Path(); p != "" {
			if _, ok := a.byPath[p]; !ok {
				a.byPath[p] = i
			}
		}
	}
	for i, f := range files {
		if f.OldPath != "" {
			if _, ok := a.byPath[f.OldPath]; !ok {
				a.byPath[f.OldPath] = i
			}
		}
	}
	return a
}

// lookup finds the file a model meant. Models add "a/", "b/" or "./" from the diff headers, or
// a leading slash; the path as given is tried first because a repository may have a
// directory named "a".
func (a *anchorer) lookup(p string) (int, bool) {
	p = strings.TrimSpace(p)
	if i, ok := a.byPath[p]; ok {
		return i, true
	}
	q := strings.TrimLeft(p, "/")
	for strings.HasPrefix(q, "./") {
		q = strings.TrimLeft(q[2:], "/")
	}
	if i, ok := a.byPath[q]; ok {
		return i, true
	}
	if strings.HasPrefix(q, "a/") || strings.HasPrefix(q, "b/") {
		if i, ok := a.byPath[q[2:]]; ok {
			return i, true
		}
	}
	return 0, false
}

func (a *anchorer) fileIndex(i int) *fileIndex {
	if a.index[i] == nil {
		a.index[i] = newFileIndex(&a.files[i], a.indexAbove)
	}
	return a.index[i]
}

func (a *anchorer) anchor(f finding.Finding) finding.Finding {
	req := f.Side
	if req != finding.Left {
		req = finding.Right
	}
	h := newHint(f.StartLine, f.Line)
	f.HintLine, f.HintStartLine = f.Line, f.StartLine
	f.Side = req

	i, ok := a.lookup(f.Path)
	if !ok {
		return fail(f, h, nil, notePathUnknown)
	}
	f.Path = a.files[i].Path()
	if a.files[i].Binary {
		return fail(f, h, nil, noteBinary)
	}
	fi := a.fileIndex(i)
	if len(fi.right.lines) == 0 && len(fi.left.lines) == 0 {
		return fail(f, h, fi, noteNoHunks)
	}

	forms := quoteForms(f.Quote)
	if forms == nil {
		return anchorHint(f, h, fi)
	}
	m, fm, ok, cross := fi.find(forms, req, h)
	if !ok {
		if cross {
			return fail(f, h, fi, noteCrossHunks)
		}
		return fail(f, h, fi, noteNotFound)
	}

	notes := []string{m.how}
	if fm.how != "" {
		notes = append(notes, fm.how)
	}
	if m.side != req {
		notes = append(notes, sideNote(m.side))
	}
	if h.given() && m.dist > 0 {
		notes = append(notes, offNote(m.dist))
	}
	f = place(f, m.side, m.first, m.last)
	if n := checkSuggestion(&f, m, fm); n != "" {
		notes = append(notes, n)
	}
	f.AnchorNote = strings.Join(notes, "; ")
	return f
}

// anchorHint anchors a finding without a quote to its hint lines, if they are commentable.
func anchorHint(f finding.Finding, h hint, fi *fileIndex) finding.Finding {
	if !h.given() {
		return fail(f, h, fi, "no quote and no line")
	}
	sl := fi.side(f.Side)
	from, ok1 := sl.find(h.start)
	to, ok2 := sl.find(h.end)
	if !ok1 || !ok2 || !sl.oneHunk(from, to) {
		what := fmt.Sprintf("line %d is", h.end)
		if h.start != h.end {
			what = fmt.Sprintf("lines %d-%d are", h.start, h.end)
		}
		return fail(f, h, fi, fmt.Sprintf("no quote, and %s not inside one hunk on the %s side", what, f.Side))
	}
	m := match{side: f.Side, first: h.start, last: h.end, how: howHint, text: sl.texts(from, to)}
	f = place(f, f.Side, h.start, h.end)
	notes := []string{howHint}
	if n := checkSuggestion(&f, m, form{}); n != "" {
		notes = append(notes, n)
	}
	f.AnchorNote = strings.Join(notes, "; ")
	return f
}

// place records a successful anchor on lines first..last of side.
func place(f finding.Finding, side finding.Side, first, last int) finding.Finding {
	f.Side = side
	f.Line = last
	f.StartLine = 0
	if first != last {
		f.StartLine = first
	}
	f.Anchored = true
	if f.Status != finding.Filtered {
		f.Status = finding.Reported
	}
	return f
}

// fail turns f into an other note. Its line is the best we know: the hint, or else the first
// commentable line of the file, so that "path:line" in the review body still leads somewhere.
func fail(f finding.Finding, h hint, fi *fileIndex, why string) finding.Finding {
	f.Anchored = false
	if f.Status != finding.Filtered {
		f.Status = finding.OtherNote
	}
	f.Line, f.StartLine = h.end, 0
	if h.start < h.end {
		f.StartLine = h.start
	}
	if !h.given() && fi != nil {
		side := f.Side
		sl := fi.side(side)
		if len(sl.lines) == 0 {
			side = other(side)
			sl = fi.side(side)
		}
		if len(sl.lines) > 0 {
			f.Side = side
			f.Line = sl.lines[0].num
		}
	}
	f.AnchorNote = why
	return f
}

func sideNote(s finding.Side) string {
	if s == finding.Left {
		return "quote found on deleted lines (LEFT)"
	}
	return "quote found on the new side (RIGHT)"
}

func offNote(n int) string {
	if n == 1 {
		return "hint off by 1 line"
	}
	return fmt.Sprintf("hint off by %d lines", n)
}

func other(s finding.Side) finding.Side {
	if s == finding.Left {
		return finding.Right
	}
	return finding.Left
}

// hint is the line range a model gave, in the numbering of the side it asked for.
type hint struct{ start, end int }

func newHint(start, line int) hint {
	if line <= 0 {
		line = 0
	}
	if start <= 0 {
		start = line
	}
	if line == 0 {
		line = start
	}
	if start > line {
		start, line = line, start
	}
	return hint{start: start, end: line}
}

func (h hint) given() bool { return h.end > 0 }

// dist is how many lines the range lo..hi lies from the hint; 0 if they overlap or there is
// no hint.
func (h hint) dist(lo, hi int) int {
	if lo > hi {
		lo, hi = hi, lo
	}
	switch {
	case !h.given():
		return 0
	case h.end < lo:
		return lo - h.end
	case h.start > hi:
		return h.start - hi
	}
	return 0
}
