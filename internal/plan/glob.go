package plan

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
// top-level files. The only error is path.ErrBadPattern, for a malformed pattern.
func Match(pattern, name string) (bool, error) {
	if err := ValidatePattern(pattern); err != nil {
		return false, err
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/")), nil
}

// ValidatePattern returns an error when pattern is malformed. Make treats a malformed pattern
// as matching nothing, so configuration should be validated with this before planning.
func ValidatePattern(pattern string) error {
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "**" {
			continue
		}
		// path.Match checks the whole pattern even when the name does not match.
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("check pattern %q: %w", pattern, err)
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
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
