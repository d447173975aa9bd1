package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/council-dev/council/internal/source"
)

type grepInput struct {
	Pattern  string `json:"pattern"`
	PathGlob string `json:"path_glob"`
	Rev      string `json:"rev"`
}

const maxPatternLen = 1000

func (b *Box) grep(ctx context.Context, in grepInput, budget int, rec *Call) (string, error) {
	key, rev, err := b.rev(in.Rev)
	if err != nil {
		return "", err
	}
	rec.Rev, rec.Path = key, in.PathGlob
	if err := checkPattern(in.Pattern); err != nil {
		return "", err
	}
	globs, err := pathspecs(in.PathGlob)
	if err != nil {
		return "", err
	}

	gctx, cancel := context.WithTimeout(ctx, b.l.GrepTimeout)
	defer cancel()
	matches, truncated, err := b.repo.Grep(gctx, rev, in.Pattern, globs, MaxGrepMatches)
	switch {
	case err != nil && ctx.Err() != nil:
		return "", refuse("grep cancelled: %v", ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return "", refuse("pattern took too long (over %s); simplify it: avoid nested repetition like (a+)+, or narrow path_glob", b.l.GrepTimeout)
	case err != nil:
		var gitErr *source.GitError
		if errors.As(err, &gitErr) {
			return "", refuse("git grep refused the pattern: %s", strings.TrimSpace(gitErr.Stderr))
		}
		return "", err
	}
	rec.Truncated = truncated
	if len(matches) == 0 {
		return b.noMatches(ctx, key, rev, in, globs), nil
	}
	var sb strings.Builder
	for _, m := range matches {
		fmt.Fprintf(&sb, "%s:%d: %s\n", m.Path, m.Line, cutLine(m.Text))
	}
	if truncated {
		fmt.Fprintf(&sb, "[stopped at %d matches; narrow the pattern or path_glob]\n", len(matches))
	}
	out, cutShort := cut(sb.String(), budget)
	rec.Truncated = truncated || cutShort
	return out, nil
}

// noMatches is grep's answer when no line matched: it tells a path_glob that matches no file
// (a mistyped or misplaced path) from one whose files lack the pattern, and for the first
// suggests the files and directories named like the glob's last element.
func (b *Box) noMatches(ctx context.Context, key, rev string, in grepInput, globs []string) string {
	if len(globs) == 0 {
		return fmt.Sprintf("no matches for %s at %s", in.Pattern, key)
	}
	files, err := b.repo.Files(ctx, rev, globs)
	switch {
	case err != nil: // the answer loses a detail, not its truth
		return fmt.Sprintf("no matches for %s in %s at %s", in.Pattern, in.PathGlob, key)
	case len(files) > 0:
		return fmt.Sprintf("no matches for %s in %s at %s (%d %s path_glob)", in.Pattern, in.PathGlob, key, len(files), plural(len(files), "file matches", "files match"))
	}
	rule := "a glob without a slash matches names at any depth"
	if len(globs) == 1 {
		rule = "a glob with a slash is matched from the repository root"
	}
	name := path.Base(strings.TrimRight(in.PathGlob, "/"))
	return fmt.Sprintf("no file matches path_glob %s at %s (%s)%s", in.PathGlob, key, rule,
		b.suggest(ctx, rev, name, "; list_files shows the files that exist"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkPattern refuses a pattern Go's regexp cannot compile, with Go's message, and the
// Perl-style escapes Go accepts but git grep -E (POSIX extended) reads differently: \d would
// silently match the letter d, and \1 is a backreference, the one feature that makes a POSIX
// engine exponential.
func checkPattern(p string) error {
	switch {
	case p == "":
		return refuse("pattern is required")
	case len(p) > maxPatternLen:
		return refuse("pattern is longer than %d bytes", maxPatternLen)
	case strings.ContainsRune(p, 0):
		return refuse("pattern contains a NUL byte")
	}
	if _, err := regexp.Compile(p); err != nil {
		return refuse("pattern does not compile: %v", err)
	}
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			c := p[i]
			switch {
			case c >= '0' && c <= '9':
				return refuse(`pattern uses \%c: backreferences and octal escapes are not supported`, c)
			case strings.IndexByte("dDpPQEAztnrfvx", c) >= 0:
				return refuse(`pattern uses \%c, which POSIX extended regular expressions (git grep -E) do not have; use classes like [0-9], [[:space:]], [[:alpha:]] and \s \w \b instead`, c)
			}
		case p[i] == '(' && i+1 < len(p) && p[i+1] == '?':
			return refuse("pattern uses (?...), which POSIX extended regular expressions (git grep -E) do not have; write groups as (...) and spell out both cases, like [Ee]rror")
		}
	}
	return nil
}

// pathspecs turns the model's glob into the git globs source.Grep takes, gitignore's way: a
// glob without a slash (but a trailing one) matches a file or directory name at any depth,
// and everything under a directory it matches ("helper.go", "*.go", "testdata"); one with a
// slash is matched from the repository root, where a glob with a wildcard must match the
// whole path ("internal/**/*_test.go", "cmd/*.go") and one without matches that path and
// everything under it ("internal/tools", "./Makefile").
func pathspecs(glob string) ([]string, error) {
	if glob == "" {
		return nil, nil
	}
	g, err := cleanPath(glob)
	if err != nil {
		return nil, err
	}
	switch {
	case g == ".":
		return nil, nil
	case strings.Contains(strings.TrimRight(glob, "/"), "/"):
		return []string{g}, nil
	}
	return []string{"**/" + g, "**/" + g + "/**"}, nil
}
