package source

// This file holds the read helpers behind the reviewers' repository tools: what a path is at a
// revision, git grep, and the log of a path. Like the rest of Git they only read git objects,
// never the work tree, and run git with the repository's code-running helpers switched off.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/diff"
)

// EntryInfo is what a path is at a revision.
type EntryInfo struct {
	Type string // "blob", "tree", or "commit" (a submodule)
	Mode string // git's octal mode: "100644", "100755", "120000" (a symbolic link), "040000", "160000"
	Size int64  // the blob's size in bytes; 0 for trees and submodules
}

// Entry modes that matter to a reader.
const (
	ModeSymlink   = "120000"
	ModeSubmodule = "160000"
)

// Entry says what path (repository-relative, "" or "." for the root) is at rev. A path that
// does not exist there, including one that goes through a symbolic link or a submodule (git
// follows neither while walking a tree), is an error wrapping fs.ErrNotExist.
func (g *Git) Entry(ctx context.Context, rev, path string) (EntryInfo, error) {
	if err := checkRev(rev); err != nil {
		return EntryInfo{}, fmt.Errorf("look up %s: %w", path, err)
	}
	if path == "" || path == "." {
		if _, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{tree}"); err != nil {
			return EntryInfo{}, fmt.Errorf("look up the root at %s: no such revision", short(rev))
		}
		return EntryInfo{Type: "tree", Mode: "040000"}, nil
	}
	// --literal-pathspecs: the path is a name, never a pattern or pathspec magic.
	out, err := g.run(ctx, "--literal-pathspecs", "ls-tree", "-l", "--full-tree", "-z", "--end-of-options", rev, "--", path)
	if err != nil {
		return EntryInfo{}, fmt.Errorf("look up %s at %s: %w", path, short(rev), err)
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		// <mode> SP <type> SP <object> SP+ <size> TAB <path>
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok || name != path {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 {
			return EntryInfo{}, fmt.Errorf("look up %s at %s: unexpected ls-tree output %q", path, short(rev), rec)
		}
		e := EntryInfo{Mode: f[0], Type: f[1]}
		if f[3] != "-" {
			if e.Size, err = strconv.ParseInt(f[3], 10, 64); err != nil {
				return EntryInfo{}, fmt.Errorf("look up %s at %s: bad size in %q", path, short(rev), rec)
			}
		}
		return e, nil
	}
	return EntryInfo{}, fmt.Errorf("look up %s at %s: %w", path, short(rev), os.ErrNotExist)
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string
	Line int
	Text string // the line, without its newline
}

// GrepTimeout bounds one Grep, whatever the caller's context allows: git grep -E runs the C
// library's regex engine, which backtracks, and a pattern like (a+)+$ can take minutes.
const GrepTimeout = 10 * time.Second

// MaxGrepBytes caps how much of git grep's output Grep reads; the rest is cut (truncated).
const MaxGrepBytes = 1 << 20

// Grep runs git grep over the blobs of rev: pattern is a POSIX extended regular expression,
// pathGlobs (optional) pathspec globs, a file matching any one is searched ("**" crosses
// directories, "*" does not; see Files), binary files are skipped. It returns at most maxMatches matches (all when maxMatches <= 0, up to
// MaxGrepBytes of output) and whether more were cut. A grep that runs out of time, its own
// GrepTimeout or the context's deadline, is an error wrapping context.DeadlineExceeded.
func (g *Git) Grep(ctx context.Context, rev, pattern string, pathGlobs []string, maxMatches int) ([]GrepMatch, bool, error) {
	if err := checkRev(rev); err != nil {
		return nil, false, fmt.Errorf("grep: %w", err)
	}
	if pattern == "" {
		return nil, false, errors.New("grep: empty pattern")
	}
	if strings.ContainsRune(pattern, 0) || slices.ContainsFunc(pathGlobs, hasNUL) {
		return nil, false, errors.New("grep: pattern and path globs cannot contain NUL")
	}
	timed, cancelTimeout := context.WithTimeout(ctx, GrepTimeout)
	defer cancelTimeout()
	// done stops git once enough has been read; it is told apart from the timeout.
	run, done := context.WithCancel(timed)
	defer done()

	// The --no-* flags pin the output's shape and what is searched against the user's config
	// (grep.column, color.grep, submodule.recurse, textconv drivers). git grep has no
	// --end-of-options: the revision was checked not to start with '-', the pattern goes
	// behind -e, and the glob behind "--".
	args := []string{"grep", "-n", "-I", "-E", "-z",
		"--no-color", "--no-column", "--no-textconv", "--no-recurse-submodules", "-e", pattern, rev, "--"}
	args = append(args, globSpecs(pathGlobs)...)
	cmd := g.command(run, args...)
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("grep %q: %w", pattern, err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 16 << 10}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("grep %q: %w", pattern, err)
	}
	limited := &io.LimitedReader{R: stdout, N: MaxGrepBytes}
	matches, truncated, parseErr := readGrep(bufio.NewReader(limited), rev+":", maxMatches)
	if limited.N <= 0 {
		truncated = true
	}
	if truncated || parseErr != nil {
		done() // git may be blocked writing what will not be read
	}
	waitErr := cmd.Wait()
	switch {
	case errors.Is(timed.Err(), context.DeadlineExceeded):
		return nil, false, fmt.Errorf("grep %q at %s: %w", pattern, short(rev), context.DeadlineExceeded)
	case ctx.Err() != nil:
		return nil, false, fmt.Errorf("grep %q at %s: %w", pattern, short(rev), ctx.Err())
	case truncated:
		return matches, true, nil
	case parseErr != nil:
		return nil, false, fmt.Errorf("grep %q at %s: %w", pattern, short(rev), parseErr)
	case waitErr != nil:
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) && exit.ExitCode() == 1 && stderr.Len() == 0 {
			return nil, false, nil // no match
		}
		return nil, false, &GitError{Args: args, Stderr: stderr.String(), Err: waitErr}
	}
	return matches, false, nil
}

// Files lists the paths of rev (files, symbolic links and submodules) that match one of
// pathGlobs, pathspec globs as Grep takes them: a glob with a wildcard must match the whole
// path, "**" crossing directories and "*" not ("dir/*" does not match "dir/sub/x.go"); one
// without a wildcard matches that path and everything under it. It answers what Grep
// searched, before the pattern and the binary files are applied.
func (g *Git) Files(ctx context.Context, rev string, pathGlobs []string) ([]string, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	if len(pathGlobs) == 0 || slices.ContainsFunc(pathGlobs, hasNUL) {
		return nil, errors.New("list files: give path globs without NUL")
	}
	// ls-tree takes no pathspec magic; a diff from the empty tree lists every path of rev
	// with the same pathspec matching as grep. The empty tree's name depends on the
	// repository's hash (SHA-1 or SHA-256): git computes it, writing nothing.
	empty, err := g.run(ctx, "hash-object", "-t", "tree", "--stdin")
	if err != nil {
		return nil, fmt.Errorf("list files at %s: %w", short(rev), err)
	}
	args := append([]string{"diff-tree", "-r", "-z", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv",
		strings.TrimSpace(string(empty)), rev, "--"}, globSpecs(pathGlobs)...)
	out, err := g.run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("list files at %s: %w", short(rev), err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

func hasNUL(s string) bool { return strings.ContainsRune(s, 0) }

// globSpecs turns globs into git pathspecs with glob magic, so that "*" stays in a directory.
func globSpecs(globs []string) []string {
	specs := make([]string, 0, len(globs))
	for _, g := range globs {
		specs = append(specs, ":(glob)"+g)
	}
	return specs
}

// readGrep parses git grep -n -z output: "<rev>:<path>\0<line>\0<text>\n" per match. A path may
// hold a newline, a text cannot; a cut-off last record is dropped. It stops early, reporting
// truncated, once it has limit matches and there is more.
func readGrep(r *bufio.Reader, prefix string, limit int) (matches []GrepMatch, truncated bool, err error) {
	for {
		name, err := r.ReadString(0)
		if err != nil {
			if err == io.EOF {
				return matches, name != "", nil
			}
			return matches, false, err
		}
		if limit > 0 && len(matches) == limit {
			return matches, true, nil
		}
		num, err := r.ReadString(0)
		if err != nil {
			return matches, true, nil
		}
		text, err := r.ReadString('\n')
		if err != nil {
			return matches, true, nil
		}
		line, convErr := strconv.Atoi(strings.TrimSuffix(num, "\x00"))
		if convErr != nil {
			return matches, false, fmt.Errorf("unexpected git grep output: line number %q", num)
		}
		matches = append(matches, GrepMatch{
			Path: strings.TrimPrefix(strings.TrimSuffix(name, "\x00"), prefix),
			Line: line,
			Text: strings.TrimSuffix(text, "\n"),
		})
	}
}

// LogEntry is one commit of a path's history.
type LogEntry struct {
	SHA     string
	Author  string
	Date    string // author date, strict ISO 8601
	Subject string
}

// Log lists the newest n commits reachable from rev that touch path (a repository-relative
// file or directory, "." for all), newest first; all of them when n <= 0.
func (g *Git) Log(ctx context.Context, path, rev string, n int) ([]LogEntry, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("log of %s: %w", path, err)
	}
	if path == "" {
		path = "."
	}
	args := []string{"--literal-pathspecs", "log", "--no-color", "--no-show-signature", "--no-mailmap",
		"-z", "--format=%H%x00%an%x00%aI%x00%s"}
	if n > 0 {
		args = append(args, "-n", strconv.Itoa(n))
	}
	args = append(args, "--end-of-options", rev, "--", path)
	out, err := g.run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("log of %s at %s: %w", path, short(rev), err)
	}
	// Fields and commits are all NUL-terminated: four fields a commit.
	f := strings.Split(string(out), "\x00")
	if k := len(f); k > 0 && f[k-1] == "" {
		f = f[:k-1]
	}
	if len(f)%4 != 0 {
		return nil, fmt.Errorf("log of %s at %s: unexpected git log output", path, short(rev))
	}
	var entries []LogEntry
	for i := 0; i < len(f); i += 4 {
		entries = append(entries, LogEntry{SHA: f[i], Author: f[i+1], Date: f[i+2], Subject: f[i+3]})
	}
	return entries, nil
}

func checkRev(rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return fmt.Errorf("bad revision %q", rev)
	}
	return nil
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}

// ChangedFiles lists the paths (old and new, for renames) that differ between two commits.
func (g *Git) ChangedFiles(ctx context.Context, from, to string) (map[string]bool, error) {
	for _, rev := range []string{from, to} {
		if _, err := g.Resolve(ctx, rev); err != nil {
			return nil, err
		}
	}
	out, err := g.run(ctx, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", short(from), short(to), err)
	}
	files := map[string]bool{}
	fields := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		files[fields[i+1]] = true
	}
	return files, nil
}

// InitGit opens the repository at dir, making it a new empty one first when it is not a
// repository yet (a cache that commits are fetched into).
func InitGit(ctx context.Context, dir string) (*Git, error) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", dir, err)
		}
		g := &Git{dir: dir}
		if _, err := g.run(ctx, "init", "-q"); err != nil {
			return nil, fmt.Errorf("init %s: %w", dir, err)
		}
	}
	return OpenGit(ctx, dir)
}

// Has reports whether the repository holds the commit.
func (g *Git) Has(ctx context.Context, sha string) bool {
	if sha == "" || strings.HasPrefix(sha, "-") {
		return false
	}
	_, err := g.run(ctx, "cat-file", "-e", sha+"^{commit}")
	return err == nil
}

// Credential is an HTTP header (a token) that git sends with its requests to URLs under
// Prefix ("https://github.com/") and nowhere else: not to another host a remote or a redirect
// names. It travels in git's environment (GIT_CONFIG_*), never on the command line, which
// other users of the machine can read, nor in the repository's config or an error.
type Credential struct {
	Prefix string
	Header string
}

// env adds the credential to a command's environment, after any configuration the
// environment already passes the same way.
func (c Credential) env(env []string) []string {
	if c.Header == "" || c.Prefix == "" {
		return env
	}
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v) // the last one counts, as for exec
		}
	}
	return append(env,
		fmt.Sprintf("GIT_CONFIG_KEY_%d=http.%s.extraHeader", n, c.Prefix),
		fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, c.Header),
		fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+1))
}

// Fetch fetches refspecs from remote, sending cred with the requests it applies to.
func (g *Git) Fetch(ctx context.Context, remote string, cred Credential, refspecs ...string) error {
	return g.transfer(ctx, cred, append([]string{"fetch", "-q", "--no-tags", remote}, refspecs...))
}

// Push pushes refspecs to remote, sending cred with the requests it applies to. The
// repository's pre-push hooks do not run: council pushes copies of commits, not its user's work.
func (g *Git) Push(ctx context.Context, remote string, cred Credential, refspecs ...string) error {
	return g.transfer(ctx, cred, append([]string{"push", "-q", "--no-verify", remote}, refspecs...))
}

func (g *Git) transfer(ctx context.Context, cred Credential, args []string) error {
	cmd := g.command(ctx, args...)
	cmd.Env = cred.env(append(cmd.Env, "GIT_TERMINAL_PROMPT=0"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s %s: %w: %s", args[0], redactURL(args[3]), err, redactURL(strings.TrimSpace(stderr.String())))
	}
	return nil
}

// redactURL hides the password of any URL with user information in s.
func redactURL(s string) string {
	return userinfoRE.ReplaceAllString(s, "$1://$2:xxxxx@")
}

var userinfoRE = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*)://([^/\s:@]+):[^/\s@]+@`)

// MergeBase is the best common ancestor of two commits.
func (g *Git) MergeBase(ctx context.Context, a, b string) (string, error) {
	if err := checkRev(a); err != nil {
		return "", err
	}
	if err := checkRev(b); err != nil {
		return "", err
	}
	out, err := g.run(ctx, "merge-base", a, b)
	if err != nil {
		return "", fmt.Errorf("merge-base of %s and %s: %w", short(a), short(b), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// DiffPath is the diff of one path from one commit to another with no context lines and no
// rename detection: each hunk is exactly the lines it replaces, and a renamed file shows as
// deleted.
func (g *Git) DiffPath(ctx context.Context, from, to, path string) ([]diff.File, error) {
	if err := checkRev(from); err != nil {
		return nil, err
	}
	if err := checkRev(to); err != nil {
		return nil, err
	}
	out, err := g.run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "-U0", from, to, "--", path)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s -- %s: %w", short(from), short(to), path, err)
	}
	files, err := diff.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s -- %s: %w", short(from), short(to), path, err)
	}
	return files, nil
}

// HasRemote reports whether the repository has a remote of that name.
func (g *Git) HasRemote(ctx context.Context, name string) bool {
	_, err := g.run(ctx, "remote", "get-url", "--", name)
	return err == nil
}
