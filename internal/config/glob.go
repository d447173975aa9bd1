package config

import (
	"fmt"
	"path"
	"strings"
)

// Match reports whether name, a slash-separated path relative to the repository root, is
// selected: it matches an Include pattern and no Exclude pattern.
func (p Paths) Match(name string) bool {
	included := false
	for _, pat := range p.Include {
		if Match(pat, name) {
			included = true
			break
		}
	}
	if !included {
		return false
	}
	for _, pat := range p.Exclude {
		if Match(pat, name) {
			return false
		}
	}
	return true
}

// Match reports whether name matches pattern. Both are slash-separated; each pattern segment
// is a path.Match pattern, and a "**" segment matches zero or more whole segments. A pattern
// without "**" matches only at its own depth: "*.go" matches "main.go", not "cmd/main.go";
// write "**/*.go" for every Go file. A malformed pattern matches nothing (Parse rejects it).
func Match(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for i := range len(name) + 1 {
				if matchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// checkGlob validates a pattern for Match.
func checkGlob(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("empty pattern")
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "**" {
			continue
		}
		if seg == "" {
			return fmt.Errorf("%q has an empty path segment (a leading, trailing or double '/')", pattern)
		}
		if strings.Contains(seg, "**") {
			return fmt.Errorf("%q: \"**\" must be a whole path segment (\"a/**/b\", not \"a**\")", pattern)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%q is not a valid glob: %w (segment %q)", pattern, err, seg)
		}
	}
	return nil
}
