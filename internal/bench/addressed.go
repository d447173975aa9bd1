package bench

import (
	"context"
	"fmt"
)

// CommentRange is the first and last line an inline comment is about, at the commit it was
// made on: startLine..line for a range whose start is on the comment's side, else line alone.
// A comment on the whole file (line 0) is 0, 0.
func CommentRange(line, startLine int, side, startSide string) (first, last int) {
	// A range whose start is on the other side is not a range of one file version.
	if line > 0 && startLine > 0 && startLine < line && (startSide == "" || startSide == side) {
		return startLine, line
	}
	return line, line
}

// Changes tells whether the code inline comments are about changed between the commit each
// was made on and Merge, a merged pull request's merged head: the rule Import applies to
// truth items and council persona's harvest to a maintainer's comments. Each commit is
// fetched into Git once and each file's diff read once.
type Changes struct {
	Git   GitRepo
	Merge string

	fetched map[string]error
	diffs   map[[2]string]FileChange
}

// Addressed reports whether the change from commit to c.Merge addressed a comment made at
// commit on path, lines first..last (CommentRange) of side: for a RIGHT comment, a hunk
// rewrites one of its lines or inserts between two of them; for a LEFT comment or one on the
// whole file (first 0), the file changed at all; a file deleted or renamed away changed in
// full. An error means a commit or the diff cannot be read.
func (c *Changes) Addressed(ctx context.Context, commit, path, side string, first, last int) (bool, error) {
	if commit == c.Merge {
		return false, nil
	}
	for _, sha := range []string{commit, c.Merge} {
		if err := c.fetch(ctx, sha); err != nil {
			return false, err
		}
	}
	key := [2]string{commit, path}
	fc, ok := c.diffs[key]
	if !ok {
		var err error
		if fc, err = c.Git.ChangedLines(ctx, commit, c.Merge, path); err != nil {
			return false, fmt.Errorf("compare %s at %s and %s: %w", path, shortCommit(commit), shortCommit(c.Merge), err)
		}
		if c.diffs == nil {
			c.diffs = map[[2]string]FileChange{}
		}
		c.diffs[key] = fc
	}
	if side == "LEFT" || first == 0 {
		return fc.Changed(), nil
	}
	return fc.Touches(first, last), nil
}

func (c *Changes) fetch(ctx context.Context, sha string) error {
	if err, ok := c.fetched[sha]; ok {
		return err
	}
	err := c.Git.Fetch(ctx, sha)
	if err != nil {
		err = fmt.Errorf("commit %s cannot be fetched: %w", shortCommit(sha), err)
	}
	if c.fetched == nil {
		c.fetched = map[string]error{}
	}
	c.fetched[sha] = err
	return err
}
