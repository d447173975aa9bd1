package tools

import (
	"context"
	"fmt"
	"strings"
)

type listFilesInput struct {
	Dir string `json:"dir"`
	Rev string `json:"rev"`
}

func (b *Box) listFiles(ctx context.Context, in listFilesInput, budget int, rec *Call) (string, error) {
	key, rev, err := b.rev(in.Rev)
	if err != nil {
		return "", err
	}
	rec.Rev, rec.Path = key, in.Dir
	dir := "."
	if in.Dir != "" {
		if dir, err = cleanPath(in.Dir); err != nil {
			return "", err
		}
	}
	rec.Path = dir
	if dir != "." {
		e, err := b.confine(ctx, key, rev, dir)
		if err != nil {
			return "", err
		}
		if e.Type != "tree" {
			return "", refuse("%s is a file at %s, not a directory; use read_file to read it", dir, key)
		}
	}
	files, err := b.repo.ListFiles(ctx, rev, dir)
	if err != nil {
		return "", err
	}
	where := "the repository"
	if dir != "." {
		where = dir
	}
	if len(files) == 0 {
		return fmt.Sprintf("no files under %s at %s", where, key), nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d files under %s at %s:\n", len(files), where, key)
	for _, f := range files[:min(len(files), MaxListed)] {
		sb.WriteString(f)
		sb.WriteByte('\n')
	}
	if len(files) > MaxListed {
		fmt.Fprintf(&sb, "[%d more files not shown; list a subdirectory]\n", len(files)-MaxListed)
		rec.Truncated = true
	}
	out, cutShort := cut(sb.String(), budget)
	rec.Truncated = rec.Truncated || cutShort
	return out, nil
}
