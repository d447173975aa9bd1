package codecontext

import (
	"bytes"
	"cmp"
	"errors"
	"path"
	"regexp"
	"slices"
	"strings"
)

// maxIncludes caps the headers followed from one C or C++ file, its own includes and theirs.
const maxIncludes = 16

// includeRe matches an #include directive: the delimiter and the name.
var includeRe = regexp.MustCompile(`^\s*#\s*include\s*([<"])([^>"]+)[>"]`)

// include is one #include directive.
type include struct {
	name   string
	quoted bool // "name" rather than <name>
}

func includesOf(lines []string) []include {
	var out []include
	for _, l := range lines {
		if !strings.Contains(l, "include") {
			continue
		}
		if m := includeRe.FindStringSubmatch(l); m != nil {
			out = append(out, include{name: strings.TrimSpace(m[2]), quoted: m[1] == `"`})
		}
	}
	return out
}

// includes lists the headers of the repository a C or C++ file includes, then those they
// include, breadth first, at most maxIncludes, each read once (a search read). A header the
// repository does not hold (a system header) is skipped.
func (b *builder) includes(f *file) ([]string, error) {
	if f.includesDone {
		return f.includes, nil
	}
	f.includesDone = true
	seen := map[string]bool{f.path: true}
	queue := []*file{f}
	for len(queue) > 0 && len(f.includes) < maxIncludes {
		cur := queue[0]
		queue = queue[1:]
		for _, inc := range includesOf(cur.lines) {
			p, err := b.resolveInclude(cur.path, inc)
			if err != nil {
				return nil, err
			}
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			h, err := b.load(SideHead, p, true)
			if errors.Is(err, errReadLimit) {
				return f.includes, nil
			}
			if err != nil {
				return nil, err
			}
			f.includes = append(f.includes, p)
			if h.skip == "" {
				queue = append(queue, h)
			}
			if len(f.includes) >= maxIncludes {
				break
			}
		}
	}
	return f.includes, nil
}

// resolveInclude finds the file of the repository an #include in from names, as a compiler
// with the repository's include directories would, without knowing them: a quoted name
// relative to the including file's directory first; then, for either kind, a file whose path
// ends with the name (include/conntrack_types.h for "conntrack_types.h", for
// <bpf/helpers.h> lib/bpf/helpers.h); then, for a quoted name, a file of the same base name.
// Among several, the one nearest to the including file wins, then one in an include
// directory, then the shallowest. "" when none is found.
func (b *builder) resolveInclude(from string, inc include) (string, error) {
	all, err := b.listDir(".")
	if err != nil || inc.name == "" || strings.HasPrefix(inc.name, "/") {
		return "", err
	}
	if b.allFiles == nil {
		b.allFiles = make(map[string]bool, len(all))
		for _, p := range all {
			b.allFiles[p] = true
		}
	}
	dir := path.Dir(from)
	if inc.quoted {
		if p := path.Join(dir, inc.name); !strings.HasPrefix(p, "../") && b.allFiles[p] {
			return p, nil
		}
	}
	name := path.Clean(inc.name)
	for strings.HasPrefix(name, "../") {
		name = strings.TrimPrefix(name, "../")
	}
	var cands []string
	for _, p := range all {
		if p == name || strings.HasSuffix(p, "/"+name) {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 && inc.quoted && strings.Contains(name, "/") {
		base := path.Base(name)
		for _, p := range all {
			if path.Base(p) == base {
				cands = append(cands, p)
			}
		}
	}
	if len(cands) == 0 {
		return "", nil
	}
	slices.SortFunc(cands, func(x, y string) int {
		return cmp.Or(cmp.Compare(commonDirs(y, dir), commonDirs(x, dir)), cmp.Compare(includeDirRank(x), includeDirRank(y)),
			cmp.Compare(strings.Count(x, "/"), strings.Count(y, "/")), cmp.Compare(x, y))
	})
	return cands[0], nil
}

// includeDirRank is 0 for a header in a directory named as include directories are, 1 for
// any other: of two headers equally near, the one in include/ is the one a build includes.
func includeDirRank(p string) int {
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch strings.ToLower(d) {
		case "include", "includes", "inc", "headers", "hdr", "hdrs":
			return 0
		}
	}
	return 1
}

// inIncludes looks for a C or C++ name in the headers the use's file includes. Every name is
// looked up there, not only those searchElsewhere would pick: a lower-case struct or typedef
// is what a header most often defines.
func (b *builder) inIncludes(lk *lookup) error {
	use := b.files[fileKey{SideHead, lk.key.path}]
	incs, err := b.includes(use)
	if err != nil {
		return err
	}
	name := []byte(lk.key.name)
	for _, p := range incs {
		f := b.files[fileKey{SideHead, p}]
		if f == nil || f.skip != "" || !bytes.Contains(f.data, name) {
			continue
		}
		loc := elsewhere
		if path.Dir(p) == path.Dir(lk.key.path) {
			loc = sameDir
		}
		if lk.pick(p, b.outline(f), loc) {
			return nil
		}
	}
	return nil
}
