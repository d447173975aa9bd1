package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

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
	glob, err := pathspec(in.PathGlob)
	if err != nil {
		return "", err
	}

	gctx, cancel := context.WithTimeout(ctx, b.l.GrepTimeout)
	defer cancel()
	matches, truncated, err := b.repo.Grep(gctx, rev, in.Pattern, glob, MaxGrepMatches)
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
	where := "at " + key
	if in.PathGlob != "" {
		where = fmt.Sprintf("in %s at %s", in.PathGlob, key)
	}
	if len(matches) == 0 {
		return fmt.Sprintf("no matches for %s %s", in.Pattern, where), nil
	}
	var sb strings.Builder
	for _, m := range matches {
		text := m.Text
		if len(text) > maxGrepLine {
			k := maxGrepLine
			for k > 0 && !utf8.RuneStart(text[k]) {
				k--
			}
			text = text[:k] + " [line cut]"
		}
		fmt.Fprintf(&sb, "%s:%d: %s\n", m.Path, m.Line, text)
	}
	if truncated {
		fmt.Fprintf(&sb, "[stopped at %d matches; narrow the pattern or path_glob]\n", len(matches))
	}
	out, cutShort := cut(sb.String(), budget)
	rec.Truncated = truncated || cutShort
	return out, nil
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

// pathspec turns the model's glob into the git glob source.Grep takes. A glob without a slash
// that has a wildcard is a file name pattern for every directory ("*.go" is "**/*.go"); any
// other is matched from the repository root, where a directory's path matches everything under
// it ("internal/tools", "Makefile", "internal/**/*_test.go").
func pathspec(glob string) (string, error) {
	if glob == "" {
		return "", nil
	}
	g, err := cleanPath(glob)
	if err != nil {
		return "", err
	}
	if g == "." {
		return "", nil
	}
	if !strings.Contains(g, "/") && strings.ContainsAny(g, "*?[") {
		g = "**/" + g
	}
	return g, nil
}
