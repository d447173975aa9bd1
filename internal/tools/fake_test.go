package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/tools"
)

// fakeRepo records what the tools ask of a repository; it has one file, a.go.
type fakeRepo struct {
	asked []string
	grep  func(ctx context.Context) ([]source.GrepMatch, bool, error)
}

func (r *fakeRepo) ReadFile(_ context.Context, rev, path string) ([]byte, error) {
	r.asked = append(r.asked, fmt.Sprintf("ReadFile %s %s", rev, path))
	return []byte("package a\n"), nil
}

func (r *fakeRepo) ListFiles(_ context.Context, rev, dir string) ([]string, error) {
	r.asked = append(r.asked, fmt.Sprintf("ListFiles %s %s", rev, dir))
	return []string{"a.go"}, nil
}

func (r *fakeRepo) Entry(_ context.Context, rev, path string) (source.EntryInfo, error) {
	r.asked = append(r.asked, fmt.Sprintf("Entry %s %s", rev, path))
	return source.EntryInfo{Type: "blob", Mode: "100644", Size: 10}, nil
}

func (r *fakeRepo) Grep(ctx context.Context, rev, pattern string, globs []string, n int) ([]source.GrepMatch, bool, error) {
	r.asked = append(r.asked, fmt.Sprintf("Grep %s %q %q %d", rev, pattern, globs, n))
	if r.grep != nil {
		return r.grep(ctx)
	}
	return nil, false, nil
}

func (r *fakeRepo) Files(_ context.Context, rev string, globs []string) ([]string, error) {
	r.asked = append(r.asked, fmt.Sprintf("Files %s %q", rev, globs))
	return nil, nil
}

func (r *fakeRepo) Log(_ context.Context, path, rev string, n int) ([]source.LogEntry, error) {
	r.asked = append(r.asked, fmt.Sprintf("Log %s %s %d", path, rev, n))
	return nil, nil
}

// TestRepoRequests: what reaches the repository is the Box's own revision, never the model's
// words, with the caps applied.
func TestRepoRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, input string
		want        []string
	}{
		{"read_file", `{"path":"a.go","rev":"base"}`, []string{"Entry BASE a.go", "ReadFile BASE a.go"}},
		{"read_file", `{"path":"./x/../a.go"}`, []string{"Entry HEAD a.go", "ReadFile HEAD a.go"}},
		// A glob without a slash matches names at any depth, and what is under a directory
		// so named; with no match, the files it matches are counted, else similar names
		// looked for.
		{"grep", `{"pattern":"x","path_glob":"*.go"}`, []string{`Grep HEAD "x" ["**/*.go" "**/*.go/**"] 100`, `Files HEAD ["**/*.go" "**/*.go/**"]`, "ListFiles HEAD ."}},
		{"grep", `{"pattern":"x","path_glob":"helper.go/"}`, []string{`Grep HEAD "x" ["**/helper.go" "**/helper.go/**"] 100`, `Files HEAD ["**/helper.go" "**/helper.go/**"]`, "ListFiles HEAD ."}},
		{"grep", `{"pattern":"x","path_glob":"internal/*.go","rev":"base"}`, []string{`Grep BASE "x" ["internal/*.go"] 100`, `Files BASE ["internal/*.go"]`, "ListFiles BASE ."}},
		{"grep", `{"pattern":"x","path_glob":"./Makefile"}`, []string{`Grep HEAD "x" ["Makefile"] 100`, `Files HEAD ["Makefile"]`, "ListFiles HEAD ."}},
		{"grep", `{"pattern":"x","path_glob":"."}`, []string{`Grep HEAD "x" [] 100`}},
		{"list_files", `{}`, []string{"ListFiles HEAD ."}},
		{"git_log", `{"path":"a.go"}`, []string{"Log a.go HEAD 10"}},
		{"git_log", `{"path":"a.go","max":500}`, []string{"Log a.go HEAD 20"}},
		{"read_file", `{"path":"a.go","rev":"HEAD^"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.input, func(t *testing.T) {
			t.Parallel()
			r := &fakeRepo{}
			b := tools.New(r, "BASE", "HEAD", tools.Limits{})
			b.Call(context.Background(), tt.tool, json.RawMessage(tt.input))
			if diff := cmp.Diff(tt.want, r.asked); diff != "" {
				t.Errorf("repository calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGrepResults(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400)                    // 800 bytes, no space: cut on a rune boundary
	words := "ab " + strings.Repeat("lorem ipsum ", 40) // 483 bytes, byte 300 inside "ipsum": cut before it
	tests := []struct {
		name    string
		grep    func(ctx context.Context) ([]source.GrepMatch, bool, error)
		wantErr bool
		want    string
	}{
		{name: "deadline", wantErr: true, want: "pattern took too long (over 10ms); simplify it: avoid nested repetition like (a+)+, or narrow path_glob",
			grep: func(ctx context.Context) ([]source.GrepMatch, bool, error) {
				<-ctx.Done()
				return nil, false, fmt.Errorf("grep: %w", ctx.Err())
			}},
		{name: "git failure", wantErr: true, want: "grep failed: disk on fire",
			grep: func(context.Context) ([]source.GrepMatch, bool, error) { return nil, false, errors.New("disk on fire") }},
		{name: "long line cut", want: "a.go:1: " + long[:300] + " [… 250 more characters]\n",
			grep: func(context.Context) ([]source.GrepMatch, bool, error) {
				return []source.GrepMatch{{Path: "a.go", Line: 1, Text: long}}, false, nil
			}},
		{name: "long line cut at a word", want: "a.go:1: " + words[:296] + " [… 187 more characters]\n",
			grep: func(context.Context) ([]source.GrepMatch, bool, error) {
				return []source.GrepMatch{{Path: "a.go", Line: 1, Text: words}}, false, nil
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tools.New(&fakeRepo{grep: tt.grep}, "BASE", "HEAD", tools.Limits{GrepTimeout: 10 * time.Millisecond})
			got, isErr := b.Call(context.Background(), "grep", json.RawMessage(`{"pattern":"x"}`))
			if isErr != tt.wantErr || got != tt.want {
				t.Errorf("got %v %q, want %v %q", isErr, got, tt.wantErr, tt.want)
			}
		})
	}
}
