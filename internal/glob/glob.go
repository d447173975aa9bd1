// Package glob matches slash-separated paths against patterns in which a "**" segment stands
// for any number of directories. It is pure: it never touches the file system, and a path is
// only a string to it.
package glob

import (
	"fmt"
	"path"
	"strings"
)

// Match reports whether the slash-separated path name matches pattern. A pattern segment that
// is exactly "**" matches any number of path segments, none included; any other segment is
// matched against one path segment with path.Match ("*", "?", "[a-z]", "\" escapes), so "*"
// never crosses a "/". This is the doublestar convention: "**/*.go" matches "main.go" and
// "a/b/main.go", "docs/**" matches "docs" and everything under it, and "*.go" matches only
// top-level files.
//
// A pattern path.Match calls malformed matches nothing; Validate reports it, and more.
func Match(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// Validate returns an error when pattern is malformed, or is well formed but almost surely not
// what was meant: empty, with an empty segment, or with "**" inside a segment (where it is two
// "*" and so stays within the segment). Configuration is checked with it so that Match, which
// cannot fail, is only given patterns that mean what they say.
func Validate(pattern string) error {
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
		// path.Match checks the whole pattern even when the name does not match.
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%q is not a valid glob: %w (segment %q)", pattern, err, seg)
		}
	}
	return nil
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			// Consecutive "**" match what one does; collapsing them spares the search from
			// trying the same splits once per extra "**".
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range len(name) + 1 {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		// Every segment of a pattern that matches has been through here, so failing on a
		// malformed segment makes the whole pattern match nothing.
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
