package diff

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// maxLine bounds the line numbers a hunk header may claim. No real file comes near it; the
// bound exists so that start+count arithmetic on a hostile header cannot overflow and so that
// rendering never has to pad a twenty-digit number.
const maxLine = 1<<31 - 1

// Parse reads the output of
//
//	git diff --no-color --no-ext-diff --find-renames --find-copies --full-index -U3 base head
//
// (with or without --binary) into one File per file header, in patch order. Paths are
// unquoted whether or not git quoted them (core.quotePath). Every line of every hunk is
// numbered on both sides. An empty or all-blank patch is zero files and no error; input that
// is not empty but holds no file header at all is an error, because reading it as "nothing
// changed" would silently review nothing.
func Parse(patch []byte) ([]File, error) {
	if len(bytes.TrimSpace(patch)) == 0 {
		return nil, nil
	}
	// go-gitdiff reads a final line without "\n" as a line that lacks its newline in the file
	// itself. A patch cut short of its own last newline (a trimmed string, a pasted file) says
	// nothing about the file, so give it the newline it lost.
	if patch[len(patch)-1] != '\n' {
		patch = append(patch[:len(patch):len(patch)], '\n')
	}

	parsed, preamble, err := gitdiff.Parse(bytes.NewReader(patch))
	if err != nil {
		return nil, fmt.Errorf("parse diff: %w", err)
	}
	if len(parsed) == 0 && strings.TrimSpace(preamble) != "" {
		return nil, fmt.Errorf("parse diff: %w", errNoFileHeader)
	}

	files := make([]File, 0, len(parsed))
	for _, gf := range parsed {
		f, err := convertFile(gf)
		if err != nil {
			return nil, fmt.Errorf("parse diff: %w", err)
		}
		files = append(files, f)
	}
	return files, nil
}

var errNoFileHeader = errors.New("no \"diff --git\" file header found")

func convertFile(gf *gitdiff.File) (File, error) {
	f := File{
		OldPath: gf.OldName,
		NewPath: gf.NewName,
		Binary:  gf.IsBinary,
		OldMode: fs.FileMode(gf.OldMode),
		NewMode: fs.FileMode(gf.NewMode),
	}
	switch {
	case gf.IsNew && gf.IsDelete:
		return File{}, fmt.Errorf("read file header of %s: file is both created and deleted", f.Path())
	case gf.IsNew:
		f.Status, f.OldPath, f.OldMode = Added, "", 0
	case gf.IsDelete:
		f.Status, f.NewPath, f.NewMode = Deleted, "", 0
	case gf.IsRename:
		f.Status = Renamed
	case gf.IsCopy:
		f.Status = Copied
	default:
		f.Status = Modified
	}
	// When the mode does not change, git prints it once, on the "index" line, and go-gitdiff
	// files it under the old mode. It is the mode of both sides.
	if f.Status != Added && f.Status != Deleted && f.NewMode == 0 {
		f.NewMode = f.OldMode
	}
	if f.Path() == "" {
		return File{}, errors.New("read file header: no path on either side")
	}

	f.Hunks = make([]Hunk, 0, len(gf.TextFragments))
	for i, frag := range gf.TextFragments {
		h, err := convertHunk(frag)
		if err != nil {
			return File{}, fmt.Errorf("number hunk %d of %s: %w", i+1, f.Path(), err)
		}
		if i > 0 {
			prev := f.Hunks[i-1]
			if prev.NoNewlineOld || prev.NoNewlineNew {
				return File{}, fmt.Errorf("number hunk %d of %s: a hunk follows the end of the file", i+1, f.Path())
			}
			if !after(prev.OldStart, prev.OldLines, h.OldStart, h.OldLines) ||
				!after(prev.NewStart, prev.NewLines, h.NewStart, h.NewLines) {
				return File{}, fmt.Errorf("number hunk %d of %s: it overlaps or precedes the hunk before it", i+1, f.Path())
			}
		}
		f.Hunks = append(f.Hunks, h)
		f.Added += h.added()
		f.Deleted += h.deleted()
	}
	if len(f.Hunks) == 0 {
		// A nil slice keeps "no hunks" equal to the zero File in comparisons.
		f.Hunks = nil
	}
	return f, nil
}

// after reports whether the range (start, lines) of a hunk begins after the end of the range
// of the previous one, on one side. A range of zero lines sits just after its start line.
func after(prevStart, prevLines, start, lines int) bool {
	prevLast := prevStart + prevLines - 1
	first := start
	if lines == 0 {
		first = start + 1
	}
	return first > prevLast
}

func convertHunk(frag *gitdiff.TextFragment) (Hunk, error) {
	h := Hunk{Section: frag.Comment}
	var err error
	if h.OldStart, h.OldLines, err = checkRange("old", frag.OldPosition, frag.OldLines); err != nil {
		return Hunk{}, err
	}
	if h.NewStart, h.NewLines, err = checkRange("new", frag.NewPosition, frag.NewLines); err != nil {
		return Hunk{}, err
	}

	h.Lines = make([]Line, 0, len(frag.Lines))
	oldNo, newNo := h.OldStart, h.NewStart
	// Where each side's last line is, to check that "\ No newline" only follows a last line.
	lastOld, lastNew, noEOLOld, noEOLNew := -1, -1, -1, -1
	for i, gl := range frag.Lines {
		text, hasEOL := strings.CutSuffix(gl.Line, "\n")
		var l Line
		switch gl.Op {
		case gitdiff.OpContext:
			l = Line{Op: Context, Text: text, Old: oldNo, New: newNo}
			oldNo++
			newNo++
			lastOld, lastNew = i, i
			if !hasEOL {
				noEOLOld, noEOLNew = i, i
			}
		case gitdiff.OpDelete:
			l = Line{Op: Delete, Text: text, Old: oldNo}
			oldNo++
			lastOld = i
			if !hasEOL {
				noEOLOld = i
			}
		case gitdiff.OpAdd:
			l = Line{Op: Add, Text: text, New: newNo}
			newNo++
			lastNew = i
			if !hasEOL {
				noEOLNew = i
			}
		default:
			return Hunk{}, fmt.Errorf("unknown line operation %v", gl.Op)
		}
		h.Lines = append(h.Lines, l)
	}

	// go-gitdiff checks the counts already; checking again keeps the numbering above honest
	// even if that ever changes, since the hunk index trusts it.
	if oldNo-h.OldStart != h.OldLines || newNo-h.NewStart != h.NewLines {
		return Hunk{}, fmt.Errorf("header says %d old and %d new lines, hunk has %d and %d",
			h.OldLines, h.NewLines, oldNo-h.OldStart, newNo-h.NewStart)
	}
	if noEOLOld >= 0 && noEOLOld != lastOld || noEOLNew >= 0 && noEOLNew != lastNew {
		return Hunk{}, errors.New("\"\\ No newline at end of file\" after a line that is not the last")
	}
	h.NoNewlineOld, h.NoNewlineNew = noEOLOld >= 0, noEOLNew >= 0
	return h, nil
}

// checkRange validates one side of a hunk header. A start of 0 is only valid for an empty
// side (a created or emptied file); line numbers otherwise start at 1.
func checkRange(side string, start, lines int64) (int, int, error) {
	switch {
	case start < 0 || lines < 0 || start > maxLine || lines > maxLine || start+lines > maxLine:
		return 0, 0, fmt.Errorf("%s range %d,%d is out of bounds", side, start, lines)
	case start == 0 && lines > 0:
		return 0, 0, fmt.Errorf("%s range %d,%d starts at line 0", side, start, lines)
	}
	return int(start), int(lines), nil
}

func (h Hunk) added() int {
	n := 0
	for _, l := range h.Lines {
		if l.Op == Add {
			n++
		}
	}
	return n
}

func (h Hunk) deleted() int {
	n := 0
	for _, l := range h.Lines {
		if l.Op == Delete {
			n++
		}
	}
	return n
}
