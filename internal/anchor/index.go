package anchor

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
)

// entry is one line of a file as it exists on one side of the diff.
type entry struct {
	text    string
	norm    string // whitespace-normalised text, once sideLines.normalise ran
	num     int    // line number on this side
	alt     int    // where the line sits in the other side's numbering, for hints given in it
	hunk    int
	changed bool // added (RIGHT) or deleted (LEFT), not context
}

// sideLines is the sequence of a file's lines on one side, hunk after hunk. Consecutive
// entries of one hunk are consecutive lines of the file; across hunks they are not, which is
// how a quote that runs over a hunk boundary is recognised.
//
// Most findings match exactly and most files are small, so everything beyond the lines
// themselves is built on first need: normalised text for the first search that ignores
// whitespace, position maps and a joined text only for sides long enough that scanning them
// for every finding would cost more than building them once.
type sideLines struct {
	lines   []entry
	normed  bool
	indexed bool // long enough for maps and a joined text

	exact map[string][]int // text -> positions, to find where a quote may start
	norm  map[string][]int

	joined string // normalised lines joined by "\n", for substring search
	starts []int  // offset of each line in joined
}

// defaultIndexAbove is the number of lines above which a side gets maps and a joined text.
const defaultIndexAbove = 256

type fileIndex struct {
	file        *diff.File
	right, left sideLines
}

func newFileIndex(f *diff.File, indexAbove int) *fileIndex {
	fi := &fileIndex{file: f}
	nr, nl := 0, 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case diff.Context:
				nr++
				nl++
			case diff.Add:
				nr++
			case diff.Delete:
				nl++
			}
		}
	}
	fi.right.lines = make([]entry, 0, nr)
	fi.left.lines = make([]entry, 0, nl)
	fi.right.indexed = nr > indexAbove
	fi.left.indexed = nl > indexAbove
	for hi, h := range f.Hunks {
		nextOld, nextNew := h.OldStart, h.NewStart
		for _, l := range h.Lines {
			switch l.Op {
			case diff.Context:
				fi.right.add(l.Text, l.New, l.Old, hi, false)
				fi.left.add(l.Text, l.Old, l.New, hi, false)
			case diff.Add:
				fi.right.add(l.Text, l.New, nextOld, hi, true)
			case diff.Delete:
				fi.left.add(l.Text, l.Old, nextNew, hi, true)
			default:
				continue
			}
			if l.Old > 0 {
				nextOld = l.Old + 1
			}
			if l.New > 0 {
				nextNew = l.New + 1
			}
		}
	}
	return fi
}

func (fi *fileIndex) side(s finding.Side) *sideLines {
	if s == finding.Left {
		return &fi.left
	}
	return &fi.right
}

func (s *sideLines) add(text string, num, alt, hunk int, changed bool) {
	s.lines = append(s.lines, entry{text: text, num: num, alt: alt, hunk: hunk, changed: changed})
}

func (s *sideLines) normalise() {
	if s.normed {
		return
	}
	for i := range s.lines {
		s.lines[i].norm = normalize(s.lines[i].text)
	}
	s.normed = true
}

// startsOf returns the positions where a quote whose first line is q may start.
func (s *sideLines) startsOf(q string, ws bool) []int {
	if ws {
		s.normalise()
	}
	if s.indexed {
		if s.exact == nil {
			s.normalise()
			s.exact = make(map[string][]int, len(s.lines))
			s.norm = make(map[string][]int, len(s.lines))
			for i, e := range s.lines {
				s.exact[e.text] = append(s.exact[e.text], i)
				s.norm[e.norm] = append(s.norm[e.norm], i)
			}
		}
		if ws {
			return s.norm[q]
		}
		return s.exact[q]
	}
	var starts []int
	for i := range s.lines {
		if (ws && s.lines[i].norm == q) || (!ws && s.lines[i].text == q) {
			starts = append(starts, i)
		}
	}
	return starts
}

func (s *sideLines) buildJoined() {
	if s.starts != nil || len(s.lines) == 0 {
		return
	}
	s.normalise()
	var b strings.Builder
	b.Grow(len(s.lines) * 40)
	s.starts = make([]int, len(s.lines))
	for i, e := range s.lines {
		s.starts[i] = b.Len()
		b.WriteString(e.norm)
		b.WriteByte('\n')
	}
	s.joined = b.String()
}

// find returns the position of line number n on this side.
func (s *sideLines) find(n int) (int, bool) {
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i].num >= n })
	return i, i < len(s.lines) && s.lines[i].num == n
}

// oneHunk reports whether positions from..to are consecutive lines of one hunk.
func (s *sideLines) oneHunk(from, to int) bool {
	if from > to || to >= len(s.lines) {
		return false
	}
	for i := from + 1; i <= to; i++ {
		if s.lines[i].hunk != s.lines[from].hunk || s.lines[i].num != s.lines[i-1].num+1 {
			return false
		}
	}
	return true
}

func (s *sideLines) texts(from, to int) []string {
	t := make([]string, 0, to-from+1)
	for i := from; i <= to; i++ {
		t = append(t, s.lines[i].text)
	}
	return t
}

// match is where a quote was found.
type match struct {
	side        finding.Side
	first, last int // line numbers on side
	changed     bool
	dist        int
	how         string
	text        []string // the anchored lines as they are in the diff
	quote       []string // the quote lines that matched them; nil when anchored to a hint
}

// better reports whether m is preferred over cur: a match that touches changed lines over one
// that is pure context, then the one nearer the hint. Equal candidates keep the first.
func (m match) better(cur match) bool {
	if m.changed != cur.changed {
		return m.changed
	}
	return m.dist < cur.dist
}

// find looks for the quote. Each form (as given, then with line-number prefixes or diff
// markers stripped) is tried as whole lines on its preferred side, exactly and then ignoring
// whitespace, then on the other side; only when no form matches whole lines is a one-line quote
// looked for as part of a line. cross reports a match that ran over a hunk boundary.
func (fi *fileIndex) find(forms []form, req finding.Side, h hint) (m match, fm form, ok, cross bool) {
	for _, fm := range forms {
		if fm.mixed {
			if m, ok := fi.findMixed(fm, req, h); ok {
				return m, fm, true, cross
			}
			continue
		}
		primary := req
		if fm.prefer != "" {
			primary = fm.prefer
		}
		for _, side := range [2]finding.Side{primary, other(primary)} {
			for _, ws := range [2]bool{false, true} {
				m, ok, c := fi.side(side).findLines(fm.lines, ws, side != req, h)
				cross = cross || c
				if ok {
					m.side = side
					return m, fm, true, cross
				}
			}
		}
	}
	for _, fm := range forms {
		if fm.mixed || len(fm.lines) != 1 {
			continue
		}
		q := normalize(fm.lines[0])
		if utf8.RuneCountInString(q)-strings.Count(q, " ") < minSubstring {
			continue
		}
		primary := req
		if fm.prefer != "" {
			primary = fm.prefer
		}
		for _, side := range [2]finding.Side{primary, other(primary)} {
			if m, ok := fi.side(side).findSubstring(q, side != req, h); ok {
				m.side = side
				m.quote = fm.lines
				return m, fm, true, cross
			}
		}
	}
	return match{}, form{}, false, cross
}

// findLines looks for q as consecutive whole lines inside one hunk. useAlt says the hint was
// given for the other side.
func (s *sideLines) findLines(q []string, ws, useAlt bool, h hint) (best match, found, cross bool) {
	if len(s.lines) == 0 {
		return best, false, false
	}
	nq := q
	if ws {
		nq = make([]string, len(q))
		for i, l := range q {
			nq[i] = normalize(l)
		}
	}
	for _, p := range s.startsOf(nq[0], ws) {
		end := p + len(q) - 1
		if end >= len(s.lines) {
			break
		}
		same := true
		for j := 1; j < len(q) && same; j++ {
			e := &s.lines[p+j]
			if ws {
				same = e.norm == nq[j]
			} else {
				same = e.text == q[j]
			}
		}
		if !same {
			continue
		}
		if s.lines[p].hunk != s.lines[end].hunk {
			cross = true
			continue
		}
		m := s.candidate(p, end, useAlt, h)
		if !found || m.better(best) {
			best, found = m, true
		}
	}
	if found {
		best.how = howExact
		if ws {
			best.how = howSpace
		}
		best.quote = q
	}
	return best, found, cross
}

// findSubstring looks for the normalised one-line quote q inside single lines.
func (s *sideLines) findSubstring(q string, useAlt bool, h hint) (best match, found bool) {
	best.how = howSubstring
	if !s.indexed {
		s.normalise()
		for p := range s.lines {
			if !strings.Contains(s.lines[p].norm, q) {
				continue
			}
			m := s.candidate(p, p, useAlt, h)
			m.how = howSubstring
			if !found || m.better(best) {
				best, found = m, true
			}
		}
		return best, found
	}
	s.buildJoined()
	for off := 0; off < len(s.joined); {
		i := strings.Index(s.joined[off:], q)
		if i < 0 {
			break
		}
		// q has no newline, so the hit lies inside one line.
		p := sort.Search(len(s.starts), func(k int) bool { return s.starts[k] > off+i }) - 1
		m := s.candidate(p, p, useAlt, h)
		if !found || m.better(best) {
			best, found = m, true
		}
		if p+1 >= len(s.starts) {
			break
		}
		off = s.starts[p+1]
	}
	best.how = howSubstring
	return best, found
}

func (s *sideLines) candidate(from, to int, useAlt bool, h hint) match {
	m := match{first: s.lines[from].num, last: s.lines[to].num, text: s.texts(from, to)}
	for i := from; i <= to; i++ {
		if s.lines[i].changed {
			m.changed = true
			break
		}
	}
	m.dist = h.dist(m.first, m.last)
	if useAlt {
		// The hint was meant for the other side's numbering, or, as models often do for a
		// deleted line, it is the old number after all: take the kinder reading.
		m.dist = min(m.dist, h.dist(s.lines[from].alt, s.lines[to].alt))
	}
	return m
}

// findMixed looks for a quote copied from the diff with both "-" and "+" lines, against the
// hunks as they are. The comment goes on the lines of the requested side within the match,
// since a finding has one side.
func (fi *fileIndex) findMixed(fm form, req finding.Side, h hint) (match, bool) {
	k := len(fm.lines)
	nq := make([]string, k)
	for i, l := range fm.lines {
		nq[i] = normalize(l)
	}
	for _, ws := range [2]bool{false, true} {
		var best match
		found := false
		for _, hk := range fi.file.Hunks {
			for i := 0; i+k <= len(hk.Lines); i++ {
				same := true
				for j := 0; j < k && same; j++ {
					l := hk.Lines[i+j]
					switch {
					case byte(l.Op) != fm.markers[j]:
						same = false
					case ws:
						same = normalize(l.Text) == nq[j]
					default:
						same = l.Text == fm.lines[j]
					}
				}
				if !same {
					continue
				}
				m := match{side: req, changed: true}
				for _, l := range hk.Lines[i : i+k] {
					n := l.New
					if req == finding.Left {
						n = l.Old
					}
					if (req == finding.Left && l.Op == diff.Add) || (req == finding.Right && l.Op == diff.Delete) {
						continue
					}
					if m.first == 0 {
						m.first = n
					}
					m.last = n
					m.text = append(m.text, l.Text)
				}
				if m.text == nil {
					continue
				}
				m.dist = h.dist(m.first, m.last)
				if !found || m.better(best) {
					best, found = m, true
				}
			}
		}
		if found {
			best.how = howExact
			if ws {
				best.how = howSpace
			}
			best.quote = fm.lines
			return best, true
		}
	}
	return match{}, false
}

// normalize collapses runs of whitespace to one space and trims the ends. Most code lines are
// already normal apart from indentation, so the common case does not allocate.
func normalize(s string) string {
	start := 0
	for start < len(s) && isASCIISpace(s[start]) {
		start++
	}
	s = s[start:]
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || (isASCIISpace(c) && (c != ' ' || i+1 == len(s) || isASCIISpace(s[i+1]))) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

func isASCIISpace(c byte) bool { return asciiSpace[c] }
