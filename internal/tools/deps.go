package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// read_dependency reads a Go dependency's source at the version the go.mod at the change's
// head pins, from the module cache directory the caller names (Limits.ModuleCache), and only
// when the cache's checksum of that version's code is the one go.sum at head pins. A version
// the cache lacks is downloaded by the go command when the caller allows it
// (Limits.Download), else it is a tool error. Vendored code needs no such tool: vendor/ is
// part of the repository, and read_file and grep read it at head.

type readDependencyInput struct {
	Module    string `json:"module"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Pattern   string `json:"pattern"`
}

const (
	// maxDepFileBytes caps a file read_dependency reads at all, range or not: as much as the
	// repository reader reads of a file at a revision.
	maxDepFileBytes = 4 << 20
	// maxDepWalk caps the entries one listing or search of a module visits.
	maxDepWalk = 20_000
	// maxDepGrepBytes caps what one search reads.
	maxDepGrepBytes = 64 << 20
)

var versionRe = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*$`)

// dep is a module version, as go.mod resolves the module the model asked for.
type dep struct {
	path, version string
	note          string // how go.mod got there: "", or the replace directive
}

func (d dep) String() string { return d.path + "@" + d.version }

func (b *Box) readDependency(ctx context.Context, in readDependencyInput, budget int, rec *Call) (string, error) {
	rec.Path, rec.Start, rec.End = in.Module, in.StartLine, in.EndLine
	switch {
	case in.Module == "":
		return "", refuse("module is required: a module path as go.mod requires it, like github.com/jackc/pgx/v5")
	case in.StartLine < 0 || in.EndLine < 0:
		return "", refuse("start_line and end_line count from 1")
	case in.EndLine > 0 && in.StartLine > in.EndLine:
		return "", refuse("start_line %d is after end_line %d", in.StartLine, in.EndLine)
	case in.Pattern != "" && (in.StartLine > 0 || in.EndLine > 0):
		return "", refuse("give either pattern (to search) or start_line and end_line (to read), not both")
	}
	if err := checkModulePath(in.Module); err != nil {
		return "", err
	}
	p := "."
	if in.Path != "" {
		var err error
		if p, err = cleanPath(in.Path); err != nil {
			return "", err
		}
	}
	d, sub, err := b.resolveModule(ctx, in.Module)
	if err != nil {
		return "", err
	}
	if sub != "" {
		p = path.Join(sub, p)
	}
	rec.Path = d.String() + "/" + p
	if p == "." {
		rec.Path = d.String()
	}
	sum, err := b.pinnedSum(ctx, d)
	if err != nil {
		return "", err
	}
	root, err := b.module(ctx, d, sum, p, rec)
	if err != nil {
		return "", err
	}
	defer root.Close()
	info, err := lstatIn(root, d, p)
	if err != nil {
		return "", err
	}
	var out string
	switch {
	case in.Pattern != "":
		out, rec.Truncated, err = depGrep(ctx, root, d, p, info, in.Pattern)
	case info.IsDir():
		if in.StartLine > 0 || in.EndLine > 0 {
			return "", refuse("%s is a directory of %s; leave out start_line and end_line to list it", p, d)
		}
		out, rec.Truncated, err = depList(ctx, root, d, p)
	default:
		out, err = b.depRead(root, d, p, info, in, rec)
	}
	if err != nil {
		return "", err
	}
	out, cutShort := cut(out, budget)
	rec.Truncated = rec.Truncated || cutShort
	return out, nil
}

// checkModulePath refuses what cannot be a module or package path: it must look like one
// (github.com/x/y), never absolute, never with . or .. elements.
func checkModulePath(m string) error {
	switch {
	case len(m) > maxPathLen:
		return refuse("module is longer than %d bytes", maxPathLen)
	case strings.HasPrefix(m, "/") || strings.HasPrefix(m, `\`) || hasDrive(m):
		return refuse("module %q is a file path; give a module path as go.mod requires it, like github.com/jackc/pgx/v5", m)
	}
	for _, r := range m {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._~-/+", r)) {
			return refuse("module %q has the character %q, which no module path has", m, r)
		}
	}
	for _, el := range strings.Split(m, "/") {
		if el == "" || el[0] == '.' {
			return refuse("module %q is not a module path: empty elements and elements starting with a dot are refused", m)
		}
	}
	return nil
}

// resolveModule finds the version go.mod at head pins for module (or for the module that
// holds the package path module), following a replace directive to another module; sub is
// the package's directory inside the module.
func (b *Box) resolveModule(ctx context.Context, module string) (dep, string, error) {
	key, rev, err := b.rev("head")
	if err != nil {
		return dep{}, "", err
	}
	e, err := b.confine(ctx, key, rev, "go.mod")
	if err != nil {
		var te *toolError
		if errors.As(err, &te) {
			return dep{}, "", refuse("this repository has no go.mod at its root at head, so no Go dependencies to read (%s)", te.msg)
		}
		return dep{}, "", err
	}
	if e.Type != "blob" {
		return dep{}, "", refuse("go.mod at head is not a file")
	}
	data, err := b.repo.ReadFile(ctx, rev, "go.mod")
	if err != nil {
		return dep{}, "", err
	}
	gm, err := parseGoMod(data)
	if err != nil {
		return dep{}, "", refuse("go.mod at head does not parse: %v", err)
	}
	mod, sub := "", ""
	for m := range gm.require {
		if (module == m || strings.HasPrefix(module, m+"/")) && len(m) > len(mod) {
			mod = m
		}
	}
	if mod == "" {
		names := slices.Sorted(maps.Keys(gm.require))
		list := strings.Join(names[:min(len(names), 30)], ", ")
		if len(names) > 30 {
			list += fmt.Sprintf(" and %d more", len(names)-30)
		}
		if list == "" {
			list = "none"
		}
		return dep{}, "", refuse("go.mod at head does not require %s, nor a module holding it (the standard library is not readable here); it requires: %s", module, list)
	}
	sub = strings.TrimPrefix(strings.TrimPrefix(module, mod), "/")
	d := dep{path: mod, version: gm.require[mod]}
	if r, ok := gm.replacement(d); ok {
		if isLocalPath(r.newPath) {
			hint := ""
			if local := path.Clean(filepath.ToSlash(r.newPath)); !strings.HasPrefix(local, "/") && local != ".." && !strings.HasPrefix(local, "../") {
				hint = fmt.Sprintf("; it is in the repository: read %s with read_file or list_files", local)
			}
			return dep{}, "", refuse("go.mod at head replaces %s with the local directory %s, which read_dependency does not read%s", mod, r.newPath, hint)
		}
		d = dep{path: r.newPath, version: r.newVersion, note: fmt.Sprintf("%s %s replaced by %s %s in go.mod", mod, gm.require[mod], r.newPath, r.newVersion)}
		if err := checkModulePath(d.path); err != nil {
			return dep{}, "", refuse("go.mod at head replaces %s with %q, which is not a module path", mod, r.newPath)
		}
	}
	if !versionRe.MatchString(d.version) {
		return dep{}, "", refuse("go.mod at head pins %s at %q, which is not a module version", d.path, d.version)
	}
	return d, sub, nil
}

// goMod is what read_dependency needs of a go.mod: the required versions and the replace
// directives.
type goMod struct {
	require map[string]string
	replace []replaceDirective
}

type replaceDirective struct {
	oldPath, oldVersion string // oldVersion "" replaces every version
	newPath, newVersion string // newVersion "" for a local directory
}

// replacement is the replace directive that applies to d: one for its exact version before one
// for every version, the last of each in the file, as the go command reads them.
func (g goMod) replacement(d dep) (replaceDirective, bool) {
	var any, exact *replaceDirective
	for i := range g.replace {
		r := &g.replace[i]
		switch {
		case r.oldPath != d.path:
		case r.oldVersion == d.version:
			exact = r
		case r.oldVersion == "":
			any = r
		}
	}
	switch {
	case exact != nil:
		return *exact, true
	case any != nil:
		return *any, true
	}
	return replaceDirective{}, false
}

// isLocalPath reports whether a replacement is a directory rather than a module path, as the
// go command tells them apart.
func isLocalPath(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") ||
		strings.HasPrefix(p, "/") || strings.HasPrefix(p, `.\`) || strings.HasPrefix(p, `..\`) || strings.HasPrefix(p, `\`) || hasDrive(p)
}

// parseGoMod reads the require and replace directives of a go.mod file, in their one-line and
// block forms, with comments and quoted paths.
func parseGoMod(data []byte) (goMod, error) {
	g := goMod{require: make(map[string]string)}
	block := "" // the verb of the block being read: require ( ... )
	for n, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f, err := goModFields(line)
		if err != nil {
			return goMod{}, fmt.Errorf("line %d: %w", n+1, err)
		}
		if len(f) == 0 {
			continue
		}
		verb := block
		switch {
		case block != "" && f[0] == ")":
			block = ""
			continue
		case block != "":
		case len(f) == 2 && f[1] == "(":
			block = f[0]
			continue
		default:
			verb, f = f[0], f[1:]
		}
		switch verb {
		case "require":
			if len(f) < 2 {
				return goMod{}, fmt.Errorf("line %d: require needs a path and a version", n+1)
			}
			g.require[f[0]] = f[1]
		case "replace":
			arrow := slices.Index(f, "=>")
			if arrow < 1 || arrow > 2 || len(f)-arrow-1 < 1 || len(f)-arrow-1 > 2 {
				return goMod{}, fmt.Errorf("line %d: replace needs old [version] => new [version]", n+1)
			}
			r := replaceDirective{oldPath: f[0], newPath: f[arrow+1]}
			if arrow == 2 {
				r.oldVersion = f[1]
			}
			if len(f)-arrow-1 == 2 {
				r.newVersion = f[arrow+2]
			}
			g.replace = append(g.replace, r)
		}
	}
	return g, nil
}

// goModFields splits a go.mod line into its tokens, unquoting quoted ones.
func goModFields(line string) ([]string, error) {
	var out []string
	s := strings.TrimSpace(line)
	for s != "" {
		switch s[0] {
		case '"', '`':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, errors.New("unterminated quoted string")
			}
			tok := s[:end+2]
			v, err := strconv.Unquote(tok)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string %s", tok)
			}
			out = append(out, v)
			s = strings.TrimSpace(s[end+2:])
		default:
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			out = append(out, s[:end])
			s = strings.TrimSpace(s[end:])
		}
	}
	return out, nil
}

// escapeModule is a module path or version as the module cache spells it on disk: an
// upper-case letter becomes "!" and the letter in lower case, so that case-insensitive file
// systems keep github.com/Azure and github.com/azure apart.
func escapeModule(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			sb.WriteByte('!')
			r += 'a' - 'A'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// pinnedSum is the checksum go.sum at head pins for d's code (its "h1:" line for the module
// zip): read_dependency reads only that code, as the go command builds only that.
func (b *Box) pinnedSum(ctx context.Context, d dep) (string, error) {
	key, rev, err := b.rev("head")
	if err != nil {
		return "", err
	}
	if _, err := b.confine(ctx, key, rev, "go.sum"); err != nil {
		var te *toolError
		if errors.As(err, &te) {
			return "", refuse("go.sum at head cannot be read, so nothing pins the code of %s, and read_dependency reads only code go.sum pins (%s)", d, te.msg)
		}
		return "", err
	}
	data, err := b.repo.ReadFile(ctx, rev, "go.sum")
	if err != nil {
		return "", err
	}
	sums := parseGoSum(data)
	if sum := sums[d.path+" "+d.version]; sum != "" {
		return sum, nil
	}
	if sums[d.path+" "+d.version+"/go.mod"] != "" {
		return "", refuse("go.sum at head pins only the go.mod of %s, not its code: the build uses none of its packages, and read_dependency reads only code go.sum pins", d)
	}
	return "", refuse("go.sum at head has no checksum for %s, so nothing pins its code, and read_dependency reads only code go.sum pins (the go command would refuse to build with it too)", d)
}

// parseGoSum reads go.sum's "h1:" checksums, keyed by "path version" for a module's code (its
// zip) and "path version/go.mod" for its go.mod file. Lines it does not understand are
// skipped, as the go command skips them.
func parseGoSum(data []byte) map[string]string {
	sums := map[string]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && strings.HasPrefix(f[2], "h1:") {
			sums[f[0]+" "+f[1]] = f[2]
		}
	}
	return sums
}

// module opens d's directory in the module cache, checked against sum, and has the go
// command download it first when the cache lacks it and downloads are allowed.
func (b *Box) module(ctx context.Context, d dep, sum, p string, rec *Call) (*os.Root, error) {
	root, why, err := b.openModule(d, sum)
	if root != nil || err != nil {
		return root, err
	}
	notHere := fmt.Sprintf("%s is not in the module cache on this machine (%s)", d, why)
	if d.note == "" {
		if key, rev, err := b.rev("head"); err == nil {
			if e, err := b.repo.Entry(ctx, rev, path.Join("vendor", d.path)); err == nil && e.Type == "tree" {
				return nil, refuse("%s. The repository vendors it: read vendor/%s with read_file (rev %s)", notHere, path.Join(d.path, p), key)
			}
		}
	}
	switch {
	case b.l.ModuleCache == "":
		return nil, refuse("%s; nothing can be downloaded without one", notHere)
	case b.l.Download == nil:
		why := "council does not download modules here"
		if b.l.NoDownload != "" {
			why += ": " + b.l.NoDownload
		}
		return nil, refuse("%s, and %s", notHere, why)
	}
	if err := b.download(ctx, d, rec); err != nil {
		return nil, err
	}
	root, why, err = b.openModule(d, sum)
	if root == nil && err == nil {
		return nil, refuse("the go command downloaded %s, but the module cache still lacks it (%s)", d, why)
	}
	return root, err
}

// openModule opens d's directory in the module cache, refusing a symbolic link on the way.
// The directory counts only when the go command finished putting it there, as the go command
// decides it (no .partial file, a .ziphash file), and its code is what go.sum pins: the
// .ziphash holds sum. A module the cache lacks gives a nil Root and why, and no error.
func (b *Box) openModule(d dep, sum string) (root *os.Root, why string, err error) {
	if b.l.ModuleCache == "" {
		return nil, "no module cache is configured", nil
	}
	cache, err := os.OpenRoot(b.l.ModuleCache)
	if err != nil {
		return nil, "the module cache directory cannot be opened", nil
	}
	defer cache.Close()
	rel := escapeModule(d.path) + "@" + escapeModule(d.version)
	els := strings.Split(rel, "/")
	for i := range els {
		fi, err := cache.Lstat(filepath.FromSlash(strings.Join(els[:i+1], "/")))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, "no directory " + rel, nil
		case err != nil:
			return nil, "unreadable", nil
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, "", refuse("%s is a symbolic link in the module cache; symbolic links are not followed", strings.Join(els[:i+1], "/"))
		case !fi.IsDir():
			return nil, strings.Join(els[:i+1], "/") + " is not a directory", nil
		}
	}
	meta := filepath.FromSlash("cache/download/" + escapeModule(d.path) + "/@v/" + escapeModule(d.version))
	if _, err := cache.Lstat(meta + ".partial"); err == nil {
		return nil, rel + " is only partly extracted", nil
	}
	hash, err := cache.ReadFile(meta + ".ziphash")
	if err != nil {
		return nil, "no checksum of " + rel + " in cache/download", nil
	}
	if got := strings.TrimSpace(string(hash)); got != sum {
		return nil, "", refuse("the module cache's copy of %s has the checksum %s, but go.sum at head pins %s: the code differs from what go.sum pins, so read_dependency does not read it (the go command would refuse it too)", d, got, sum)
	}
	if root, err = cache.OpenRoot(filepath.FromSlash(rel)); err != nil {
		return nil, "unreadable", nil
	}
	return root, "", nil
}

// lstatIn looks up p inside a module's directory, refusing a symbolic link anywhere on its
// path and anything but files and directories.
func lstatIn(root *os.Root, d dep, p string) (fs.FileInfo, error) {
	if p == "." {
		return root.Lstat(".")
	}
	els := strings.Split(p, "/")
	var fi fs.FileInfo
	for i := range els {
		sub := strings.Join(els[:i+1], "/")
		var err error
		fi, err = root.Lstat(filepath.FromSlash(sub))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, refuse("%s does not exist in %s; call read_dependency without path to list the module's files", p, d)
		case err != nil:
			return nil, refuse("%s in %s is unreadable", p, d)
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, refuse("%s in %s is a symbolic link; symbolic links are not followed", sub, d)
		case i < len(els)-1 && !fi.IsDir():
			return nil, refuse("%s is not a directory in %s, so %s does not exist", sub, d, p)
		}
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, refuse("%s in %s is not a regular file", p, d)
	}
	return fi, nil
}

// readAll reads a file of the module, at most maxDepFileBytes.
func readAll(root *os.Root, p string) ([]byte, error) {
	f, err := root.Open(filepath.FromSlash(p))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxDepFileBytes+1))
}

func (b *Box) depRead(root *os.Root, d dep, p string, info fs.FileInfo, in readDependencyInput, rec *Call) (string, error) {
	ranged := in.StartLine > 0 || in.EndLine > 0
	switch {
	case info.Size() > maxDepFileBytes:
		return "", refuse("%s in %s is %d bytes, over the %d-byte limit of read_dependency; search it with pattern instead", p, d, info.Size(), maxDepFileBytes)
	case !ranged && info.Size() > int64(b.l.MaxFileBytes):
		return "", refuse("%s in %s is %d bytes, over the %d-byte limit for a whole file; ask for a line range with start_line and end_line (for example 1 to 200), or search it with pattern first",
			p, d, info.Size(), b.l.MaxFileBytes)
	}
	data, err := readAll(root, p)
	if err != nil {
		return "", refuse("%s in %s is unreadable", p, d)
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return "", refuse("%s in %s is a binary file; its content is not shown", p, d)
	}
	if len(data) == 0 {
		return fmt.Sprintf("%s in %s is empty.", p, depHeader(d)), nil
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	start, end := max(in.StartLine, 1), len(lines)
	if in.EndLine > 0 {
		end = min(in.EndLine, len(lines))
	}
	if start > len(lines) {
		return "", refuse("start_line %d is past the end of %s, which has %d lines in %s", start, p, len(lines), d)
	}
	rec.Start, rec.End = start, end
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s in %s, lines %d-%d of %d:\n", p, depHeader(d), start, end, len(lines))
	width := max(4, len(strconv.Itoa(end)))
	for i := start; i <= end; i++ {
		fmt.Fprintf(&sb, "%*d | %s\n", width, i, strings.ToValidUTF8(lines[i-1], "\uFFFD"))
	}
	return sb.String(), nil
}

// depHeader names a module version, and the replace directive that chose it.
func depHeader(d dep) string {
	if d.note != "" {
		return fmt.Sprintf("%s (%s)", d, d.note)
	}
	return d.String()
}

// walkFiles calls visit with the regular files under dir of a module, in lexical order,
// skipping symbolic links, until visit returns false or maxDepWalk entries were visited; it
// reports whether it stopped early.
func walkFiles(ctx context.Context, root *os.Root, dir string, visit func(p string) bool) (bool, error) {
	seen := 0
	stopped := false
	errStop := errors.New("stop")
	err := fs.WalkDir(root.FS(), dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory is skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if seen++; seen > maxDepWalk {
			stopped = true
			return errStop
		}
		if !e.Type().IsRegular() {
			return nil
		}
		if !visit(p) {
			stopped = true
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return stopped, err
	}
	return stopped, nil
}

func depList(ctx context.Context, root *os.Root, d dep, dir string) (string, bool, error) {
	var files []string
	stopped, err := walkFiles(ctx, root, dir, func(p string) bool {
		files = append(files, p)
		return len(files) <= MaxListed
	})
	if err != nil {
		return "", false, refuse("listing %s cancelled: %v", d, err)
	}
	where := dir
	if dir == "." {
		where = "the module"
	}
	if len(files) == 0 {
		return fmt.Sprintf("no files under %s in %s", where, depHeader(d)), false, nil
	}
	var sb strings.Builder
	more := stopped || len(files) > MaxListed
	files = files[:min(len(files), MaxListed)]
	fmt.Fprintf(&sb, "files under %s in %s, paths relative to the module root:\n", where, depHeader(d))
	for _, f := range files {
		sb.WriteString(f)
		sb.WriteByte('\n')
	}
	if more {
		fmt.Fprintf(&sb, "[more files not shown; list a subdirectory with path]\n")
	}
	return sb.String(), more, nil
}

func depGrep(ctx context.Context, root *os.Root, d dep, p string, info fs.FileInfo, pattern string) (string, bool, error) {
	switch {
	case len(pattern) > maxPatternLen:
		return "", false, refuse("pattern is longer than %d bytes", maxPatternLen)
	case strings.ContainsRune(pattern, 0):
		return "", false, refuse("pattern contains a NUL byte")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false, refuse("pattern does not compile (Go RE2 syntax): %v", err)
	}
	var sb strings.Builder
	matches, read := 0, 0
	full := false
	search := func(fp string) bool {
		fi, err := root.Lstat(filepath.FromSlash(fp))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDepFileBytes {
			return true
		}
		if read += int(fi.Size()); read > maxDepGrepBytes {
			return false
		}
		data, err := readAll(root, fp)
		if err != nil || bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
			return true
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if !re.MatchString(line) {
				continue
			}
			if matches == MaxGrepMatches {
				full = true
				return false
			}
			matches++
			fmt.Fprintf(&sb, "%s:%d: %s\n", fp, i+1, cutLine(strings.ToValidUTF8(line, "\uFFFD")))
		}
		return true
	}
	stopped := false
	if info.IsDir() {
		if stopped, err = walkFiles(ctx, root, p, search); err != nil {
			return "", false, refuse("search of %s cancelled: %v", d, err)
		}
	} else {
		stopped = !search(p)
	}
	where := p
	if p == "." {
		where = "the module"
	}
	if matches == 0 && !stopped {
		return fmt.Sprintf("no matches for %s in %s of %s", pattern, where, depHeader(d)), false, nil
	}
	head := fmt.Sprintf("matches for %s in %s of %s, paths relative to the module root:\n", pattern, where, depHeader(d))
	switch {
	case full:
		sb.WriteString(fmt.Sprintf("[stopped at %d matches; narrow the pattern or path]\n", MaxGrepMatches))
	case stopped:
		sb.WriteString("[stopped before searching every file; narrow path]\n")
	}
	return head + sb.String(), stopped || full, nil
}
