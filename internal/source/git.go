// Package source turns "where a change comes from" into a Change: the base and head revisions,
// the parsed file diffs, metadata, and a way to read any file at either revision. This file
// reads a local git repository through the git command. It must never write to the repository
// or run anything the repository configures (external diff drivers, textconv filters, hooks).
package source

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
	"strconv"
	"strings"
	"sync"

	"github.com/council-dev/council/internal/diff"
)

// Change is one reviewable change.
type Change struct {
	Repo    string // absolute path of the work tree
	Base    string // the base revision as given
	Head    string
	BaseSHA string // the merge-base of base and head: what the diff is taken against
	BaseTip string // the commit base names: where trusted config and instructions are read
	HeadSHA string
	Title   string // untrusted: from the PR or the head commit
	Body    string // untrusted: the PR body or the range's commit messages
	Files   []diff.File
}

// MaxFileBytes caps what ReadFile returns; larger files are treated as unreadable for context.
const MaxFileBytes = 4 << 20

// Git is a local repository read through the git command.
type Git struct {
	dir string

	mu    sync.Mutex // guards batch
	batch *catFile   // a running "git cat-file --batch", started on the first read
}

// OpenGit finds the work tree that contains dir, or opens dir as the bare repository it is.
func OpenGit(ctx context.Context, dir string) (*Git, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	g := &Git{dir: abs}
	top, err := g.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		// A bare repository (a mirror) has every commit and no work tree, which council never
		// reads: it is opened as it is.
		if bare, berr := g.run(ctx, "rev-parse", "--is-bare-repository"); berr == nil && strings.TrimSpace(string(bare)) == "true" {
			if gitDir, derr := g.run(ctx, "rev-parse", "--absolute-git-dir"); derr == nil {
				g.dir = strings.TrimSpace(string(gitDir))
				return g, nil
			}
		}
		return nil, fmt.Errorf("open repository %s: not a git work tree (use --repo DIR): %w", dir, err)
	}
	g.dir = strings.TrimSpace(string(top))
	return g, nil
}

// Dir is the work tree's top directory.
func (g *Git) Dir() string { return g.dir }

// GitError is a failed git command with what it printed.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// command builds every git command: flags that keep the output's shape fixed whatever the
// user's or repository's config says, and no prompts. run uses it; streaming callers too.
func (g *Git) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{
		"-c", "core.quotePath=true",
		"-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false",
		"-c", "core.fsmonitor=false",
	}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	return cmd
}

// run runs git with a configuration that ignores the repository's and the user's helpers that
// could execute code or change the output's shape.
func (g *Git) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// Resolve returns the commit SHA a revision names.
func (g *Git) Resolve(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("resolve revision %q: a revision cannot start with '-'", rev)
	}
	out, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("resolve revision %q: no such commit in %s", rev, g.dir)
	}
	return strings.TrimSpace(string(out)), nil
}

// DefaultBase is the revision a change is reviewed against when none is given: origin/HEAD
// (the remote's default branch), else main, else master.
func (g *Git) DefaultBase(ctx context.Context) (string, error) {
	for _, rev := range []string{"origin/HEAD", "main", "master", "origin/main", "origin/master"} {
		if _, err := g.Resolve(ctx, rev); err == nil {
			return rev, nil
		}
	}
	return "", errors.New("find base revision: none of origin/HEAD, main, master exists; pass --base REV")
}

// Load reads the change from base to head. The diff is taken from the merge-base of the two,
// as a pull request's diff is, so commits that landed on base after head forked are not shown
// as reverted.
func (g *Git) Load(ctx context.Context, base, head string) (Change, error) {
	baseTip, err := g.Resolve(ctx, base)
	if err != nil {
		return Change{}, err
	}
	headSHA, err := g.Resolve(ctx, head)
	if err != nil {
		return Change{}, err
	}
	mb, err := g.run(ctx, "merge-base", baseTip, headSHA)
	if err != nil {
		return Change{}, fmt.Errorf("find merge-base of %s and %s: %w", base, head, err)
	}
	baseSHA := strings.TrimSpace(string(mb))
	patch, err := g.run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames",
		"--find-copies", "--full-index", "-U3", baseSHA, headSHA, "--")
	if err != nil {
		return Change{}, fmt.Errorf("diff %s..%s: %w", base, head, err)
	}
	files, err := diff.Parse(patch)
	if err != nil {
		return Change{}, fmt.Errorf("read change %s..%s: %w", base, head, err)
	}
	c := Change{Repo: g.dir, Base: base, Head: head, BaseSHA: baseSHA, BaseTip: baseTip, HeadSHA: headSHA, Files: files}
	log, err := g.run(ctx, "log", "--no-color", "--format=%s%n%n%b%x00", baseSHA+".."+headSHA)
	if err != nil {
		return Change{}, fmt.Errorf("read commit messages %s..%s: %w", base, head, err)
	}
	// Newest first, as git log lists them: the newest subject titles the range, and the rest
	// of the messages are its description.
	msgs := strings.Split(strings.TrimRight(string(log), "\x00\n"), "\x00")
	var body []string
	for i, m := range msgs {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		if i == 0 {
			subject, rest, _ := strings.Cut(m, "\n")
			c.Title = subject
			m = strings.TrimSpace(rest)
		}
		if m != "" {
			body = append(body, m)
		}
	}
	c.Body = strings.Join(body, "\n\n---\n\n")
	return c, nil
}

// ReadFile returns a file's content at a revision, or an error wrapping fs.ErrNotExist when
// the file does not exist there.
func (g *Git) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("read %s: bad revision %q", path, rev)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, short(rev), err)
	}
	if strings.ContainsAny(path, "\n\x00") {
		return nil, fmt.Errorf("read %q at %s: %w", path, short(rev), os.ErrNotExist)
	}
	data, err := g.readBlob(rev + ":" + path)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, short(rev), err)
	}
	return data, nil
}

// catFile is one long-running "git cat-file --batch": reading a file costs a line written
// and read on a pipe, not a process, which is what makes reading hundreds of files for context
// and tools cheap.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// errBlobTooLarge is wrapped by reads of files over MaxFileBytes.
var errBlobTooLarge = errors.New("over the size limit")

// readBlob reads the blob spec ("rev:path") names through the batch process, starting it when
// needed. A broken pipe stops the process; the next read starts a new one.
func (g *Git) readBlob(spec string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.batch == nil {
		// Not tied to one request's context: the process serves every read until Close.
		cmd := g.command(context.Background(), "cat-file", "--batch")
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start git cat-file: %w", err)
		}
		g.batch = &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	}
	data, err := g.batch.read(spec)
	var broken *brokenPipe
	if errors.As(err, &broken) {
		g.closeBatch()
	}
	return data, err
}

type brokenPipe struct{ err error }

func (e *brokenPipe) Error() string { return "git cat-file --batch: " + e.err.Error() }
func (e *brokenPipe) Unwrap() error { return e.err }

func (c *catFile) read(spec string) ([]byte, error) {
	if _, err := io.WriteString(c.in, spec+"\n"); err != nil {
		return nil, &brokenPipe{err}
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, &brokenPipe{err}
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return nil, os.ErrNotExist
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return nil, &brokenPipe{fmt.Errorf("unexpected header %q", header)}
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return nil, &brokenPipe{fmt.Errorf("unexpected header %q", header)}
	}
	if fields[1] != "blob" || size > MaxFileBytes {
		// Skip the content to keep the stream in step.
		if _, err := io.CopyN(io.Discard, c.out, size+1); err != nil {
			return nil, &brokenPipe{err}
		}
		if fields[1] != "blob" {
			return nil, fmt.Errorf("a %s, not a file: %w", fields[1], os.ErrNotExist)
		}
		return nil, fmt.Errorf("%d bytes is %w of %d bytes", size, errBlobTooLarge, MaxFileBytes)
	}
	data := make([]byte, size+1) // the content and its trailing newline
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, &brokenPipe{err}
	}
	return data[:size], nil
}

// closeBatch stops the batch process; the caller holds g.mu.
func (g *Git) closeBatch() {
	if g.batch == nil {
		return
	}
	_ = g.batch.in.Close()
	_ = g.batch.cmd.Process.Kill()
	_ = g.batch.cmd.Wait()
	g.batch = nil
}

// Close stops the processes the repository keeps running for fast reads.
func (g *Git) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closeBatch()
	return nil
}

// ListFiles lists the files under dir (a repository-relative directory) at a revision.
func (g *Git) ListFiles(ctx context.Context, rev, dir string) ([]string, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev, "--", dir)
	if err != nil {
		return nil, fmt.Errorf("list %s at %s: %w", dir, short(rev), err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
