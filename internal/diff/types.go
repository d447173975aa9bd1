// Package diff parses a unified git patch into files and hunks, indexes the hunks so that
// "is (path, side, line) inside a hunk" is answered in O(log n), and renders hunks with
// explicit line numbers for a model. It is pure: bytes in, values out; no git, no files.
package diff

import "io/fs"

// Status is what happened to a file in the change.
type Status string

// File statuses.
const (
	Added    Status = "added"
	Deleted  Status = "deleted"
	Modified Status = "modified"
	Renamed  Status = "renamed"
	Copied   Status = "copied"
)

// Op is the kind of a diff line.
type Op byte

// Line kinds, as in a unified diff.
const (
	Context Op = ' '
	Add     Op = '+'
	Delete  Op = '-'
)

// Line is one line of a hunk. Old is its line number in the old file (0 for an added line),
// New its number in the new file (0 for a deleted line). Text has no trailing newline.
type Line struct {
	Op   Op
	Text string
	Old  int
	New  int
}

// Hunk is one @@ block.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Section            string // the text after the second @@ (often the enclosing function)
	Lines              []Line
	NoNewlineOld       bool // "\ No newline at end of file" after the old side's last line
	NoNewlineNew       bool
}

// File is one file of a patch.
type File struct {
	OldPath string // "" for an added file
	NewPath string // "" for a deleted file
	Status  Status
	Binary  bool
	OldMode fs.FileMode // 0 when git gave none
	NewMode fs.FileMode
	Hunks   []Hunk
	Added   int // number of added lines
	Deleted int // number of deleted lines
}

// Path is the path a reviewer cites: the new path, or the old one for a deleted file.
func (f File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}
