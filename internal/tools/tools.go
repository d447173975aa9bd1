// Package tools is the read-only repository tools a reviewer may call while it reviews: read a
// file (or a range of it) at the change's base or head, grep, list files, the log of a path,
// and read a Go dependency's source at the version go.mod pins, from the module cache, which
// the go command fills when the caller allows downloads. A Box serves one conversation under
// a budget of calls and bytes and records every call.
//
// What the model sends is untrusted, and so is the repository under review. The tools must
// never write, never run anything but fixed git commands and, to download a module version
// that go.mod and go.sum pin, `go mod download` outside the repository, never read the work
// tree or anything outside the repository's objects (but the module cache directory the
// caller names, which read_dependency reads and nothing else does), never follow a symbolic
// link or enter a submodule, never touch the network but through that go command, never
// read the environment (the caller gives the go command its environment), and never let the
// model choose a revision: it says "head" or "base", and the Box maps those onto the
// revisions it was built with. Whatever the input, a call answers a tool error, never a
// panic.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/council-dev/council/internal/source"
)

// Repo is what the tools read.
type Repo interface {
	ReadFile(ctx context.Context, rev, path string) ([]byte, error)
	ListFiles(ctx context.Context, rev, dir string) ([]string, error)
	Entry(ctx context.Context, rev, path string) (source.EntryInfo, error)
	Grep(ctx context.Context, rev, pattern string, pathGlobs []string, maxMatches int) ([]source.GrepMatch, bool, error)
	Files(ctx context.Context, rev string, pathGlobs []string) ([]string, error)
	Log(ctx context.Context, path, rev string, n int) ([]source.LogEntry, error)
}

var _ Repo = (*source.Git)(nil)

// Tool names, as the model sees them.
const (
	ReadFile       = "read_file"
	Grep           = "grep"
	ListFiles      = "list_files"
	GitLog         = "git_log"
	ReadDependency = "read_dependency"
)

// Fixed caps of the tools' answers.
const (
	MaxGrepMatches = 100
	MaxListed      = 500
	MaxLogEntries  = 20
	defaultLog     = 10
	// maxLine cuts a long matching line (minified code) in a search's answer.
	maxLine = 300
	// binarySniff is how much of a file is checked for a NUL byte, as git does.
	binarySniff = 8 << 10
	maxPathLen  = 4096
	// minAnswer is the smallest budget worth a call: less leaves room for little more than
	// the truncation note, so the byte budget counts as spent.
	minAnswer = 256
)

// Limits bound one conversation. A zero field takes its default.
type Limits struct {
	MaxCalls      int // tool calls per conversation; default 20
	MaxBytes      int // bytes returned per call, beyond which the answer is cut with a note; default 20,000, at least 256
	MaxTotalBytes int // bytes returned per conversation; default 200,000
	MaxFileBytes  int // read_file refuses a larger file unless a line range is given; default 1 MiB
	// GrepTimeout bounds one grep: git grep -E backtracks, and some patterns take minutes;
	// default 5s.
	GrepTimeout time.Duration
	// ModuleCache is the Go module cache directory (GOMODCACHE) read_dependency reads
	// dependencies from: the one place outside the repository the tools read, and where the
	// go command puts what Download downloads. The caller finds it ($GOMODCACHE, else what
	// `go env GOMODCACHE` says), once; the tools never read the environment. "" leaves
	// read_dependency answering that no module cache is configured.
	ModuleCache string
	// Download lets read_dependency download a module version that go.mod and go.sum pin and
	// the cache lacks. nil never downloads; NoDownload then says why, to the model (for
	// example "tools.download_modules is false in .council.yaml").
	Download   *Download
	NoDownload string
}

// Defaults of Limits.
const (
	DefaultMaxCalls      = 20
	DefaultMaxBytes      = 20_000
	DefaultMaxTotalBytes = 200_000
	DefaultMaxFileBytes  = 1 << 20
	DefaultGrepTimeout   = 5 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	l.MaxBytes = max(l.MaxBytes, minAnswer)
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.GrepTimeout <= 0 {
		l.GrepTimeout = DefaultGrepTimeout
	}
	return l
}

// Call is the record of one tool call, refused ones included.
type Call struct {
	Tool      string `json:"tool"`
	Input     string `json:"input"`          // compact JSON, or the raw input when it is not JSON
	Path      string `json:"path,omitempty"` // the file or directory read, the glob grepped
	Rev       string `json:"rev,omitempty"`  // "head" or "base"
	Start     int    `json:"start,omitempty"`
	End       int    `json:"end,omitempty"`
	Bytes     int    `json:"bytes"` // bytes returned to the model
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"` // the tool error the model got
	// Download is the module version read_dependency asked the go command to download for
	// this call, or whose download by another call it waited for or found failed, and
	// DownloadMS how long this call waited; failed downloads are recorded too.
	Download   string `json:"download,omitempty"`
	DownloadMS int64  `json:"download_ms,omitempty"`
}

// Box serves the tools to one conversation (one reviewer on one unit). It is safe for
// concurrent use: a model may ask for several calls in one turn.
type Box struct {
	repo Repo
	revs map[string]string // "head", "base" -> the revision given to New
	l    Limits

	mu       sync.Mutex
	calls    []Call
	admitted int // calls let through to a tool
	used     int // bytes returned or reserved for calls in flight
}

// New returns a Box over repo at baseRev and headRev (commit SHAs, best). An empty baseRev
// leaves "base" unavailable.
func New(repo Repo, baseRev, headRev string, l Limits) *Box {
	revs := map[string]string{"head": headRev}
	if baseRev != "" {
		revs["base"] = baseRev
	}
	return &Box{repo: repo, revs: revs, l: l.withDefaults()}
}

// Calls returns every call made so far, in the order they were made.
func (b *Box) Calls() []Call {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Call(nil), b.calls...)
}

// MaxCalls is how many tool calls the conversation may make; the model is told it.
func (b *Box) MaxCalls() int { return b.l.MaxCalls }

// Exhausted reports whether the call or byte budget is spent (less than 256 bytes left):
// further calls are refused, and the caller should ask the model for its final answer without
// tools. Bytes reserved by calls still in flight count as spent until they return.
func (b *Box) Exhausted() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.exhaustedLocked()
}

func (b *Box) exhaustedLocked() bool {
	return b.admitted >= b.l.MaxCalls || b.l.MaxTotalBytes-b.used < minAnswer
}

// toolError is a refusal the model reads: it says what was wrong and what to do instead.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// Call runs the tool name with input (its JSON arguments) and returns what the model reads:
// the result, or a tool error with isError set. It never panics on any input.
func (b *Box) Call(ctx context.Context, name string, input json.RawMessage) (result string, isError bool) {
	rec := Call{Tool: name, Input: compact(input)}
	b.mu.Lock()
	idx := len(b.calls)
	if b.exhaustedLocked() {
		msg := fmt.Sprintf("tool budget spent (%d of %d calls, %d of %d bytes): no more tool calls; give your final answer now",
			b.admitted, b.l.MaxCalls, b.used, b.l.MaxTotalBytes)
		rec.Error, rec.Bytes = msg, len(msg)
		b.calls = append(b.calls, rec)
		b.mu.Unlock()
		return msg, true
	}
	b.admitted++
	// The budget is reserved before the call runs, so calls in flight together cannot
	// overspend it; what is not used is given back.
	budget := min(b.l.MaxBytes, b.l.MaxTotalBytes-b.used)
	b.used += budget
	b.calls = append(b.calls, rec)
	b.mu.Unlock()

	out, err := b.dispatch(ctx, name, input, budget, &rec)
	if err != nil {
		var te *toolError
		if !errors.As(err, &te) {
			// A git failure: what git said is about the repository, not a secret, and
			// tells the model why; it is cut like any answer.
			err = refuse("%s failed: %v", name, err)
		}
		out, rec.Truncated = cut(err.Error(), max(budget, 500))
		rec.Error = out
		isError = true
	}
	rec.Bytes = len(out)

	b.mu.Lock()
	b.used += rec.Bytes - budget
	b.calls[idx] = rec
	b.mu.Unlock()
	return out, isError
}

func (b *Box) dispatch(ctx context.Context, name string, input json.RawMessage, budget int, rec *Call) (string, error) {
	switch name {
	case ReadFile:
		var in readFileInput
		if err := decode(name, input, &in); err != nil {
			return "", err
		}
		return b.readFile(ctx, in, budget, rec)
	case Grep:
		var in grepInput
		if err := decode(name, input, &in); err != nil {
			return "", err
		}
		return b.grep(ctx, in, budget, rec)
	case ListFiles:
		var in listFilesInput
		if err := decode(name, input, &in); err != nil {
			return "", err
		}
		return b.listFiles(ctx, in, budget, rec)
	case GitLog:
		var in gitLogInput
		if err := decode(name, input, &in); err != nil {
			return "", err
		}
		return b.gitLog(ctx, in, budget, rec)
	case ReadDependency:
		var in readDependencyInput
		if err := decode(name, input, &in); err != nil {
			return "", err
		}
		return b.readDependency(ctx, in, budget, rec)
	default:
		return "", refuse("unknown tool %q; the tools are %s, %s, %s, %s and %s", name, ReadFile, Grep, ListFiles, GitLog, ReadDependency)
	}
}

// decode reads a tool's arguments strictly: unknown fields and trailing data are errors the
// model can correct, not silently ignored.
func decode(tool string, input json.RawMessage, v any) error {
	data := bytes.TrimSpace(input)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		data = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	if err != nil {
		return refuse("bad arguments for %s: %v; send one JSON object with the fields the tool's schema lists", tool, err)
	}
	return nil
}

func compact(input json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err == nil {
		return buf.String()
	}
	s := string(input)
	if len(s) > 1000 {
		s = s[:1000]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// rev maps the model's "head" or "base" onto the Box's revision.
func (b *Box) rev(name string) (key, rev string, err error) {
	key = strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		key = "head"
	}
	if key != "head" && key != "base" {
		return "", "", refuse(`rev must be "head" (the change, the default) or "base" (before the change), not %q`, name)
	}
	rev, ok := b.revs[key]
	if !ok || rev == "" {
		return "", "", refuse("this change has no %s revision", key)
	}
	return key, rev, nil
}

// cleanPath checks a repository-relative path from the model and returns it cleaned, "." for
// the root. Nothing is read: the checks that need the tree are confine's.
func cleanPath(p string) (string, error) {
	switch {
	case strings.ContainsRune(p, 0):
		return "", refuse("path contains a NUL byte")
	case len(p) > maxPathLen:
		return "", refuse("path is longer than %d bytes", maxPathLen)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || hasDrive(p):
		return "", refuse("absolute path %q refused: give a path relative to the repository root, like internal/tools/tools.go", p)
	}
	c := path.Clean(p)
	for _, seg := range strings.Split(c, "/") {
		if seg == ".." {
			return "", refuse("path %q leaves the repository: '..' segments are refused; give a path relative to the repository root", p)
		}
	}
	return c, nil
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// confine looks up a cleaned path at rev and refuses symbolic links and submodules, and paths
// that go through them. git never follows a link while walking a tree, so a path found is
// made of real directories; a path not found is explained by walking its parents.
func (b *Box) confine(ctx context.Context, key, rev, p string) (source.EntryInfo, error) {
	e, err := b.repo.Entry(ctx, rev, p)
	if errors.Is(err, fs.ErrNotExist) {
		for i := 0; i < len(p); i++ {
			if p[i] != '/' {
				continue
			}
			parent := p[:i]
			pe, perr := b.repo.Entry(ctx, rev, parent)
			if errors.Is(perr, fs.ErrNotExist) {
				break
			}
			if perr != nil {
				return source.EntryInfo{}, perr
			}
			switch {
			case pe.Mode == source.ModeSymlink:
				return source.EntryInfo{}, refuse("%s goes through %s, a symbolic link at %s; symbolic links are not followed", p, parent, key)
			case pe.Type == "commit":
				return source.EntryInfo{}, refuse("%s is inside %s, a submodule at %s; submodules are not readable", p, parent, key)
			case pe.Type != "tree":
				return source.EntryInfo{}, refuse("%s is not a directory at %s, so %s does not exist", parent, key, p)
			}
		}
		return source.EntryInfo{}, refuse("%s does not exist at %s%s", p, key, b.suggest(ctx, rev, path.Base(p), "; list_files or grep can find the right path"))
	}
	if err != nil {
		return source.EntryInfo{}, err
	}
	switch {
	case e.Mode == source.ModeSymlink:
		return source.EntryInfo{}, refuse("%s is a symbolic link at %s; symbolic links are not followed", p, key)
	case e.Type == "commit":
		return source.EntryInfo{}, refuse("%s is a submodule at %s; submodules are not readable", p, key)
	}
	return e, nil
}

// cut shortens s to at most limit bytes, at a line end when one is near, else at a rune
// boundary, and says how much was left out.
func cut(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	note := func(n int) string {
		return fmt.Sprintf("\n[truncated: %d more bytes; ask for a narrower range]\n", n)
	}
	keep := max(0, limit-len(note(len(s))))
	if nl := strings.LastIndexByte(s[:keep], '\n'); nl >= keep/2 {
		keep = nl + 1
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return strings.TrimSuffix(s[:keep], "\n") + note(len(s)-keep), true
}

// cutLine shortens one long line of a search's answer to about maxLine bytes, at a space when
// one is near the end, else at a rune boundary, and says how many characters are left out.
func cutLine(s string) string {
	if len(s) <= maxLine {
		return s
	}
	k := maxLine
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	if sp := strings.LastIndexAny(s[:k], " \t"); sp >= maxLine*2/3 {
		k = sp
	}
	return fmt.Sprintf("%s [… %d more characters]", strings.TrimRight(s[:k], " \t"), utf8.RuneCountInString(s[k:]))
}

// maxSuggestions caps the paths a "did you mean" lists.
const maxSuggestions = 5

// suggest lists, after "; ", the files and directories at rev whose base name matches name (a
// path.Match pattern, compared without regard to case), for an answer that says a path does
// not exist; none gives orElse. A failure to list is not the caller's concern: it gives
// orElse.
func (b *Box) suggest(ctx context.Context, rev, name, orElse string) string {
	name = strings.ToLower(name)
	if name == "" || name == "." || name == "**" {
		return orElse
	}
	files, err := b.repo.ListFiles(ctx, rev, ".")
	if err != nil {
		return orElse
	}
	var found []string
	seen := map[string]bool{}
	for _, f := range files {
		for p, dir := f, ""; p != "." && !seen[p]; p, dir = path.Dir(p), "/" {
			seen[p] = true
			if ok, _ := path.Match(name, strings.ToLower(path.Base(p))); ok {
				found = append(found, p+dir)
			}
		}
	}
	if len(found) == 0 {
		return orElse
	}
	more := ""
	if len(found) > maxSuggestions {
		more = fmt.Sprintf(" and %d more", len(found)-maxSuggestions)
		found = found[:maxSuggestions]
	}
	return fmt.Sprintf("; did you mean %s%s?", strings.Join(found, ", "), more)
}
