package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/tools/goproxytest"
)

// TestReviewerReadsADependency: a reviewer greps for a helper by its file name alone and reads
// a Go dependency that go.mod and go.sum pin and the module cache (empty) lacks. With a module
// proxy, the go command downloads it and the reviewer reads its source; with GOPROXY=off the
// reviewer reads a tool error naming GOPROXY, and the review completes either way.
func TestReviewerReadsADependency(t *testing.T) {
	t.Parallel()
	dep := goproxytest.Module{Path: "example.com/Upper/dep", Version: "v1.0.0", Files: map[string]string{
		"dep.go": "package dep\n\n// Answer is the answer.\nfunc Answer() int { return 42 }\n",
	}}
	dir := filepath.Join(t.TempDir(), "app")
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	write("go.mod", "module example.com/app\n\ngo 1.22\n\nrequire example.com/Upper/dep v1.0.0\n")
	write("go.sum", dep.GoSum())
	write("store/helper.go", "package store\n\n// limit is how many items one reservation may take.\nfunc limit() int { return 10 }\n")
	write("store/store.go", "package store\n\nfunc Reserve(n int) bool { return n <= limit() }\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "store")
	git(t, dir, "tag", "base")
	write("store/store.go", "package store\n\nimport \"example.com/Upper/dep\"\n\nfunc Reserve(n int) bool { return n <= limit()+dep.Answer() }\n")
	git(t, dir, "commit", "-qam", "reserve more")

	for _, tt := range []struct {
		name    string
		goproxy string // "" for the loopback proxy
		wantDep string // in read_dependency's answer
		isError bool
	}{
		{name: "downloaded", wantDep: "4 | func Answer() int { return 42 }"},
		{name: "GOPROXY=off", goproxy: "off", wantDep: "GOPROXY=off", isError: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proxy := goproxytest.New(t, dep)
			cache := goproxytest.ModCache(t)
			goEnv := proxy.Env(t, cache)
			if tt.goproxy != "" {
				goEnv = append(goEnv, "GOPROXY="+tt.goproxy)
			}
			var mu sync.Mutex
			results := map[string]anthropictest.Block{} // tool name -> what the reviewer got back
			fake := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
				if isCheck(req) {
					return anthropictest.ToolReply("submit_verdicts", demoVerdict(""))
				}
				if reviewerOf(lastText(req)) != "Correctness" {
					return anthropictest.ToolReply("submit_review", map[string]any{"findings": []any{}})
				}
				switch len(req.Messages) {
				case 1:
					return anthropictest.ToolReply("grep", map[string]any{"pattern": "func limit", "path_glob": "helper.go"})
				case 3:
					mu.Lock()
					results["grep"] = req.Messages[2].Content[0]
					mu.Unlock()
					return anthropictest.ToolReply("read_dependency", map[string]any{"module": "example.com/Upper/dep", "path": "dep.go"})
				default:
					mu.Lock()
					results["read_dependency"] = req.Messages[len(req.Messages)-1].Content[0]
					mu.Unlock()
					return anthropictest.ToolReply("submit_review", map[string]any{"findings": []any{}})
				}
			}))
			var out, errb bytes.Buffer
			env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
			f := &Factory{Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] }, Environ: func() []string { return goEnv }, NewClient: newSDKClient}
			code := Run(context.Background(), f, []string{"review", "--repo", dir, "--base", "base", "--head", "main", "--format", "json"})
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
			}

			mu.Lock()
			defer mu.Unlock()
			answer := func(tool string) (string, bool) {
				b := results[tool]
				if len(b.Content) == 0 {
					t.Fatalf("the reviewer got no answer to %s: %+v", tool, b)
				}
				return b.Content[0].Text, b.IsError
			}
			if got, isErr := answer("grep"); isErr || !strings.Contains(got, "store/helper.go:4: func limit() int { return 10 }") {
				t.Errorf("grep with path_glob helper.go answered %v:\n%s", isErr, got)
			}
			if got, isErr := answer("read_dependency"); isErr != tt.isError || !strings.Contains(got, tt.wantDep) {
				t.Errorf("read_dependency answered %v, want %v and %q:\n%s", isErr, tt.isError, tt.wantDep, got)
			}
			rep := decodeReport(t, out.Bytes())
			var calls []report.ToolCall
			for _, r := range rep.Reviewers {
				if r.Title == "Correctness" {
					calls = r.ToolCalls
				}
			}
			if len(calls) != 2 || calls[1].Tool != "read_dependency" || calls[1].Download != "example.com/Upper/dep@v1.0.0" || (calls[1].Error != "") != tt.isError {
				t.Errorf("tool calls in the report = %+v, want grep, then read_dependency recording the download", calls)
			}
		})
	}
}
