package source

// This file reads a repository's history for the benchmark's import from git: every commit
// reachable from a branch in one pass of git log, the full messages of the few commits that
// matter, and the diff between two commits with exact hunks. Like the rest of Git it only
// reads, and runs git with the repository's code-running helpers switched off.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/diff"
)

// Commit is a commit as a walk of the history sees it: no message body, which Messages reads
// for the few commits that need it.
type Commit struct {
	SHA            string
	Parents        []string
	Author         string // name
	Committer      string // name
	CommitterEmail string
	Time           time.Time // committer date
	Subject        string
}

// commitFields is the number of NUL-terminated fields History's format writes a commit.
const commitFields = 7

// History calls visit for every commit reachable from rev, in git log's order (newest first,
// a commit before its parents when their dates agree). It reads one git log's output as a
// stream: a history of hundreds of thousands of commits is never held as text. In a shallow
// clone, the commits at its depth show no parents (see Shallow).
func (g *Git) History(ctx context.Context, rev string, visit func(Commit) error) error {
	if err := checkRev(rev); err != nil {
		return fmt.Errorf("walk the history: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops git when visit fails
	cmd := g.command(ctx, "log", "--no-color", "--no-show-signature", "--no-mailmap", "-z",
		"--format=%H%x00%P%x00%an%x00%cn%x00%ce%x00%ct%x00%s", "--end-of-options", rev, "--")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("walk the history of %s: %w", rev, err)
	}
	walkErr := readCommits(bufio.NewReaderSize(out, 1<<20), visit)
	if walkErr != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	if walkErr != nil {
		return walkErr
	}
	if waitErr != nil {
		return fmt.Errorf("walk the history of %s: %w", rev, &GitError{Args: []string{"log", rev}, Stderr: stderr.String(), Err: waitErr})
	}
	return nil
}

// readCommits parses History's format: with -z, every field of a commit ends in NUL, the
// last one (the subject) too, as the commit's terminator.
func readCommits(r *bufio.Reader, visit func(Commit) error) error {
	var f [commitFields]string
	for {
		for i := range f {
			s, err := r.ReadString(0)
			if err == io.EOF && i == 0 && s == "" {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read git log: %w", err)
			}
			f[i] = strings.TrimSuffix(s, "\x00")
		}
		secs, err := strconv.ParseInt(f[5], 10, 64)
		if err != nil || len(f[0]) < 40 {
			return fmt.Errorf("read git log: unexpected record %q", f[0])
		}
		c := Commit{SHA: f[0], Parents: strings.Fields(f[1]), Author: f[2], Committer: f[3], CommitterEmail: f[4],
			Time: time.Unix(secs, 0).UTC(), Subject: f[6]}
		if err := visit(c); err != nil {
			return err
		}
	}
}

// Messages returns the full message of each commit, by SHA.
func (g *Git) Messages(ctx context.Context, shas []string) (map[string]string, error) {
	if len(shas) == 0 {
		return map[string]string{}, nil
	}
	for _, s := range shas {
		if err := checkRev(s); err != nil {
			return nil, fmt.Errorf("read commit messages: %w", err)
		}
	}
	// git log, not git show: show -s of a merge still reads the trees for a combined diff.
	args := append([]string{"log", "--no-walk=unsorted", "--no-color", "--no-show-signature", "-z", "--format=%H%x00%B", "--end-of-options"}, shas...)
	out, err := g.run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read commit messages: %w", err)
	}
	fields := strings.Split(string(out), "\x00")
	msgs := make(map[string]string, len(shas))
	for i := 0; i+1 < len(fields); i += 2 {
		msgs[strings.TrimPrefix(fields[i], "\n")] = strings.TrimSpace(fields[i+1])
	}
	for _, s := range shas {
		if _, ok := msgs[s]; !ok {
			return nil, fmt.Errorf("read commit messages: no message for %s", short(s))
		}
	}
	return msgs, nil
}

// DiffRange is the diff from one commit to another as git shows it by default (three lines of
// context, so that changes a few lines apart are one hunk), renames found: a renamed file's
// hunks are in its old path's numbering.
func (g *Git) DiffRange(ctx context.Context, from, to string) ([]diff.File, error) {
	if err := checkRev(from); err != nil {
		return nil, err
	}
	if err := checkRev(to); err != nil {
		return nil, err
	}
	out, err := g.run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--full-index",
		"-U3", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", short(from), short(to), err)
	}
	files, err := diff.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", short(from), short(to), err)
	}
	return files, nil
}

// Shallow returns the commits at a shallow clone's depth, whose parents the clone does not
// have; nil for a complete clone.
func (g *Git) Shallow(ctx context.Context) (map[string]bool, error) {
	out, err := g.run(ctx, "rev-parse", "--git-path", "shallow")
	if err != nil {
		return nil, fmt.Errorf("find the shallow file: %w", err)
	}
	name := strings.TrimSpace(string(out))
	if !strings.HasPrefix(name, "/") {
		name = g.dir + "/" + name
	}
	data, err := os.ReadFile(name) //nolint:gosec // git's own file in the repository
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the shallow file: %w", err)
	}
	set := map[string]bool{}
	for _, l := range strings.Fields(string(data)) {
		set[l] = true
	}
	return set, nil
}

// DefaultBranch is the branch whose merges make the project's history: the remote's default
// (origin/HEAD) when the clone knows it, else what HEAD names. It returns the name to show
// ("main") and the revision to walk.
func (g *Git) DefaultBranch(ctx context.Context) (name, rev string, err error) {
	if out, err := g.run(ctx, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"); err == nil {
		ref := strings.TrimSpace(string(out))
		return strings.TrimPrefix(ref, "refs/remotes/origin/"), ref, nil
	}
	if out, err := g.run(ctx, "symbolic-ref", "--quiet", "HEAD"); err == nil {
		ref := strings.TrimSpace(string(out))
		if _, err := g.Resolve(ctx, ref); err == nil {
			return strings.TrimPrefix(ref, "refs/heads/"), ref, nil
		}
	}
	return "", "", errors.New("find the default branch: neither origin/HEAD nor HEAD names a branch with commits; pass --branch")
}

// RemoteURL is the URL of the remote name, or "" when there is none.
func (g *Git) RemoteURL(ctx context.Context, name string) string {
	out, err := g.run(ctx, "remote", "get-url", "--", name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
