package diff

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Legend explains Render's notation. It belongs in the prompt that carries rendered files, next
// to them; it is here so that it changes together with the format it describes.
const Legend = `Each file starts with "### path (what happened to it)", then its hunks. ` +
	`In a hunk, a line reads "OLD NEW | " followed by " " (unchanged), "+" (added) or "-" (deleted) and the code: ` +
	`OLD is its line number in the old file, NEW in the new file, blank on the side where the line does not exist. ` +
	`Lines that read "NEW : " are extra context from the new file: they are not in the diff and take no inline comment; a finding about one is shown in the review body.`

// minColumn is the narrowest number column, so that small files line up the same way and the
// prompt text stays stable as a file grows past nine lines.
const minColumn = 4

// Render renders one file for a model prompt, with explicit line numbers so that the model
// cites the numbers the hunk index knows instead of counting lines itself:
//
//	### path/to/file.go (modified)
//	@@ -10,4 +10,5 @@ func Section
//	       8 :  extra context line (not in the diff)
//	  10  10 |  context line
//	      11 | +added line
//	  11     | -deleted line
//	  12  12 |  context line
//	\ No newline at end of file
//
// Each number is right-aligned in a column one wider than the largest number shown (at least
// four), so that two numbers never touch. head is the file at the new revision split into
// lines, or nil; extra is how many lines of head to show before and after each hunk beyond the
// hunk's own context. Extra lines that two hunks would both show are shown once, after the
// first. head is ignored for a deleted or binary file, which has no new side to show. The
// output ends with a newline and depends on nothing but the arguments.
func Render(f File, head []string, extra int) string {
	var b strings.Builder
	b.WriteString("### ")
	b.WriteString(displayPath(f.Path()))
	b.WriteString(" (")
	b.WriteString(Describe(f))
	b.WriteString(")\n")
	if f.Binary {
		return b.String()
	}
	if f.Status == Deleted {
		head = nil
	}
	// More extra lines than head has changes nothing, and the bound keeps the arithmetic on
	// line numbers far from overflow.
	extra = max(0, min(extra, len(head)))

	before, after := extraRanges(f.Hunks, len(head), extra)
	w := columnWidth(f.Hunks, after)
	for i, h := range f.Hunks {
		writeHunkHeader(&b, h)
		writeExtra(&b, head, before[i], w)
		lastOld, lastNew := -1, -1
		for j, l := range h.Lines {
			if l.Op != Add {
				lastOld = j
			}
			if l.Op != Delete {
				lastNew = j
			}
		}
		for j, l := range h.Lines {
			writeNumbers(&b, l.Old, l.New, w)
			b.WriteString(" | ")
			b.WriteByte(byte(l.Op))
			b.WriteString(l.Text)
			b.WriteByte('\n')
			if h.NoNewlineOld && j == lastOld || h.NoNewlineNew && j == lastNew {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
		writeExtra(&b, head, after[i], w)
	}
	return b.String()
}

// RenderAll renders files in order, separated by a blank line. head returns the new content of
// a path; it may be nil, and it is not asked for deleted or binary files.
func RenderAll(files []File, head func(path string) []string, extra int) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = Render(f, HeadOf(f, head), extra)
	}
	return strings.Join(parts, "\n")
}

// HeadOf asks head for the new content of f, or returns nil when f has none to ask for. It is
// the rule RenderAll uses, exported so that a caller estimating a render asks for the same
// content.
func HeadOf(f File, head func(path string) []string) []string {
	if head == nil || f.Binary || f.Status == Deleted {
		return nil
	}
	return head(f.Path())
}

// SplitLines splits file content into the lines Render expects as head: without their "\n",
// and without the empty string that splitting on "\n" leaves after a final newline, which is
// not a line of the file.
func SplitLines(content []byte) []string {
	if len(content) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(content), "\n")
	return strings.Split(s, "\n")
}

// lineRange is an inclusive range of new-side line numbers; it is empty when lo > hi.
type lineRange struct{ lo, hi int }

func (r lineRange) empty() bool { return r.lo > r.hi }

// newSpan is the range of new-side lines a hunk shows. A hunk with no new lines sits just
// after its start line, so its range is empty but still has a place.
func newSpan(h Hunk) lineRange {
	if h.NewLines == 0 {
		return lineRange{h.NewStart + 1, h.NewStart}
	}
	return lineRange{h.NewStart, h.NewStart + h.NewLines - 1}
}

// extraRanges decides which lines of a head of n lines to show before and after each hunk.
func extraRanges(hunks []Hunk, n, extra int) (before, after []lineRange) {
	before = make([]lineRange, len(hunks))
	after = make([]lineRange, len(hunks))
	shown := 0 // the last new-side line already shown, by a hunk or as extra context
	for i, h := range hunks {
		s := newSpan(h)
		before[i] = lineRange{max(s.lo-extra, shown+1, 1), min(s.lo-1, n)}
		hi := s.hi + extra
		if i+1 < len(hunks) {
			// When the gap to the next hunk is no wider than both extras together, show all of
			// it here rather than split it around the next hunk's header.
			if next := newSpan(hunks[i+1]); next.lo-extra <= hi+1 {
				hi = next.lo - 1
			}
		}
		after[i] = lineRange{max(s.hi+1, 1), min(hi, n)}
		shown = max(shown, s.hi)
		if !after[i].empty() {
			shown = max(shown, after[i].hi)
		}
	}
	return before, after
}

func columnWidth(hunks []Hunk, after []lineRange) int {
	largest := 0
	for i, h := range hunks {
		// The numbers printed are the lines' own; for a parsed hunk, the last line of each side
		// is the largest, but a hand-built one need not be.
		for _, l := range h.Lines {
			largest = max(largest, l.Old, l.New)
		}
		if !after[i].empty() {
			largest = max(largest, after[i].hi)
		}
	}
	return max(minColumn, len(strconv.Itoa(largest))+1)
}

func writeHunkHeader(b *strings.Builder, h Hunk) {
	b.WriteString("@@ -")
	b.WriteString(headerRange(h.OldStart, h.OldLines))
	b.WriteString(" +")
	b.WriteString(headerRange(h.NewStart, h.NewLines))
	b.WriteString(" @@")
	if h.Section != "" {
		b.WriteByte(' ')
		b.WriteString(h.Section)
	}
	b.WriteByte('\n')
}

// headerRange writes a range as git does, leaving out a count of one.
func headerRange(start, lines int) string {
	if lines == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(lines)
}

func writeExtra(b *strings.Builder, head []string, r lineRange, w int) {
	for n := r.lo; n <= r.hi; n++ {
		writeNumbers(b, 0, n, w)
		b.WriteString(" :  ")
		b.WriteString(head[n-1])
		b.WriteByte('\n')
	}
}

func writeNumbers(b *strings.Builder, oldN, newN, w int) {
	for _, n := range [2]int{oldN, newN} {
		s := ""
		if n > 0 {
			s = strconv.Itoa(n)
		}
		b.WriteString(strings.Repeat(" ", max(0, w-len(s))))
		b.WriteString(s)
	}
}

// Describe says what happened to a file, as Render shows it in the parentheses after its
// path: "modified", "added", "renamed from old.go", "deleted, binary, not shown".
func Describe(f File) string {
	var parts []string
	switch f.Status {
	case Added:
		parts = append(parts, "added")
	case Deleted:
		parts = append(parts, "deleted")
	case Renamed:
		parts = append(parts, "renamed from "+displayPath(f.OldPath))
	case Copied:
		parts = append(parts, "copied from "+displayPath(f.OldPath))
	}
	if f.OldMode != 0 && f.NewMode != 0 && f.OldMode != f.NewMode {
		parts = append(parts, fmt.Sprintf("mode %o -> %o", uint32(f.OldMode), uint32(f.NewMode)))
	}
	if f.Binary {
		parts = append(parts, "binary, not shown")
	}
	if len(parts) == 0 {
		return "modified"
	}
	return strings.Join(parts, ", ")
}

// displayPath quotes a path only when it holds a control character: a newline or tab in a
// path would otherwise break the line-oriented format. Spaces and non-ASCII letters stay as
// they are, as the model will cite them.
func displayPath(p string) string {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}
