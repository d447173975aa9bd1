package tools

import (
	"context"
	"fmt"
	"strings"
)

type gitLogInput struct {
	Path string `json:"path"`
	Max  int    `json:"max"`
}

// gitLog lists the commits touching a path at head. The path is only checked, not looked up:
// a file deleted at head still has a history, and a log shows commit metadata, never content,
// so a symbolic link's or a submodule's history reveals nothing outside the repository.
func (b *Box) gitLog(ctx context.Context, in gitLogInput, budget int, rec *Call) (string, error) {
	key, rev, err := b.rev("head")
	if err != nil {
		return "", err
	}
	rec.Rev, rec.Path = key, in.Path
	if in.Path == "" {
		return "", refuse(`path is required ("." for the whole repository)`)
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	rec.Path = p
	n := in.Max
	switch {
	case n < 0:
		return "", refuse("max must be between 1 and %d", MaxLogEntries)
	case n == 0:
		n = defaultLog
	case n > MaxLogEntries:
		n = MaxLogEntries
	}
	entries, err := b.repo.Log(ctx, p, rev, n)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return fmt.Sprintf("no commits touch %s at %s", p, key), nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "latest %d commits touching %s at %s (newest first):\n", len(entries), p, key)
	for _, e := range entries {
		date := e.Date
		if len(date) > 10 {
			date = date[:10]
		}
		fmt.Fprintf(&sb, "%s %s %s: %s\n", shortSHA(e.SHA), date, e.Author, e.Subject)
	}
	out, truncated := cut(sb.String(), budget)
	rec.Truncated = truncated
	return out, nil
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
