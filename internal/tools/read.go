package tools

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

type readFileInput struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Rev       string `json:"rev"`
}

func (b *Box) readFile(ctx context.Context, in readFileInput, budget int, rec *Call) (string, error) {
	key, rev, err := b.rev(in.Rev)
	if err != nil {
		return "", err
	}
	rec.Rev, rec.Path, rec.Start, rec.End = key, in.Path, in.StartLine, in.EndLine
	if in.Path == "" {
		return "", refuse("path is required")
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	rec.Path = p
	switch {
	case in.StartLine < 0 || in.EndLine < 0:
		return "", refuse("start_line and end_line count from 1")
	case in.EndLine > 0 && in.StartLine > in.EndLine:
		return "", refuse("start_line %d is after end_line %d", in.StartLine, in.EndLine)
	case p == ".":
		return "", refuse("the repository root is a directory; use list_files to see its files")
	}
	e, err := b.confine(ctx, key, rev, p)
	if err != nil {
		return "", err
	}
	if e.Type == "tree" {
		return "", refuse("%s is a directory at %s; use list_files with dir %q to see its files", p, key, p)
	}
	ranged := in.StartLine > 0 || in.EndLine > 0
	if !ranged && e.Size > int64(b.l.MaxFileBytes) {
		return "", refuse("%s is %d bytes at %s, over the %d-byte limit for a whole file; ask for a line range with start_line and end_line (for example 1 to 200), or grep it first",
			p, e.Size, key, b.l.MaxFileBytes)
	}
	data, err := b.repo.ReadFile(ctx, rev, p)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return "", refuse("%s is a binary file at %s; its content is not shown", p, key)
	}
	if len(data) == 0 {
		return fmt.Sprintf("%s at %s is empty.", p, key), nil
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	start, end := max(in.StartLine, 1), len(lines)
	if in.EndLine > 0 {
		end = min(in.EndLine, len(lines))
	}
	if start > len(lines) {
		return "", refuse("start_line %d is past the end of %s, which has %d lines at %s", start, p, len(lines), key)
	}
	rec.Start, rec.End = start, end

	var sb strings.Builder
	fmt.Fprintf(&sb, "%s at %s, lines %d-%d of %d:\n", p, key, start, end, len(lines))
	width := max(4, len(strconv.Itoa(end)))
	for i := start; i <= end; i++ {
		fmt.Fprintf(&sb, "%*d | %s\n", width, i, lines[i-1])
	}
	out, truncated := cut(sb.String(), budget)
	rec.Truncated = truncated
	return out, nil
}
