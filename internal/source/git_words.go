package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

// FindWordsTimeout bounds one FindWords, whatever the caller's context allows.
const FindWordsTimeout = 30 * time.Second

// MaxFindWordsBytes caps the output FindWords reads: git prints every occurrence of every
// word, and a common word in a huge tree can fill this. Past it FindWords fails with
// ErrTooManyMatches and the caller searches another way.
const MaxFindWordsBytes = 32 << 20

// ErrTooManyMatches is FindWords' error when the words occur too often to list.
var ErrTooManyMatches = errors.New("the words occur too often to list")

// FindWords lists, for each of words, the files at rev that hold it as a whole word (between
// characters other than letters, digits and underscores; case-sensitive), as paths from the
// repository's root, sorted. dirs limits the search to the files directly in those
// directories ("." for the root's own files), not in their subdirectories; nil searches the
// whole tree. Binary files are skipped. A word no file holds is absent from the map. One git
// grep serves all the words: the context engine uses it to read only the files that may
// define a name.
func (g *Git) FindWords(ctx context.Context, rev string, words, dirs []string) (map[string][]string, error) {
	out := make(map[string][]string)
	for chunk := range slices.Chunk(words, maxWordsPerGrep) {
		found, err := g.findWords(ctx, rev, chunk, dirs)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, found)
	}
	return out, nil
}

// maxWordsPerGrep bounds the regular expression of one git grep.
const maxWordsPerGrep = 500

func (g *Git) findWords(ctx context.Context, rev string, words, dirs []string) (map[string][]string, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("find words: %w", err)
	}
	if len(words) == 0 || dirs != nil && len(dirs) == 0 {
		return map[string][]string{}, nil
	}
	for _, w := range words {
		if w == "" || strings.ContainsAny(w, "\x00\n") {
			return nil, fmt.Errorf("find words: bad word %q", w)
		}
	}
	for _, d := range dirs {
		if strings.ContainsAny(d, "\x00\n") {
			return nil, fmt.Errorf("find words: bad directory %q", d)
		}
	}
	timed, cancel := context.WithTimeout(ctx, FindWordsTimeout)
	defer cancel()
	run, done := context.WithCancel(timed)
	defer done()
	// -o prints each occurrence, so that every word a file holds is seen, and -w only whole
	// ones. The words go in one extended regular expression, each quoted: git tries a list of
	// -e patterns one after the other, which takes several times as long for a hundred words.
	// The --no-* flags pin the output against the user's config.
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	args := []string{"grep", "-o", "-w", "-E", "-z", "-I", "--no-color", "--no-column", "--no-textconv", "--no-recurse-submodules",
		"-e", "(" + strings.Join(quoted, "|") + ")", rev, "--"}
	for _, d := range dirs {
		if d == "." || d == "" {
			args = append(args, ":(glob)*")
		} else {
			args = append(args, ":(glob)"+globEscape(d)+"/*")
		}
	}
	cmd := g.command(run, args...)
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("find words: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 16 << 10}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("find words: %w", err)
	}
	limited := &io.LimitedReader{R: stdout, N: MaxFindWordsBytes + 1}
	found, parseErr := readWords(bufio.NewReaderSize(limited, 64<<10), rev+":")
	if limited.N <= 0 || parseErr != nil {
		done() // git may be blocked writing what will not be read
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("find words at %s: %w", short(rev), ctx.Err())
	case errors.Is(timed.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("find words at %s: %w", short(rev), context.DeadlineExceeded)
	case limited.N <= 0:
		return nil, fmt.Errorf("find %d words at %s: %w (over %d MiB of matches)", len(words), short(rev), ErrTooManyMatches, MaxFindWordsBytes>>20)
	case parseErr != nil:
		return nil, fmt.Errorf("find words at %s: %w", short(rev), parseErr)
	case waitErr != nil:
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) && exit.ExitCode() == 1 && stderr.Len() == 0 {
			return map[string][]string{}, nil // no match
		}
		return nil, &GitError{Args: args[:11], Stderr: stderr.String(), Err: waitErr}
	}
	out := make(map[string][]string, len(found))
	for w, paths := range found {
		out[w] = slices.Sorted(maps.Keys(paths))
	}
	return out, nil
}

// readWords parses git grep -o -z output: "<rev>:<path>\0<match>\n" per occurrence. A path
// and a word are copied once, not per occurrence: a common word occurs thousands of times.
func readWords(r *bufio.Reader, prefix string) (map[string]map[string]bool, error) {
	found := make(map[string]map[string]bool)
	path := ""
	for {
		name, err := r.ReadSlice(0)
		if err == io.EOF {
			return found, nil
		}
		if err != nil {
			return found, err
		}
		p, ok := bytes.CutPrefix(name[:len(name)-1], []byte(prefix))
		if !ok {
			return found, fmt.Errorf("unexpected git grep output: %q", name)
		}
		if string(p) != path { // git lists a file's occurrences together
			path = string(p)
		}
		word, err := r.ReadSlice('\n')
		if err != nil {
			return found, nil // cut off: the caller knows from the limit
		}
		w := word[:len(word)-1]
		paths := found[string(w)]
		if paths == nil {
			paths = make(map[string]bool)
			found[string(w)] = paths
		}
		paths[path] = true
	}
}

// globEscape escapes what a :(glob) pathspec reads as a wildcard.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
