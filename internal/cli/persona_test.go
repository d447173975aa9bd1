package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/review"
)

func TestPersonaBuildFlags(t *testing.T) {
	t.Parallel()
	ok := []string{"--from-file", "c.jsonl", "--name", "alice", "--out", "p/alice.yaml"}
	tests := []struct {
		name string
		args []string
		want string // error; "" for none
	}{
		{"ok", ok, ""},
		{"no source", ok[2:], "no comments to learn from: give --from-file FILE"},
		{"two sources", append(ok, "--repo", "o/r", "--login", "alice"), "--from-file and --repo cannot be used together"},
		{"repo without login", append(ok[2:4:4], "--repo", "o/r", "--out", "a.yaml"), "--repo needs --login"},
		{"bad repo", append(ok[2:4:4], "--repo", "o", "--login", "a", "--out", "a.yaml"), `--repo: "o" is not a repository`},
		{"bot login", append(ok[2:4:4], "--repo", "o/r", "--login", "x[bot]", "--out", "a.yaml"), `--login "x[bot]" is a bot`},
		{"since without repo", append(ok, "--since", "2026-01-01"), "use them with --repo"},
		{"bad since", append(ok[2:4:4], "--repo", "o/r", "--login", "a", "--since", "May", "--out", "a.yaml"), `--since "May": want a date`},
		{"bad name", append(ok[:2:2], "--name", "Alice!", "--out", "a.yaml"), `--name "Alice!": use`},
		{"no out", ok[:4], "--out is required"},
		{"out not yaml", append(ok[:4:4], "--out", "a.json"), `--out "a.json": a persona document is a .yaml or .yml file`},
		{"bad provider", append(ok, "--provider", "mistral"), `--provider "mistral": must be one of anthropic, openai`},
		{"record and replay", append(ok, "--record", "r", "--replay", "r"), "--record and --replay cannot be used together"},
		{"anonymize without login", append(ok, "--anonymize"), "--anonymize needs --login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *PersonaBuildOptions
			cmd := NewCmdPersonaBuild(&Factory{}, func(_ context.Context, o *PersonaBuildOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&strings.Builder{})
			cmd.SetErr(&strings.Builder{})
			err := cmd.Execute()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && (got.FromFile != "c.jsonl" || got.Name != "alice" || got.Out != "p/alice.yaml"):
				t.Errorf("options %+v", got)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

var commentIndex = regexp.MustCompile(`<comment index="(\d+)">`)

// personaModel answers council persona build from the comments each request shows, and the
// reviews of council review with no findings.
func personaModel(req anthropictest.Request) anthropictest.Reply {
	text := lastTurnText(req)
	if !hasTool(req, persona.Tool) {
		return anthropictest.ToolReply("submit_review", map[string]any{"summary": "- I think this is fine.", "findings": []any{}})
	}
	var shown []int
	for _, m := range commentIndex.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		shown = append(shown, n)
	}
	return anthropictest.ToolReply(persona.Tool, map[string]any{
		"themes": []any{
			map[string]any{"name": "error handling", "count": 3, "example": shown[0]},
			map[string]any{"name": "test determinism", "count": 2, "example": shown[len(shown)-1]},
		},
		"voice":          []any{"I think", "WDYT?"},
		"pushes_back_on": []any{"Errors that are logged and dropped"},
		"lets_pass":      []any{"Formatting"},
		"exemplars":      shown[:min(8, len(shown))],
	})
}

// writeComments writes n comments by alice, plus a bot's and an acknowledgement, as JSONL.
func writeComments(t testing.TB, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		body := fmt.Sprintf("I think comment %d drops the error from `Close` in this handler. Could we wrap it and return it? WDYT?", i)
		if i%5 == 0 {
			body = fmt.Sprintf("nit: test %d sleeps for a second; poll instead?", i)
		}
		c := map[string]any{
			"repo": "acme/widgets", "pr": 100 + i%40, "path": fmt.Sprintf("pkg%d/file.go", i%3), "line": 10 + i, "side": "RIGHT",
			"diff_hunk": "@@ -1,3 +1,4 @@\n func f() {\n-\tx()\n+\ty()\n+\tz()", "body": body, "author": "alice",
			"created_at": time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour).Format(time.RFC3339),
		}
		line, _ := json.Marshal(c)
		b.Write(line)
		b.WriteString("\n")
	}
	b.WriteString(`{"repo":"acme/widgets","pr":1,"path":"a.go","body":"Coverage 80%","author":"codecov[bot]","created_at":"2024-01-01T00:00:00Z"}` + "\n")
	b.WriteString(`{"repo":"acme/widgets","pr":1,"path":"a.go","body":"Thanks, fixed!","author":"alice","created_at":"2024-01-01T00:00:00Z","in_reply_to":1}` + "\n")
	p := filepath.Join(dir, "alice.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPersonaBuildShowReview(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeComments(t, dir, 10)
	out := filepath.Join(dir, "personas", "alice.yaml")
	fake := anthropictest.New(t, anthropictest.WithRespond(personaModel))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}

	r := council(t, env, "persona", "build", "--from-file", in, "--login", "Alice", "--name", "alice", "--out", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	consent := "council: reading the review comments of Alice from " + in + "; they are sent to anthropic (claude-sonnet-5-5)"
	if !strings.HasPrefix(r.err, consent) {
		t.Errorf("stderr does not open with the consent line %q:\n%s", consent, r.err)
	}
	for _, s := range []string{"excluded 2: 1 by a bot, 1 only acknowledges", "request 1 of 1 (all comments): 10 comments", "wrote persona alice to " + out} {
		if !strings.Contains(r.err, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.err)
		}
	}
	if !strings.Contains(r.out, "comments: 10 on 10 pull requests, 2024-01-01 to 2024-01-01\n") || !strings.Contains(r.out, "nits: 2 (20%)") {
		t.Errorf("stdout lacks the stats:\n%s", r.out)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "personas", "alice.comments.jsonl"))
	if err != nil || strings.Count(string(saved), "\n") != 10 {
		t.Errorf("the selected comments were not saved: %v\n%s", err, saved)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := review.LoadDir(map[string][]byte{out: data})
	if err != nil || loaded[0].Kind != review.Persona || len(loaded[0].Exemplars) != 8 {
		t.Fatalf("the document does not load as a persona with 8 exemplars: %v\n%s", err, data)
	}
	if !strings.Contains(loaded[0].Exemplars[1], "I think comment 1 drops the error") {
		t.Errorf("exemplar 2 is not comment 1 verbatim: %s", loaded[0].Exemplars[1])
	}

	r = council(t, env, "persona", "show", out)
	if r.code != ExitOK {
		t.Fatalf("show: exit %d; stderr:\n%s", r.code, r.err)
	}
	for _, s := range []string{
		"👤 Alice (alice), persona", "source: 10 comments by Alice in acme/widgets, 2024-01-01 to 2024-01-01",
		"1. error handling (3 comments)", "Voice: \"I think\", \"WDYT?\"", "1. nit: test 0 sleeps for a second; poll instead?",
		"Statistics:\n  comments: 10 on 10 pull requests",
	} {
		if !strings.Contains(r.out, s) {
			t.Errorf("show lacks %q:\n%s", s, r.out)
		}
	}

	repo := demoRepo(t)
	r = council(t, env, "review", "--repo", repo, "--base", "v1", "--head", "v2", "--lenses", "correctness", "--personas", out, "--no-validate")
	if r.code != ExitOK {
		t.Fatalf("review: exit %d; stderr:\n%s", r.code, r.err)
	}
	found := false
	for _, req := range fake.Requests() {
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if strings.Contains(b.Text, "Review the way Alice does") && strings.Contains(b.Text, "I think comment 1 drops the error") {
					found = true
				}
			}
		}
		for _, b := range req.System {
			if strings.Contains(b.Text, "Review the way Alice does") {
				found = true
			}
		}
	}
	if !found {
		t.Error("no review request carries the built persona's instructions and exemplars")
	}
	if !strings.Contains(r.out, "Council · Alice") {
		t.Errorf("the review does not show the persona:\n%s", r.out)
	}
}

func TestPersonaBuildModelFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeComments(t, dir, 4)
	out := filepath.Join(dir, "bob.yaml")
	fake := anthropictest.New(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.ToolReply(persona.Tool, map[string]any{"themes": []any{map[string]any{"name": "x", "count": 1, "example": 42}}})
	}))
	r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
		"persona", "build", "--from-file", in, "--name", "bob", "--out", out)
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
	}
	want := "persona notes, request 1 of 1 (all comments): themes[0].example is 42, which is not the index of a comment shown in this request (0-3) (the selected comments are in " + filepath.Join(dir, "bob.comments.jsonl") + ")"
	if !strings.Contains(r.err, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bob.comments.jsonl")); err != nil {
		t.Errorf("the comments are lost: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a document was written after a failed distillation")
	}
}

func TestPersonaBuildUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": "http://127.0.0.1:1"}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"body":"x","author":"a","created_at":"2024-01-01T00:00:00Z"}`+"\n"+`{"body":"y","author":"a","created_at":"soon"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	two := writeComments(t, dir, 3)
	if err := os.WriteFile(two, append(must(os.ReadFile(two)), []byte(`{"body":"This needs a test.","author":"bob","created_at":"2024-01-01T00:00:00Z"}`+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no credentials", map[string]string{}, []string{"--from-file", bad}, "no key: set ANTHROPIC_API_KEY"},
		{"bad line", env, []string{"--from-file", bad}, bad + `:2: created_at: "soon" is not an RFC 3339 time`},
		{"several authors", env, []string{"--from-file", two}, "has comments by 2 authors (alice, bob): a persona imitates one; choose with --login"},
		{"nobody left", env, []string{"--from-file", two, "--login", "carol"}, "no comments left to learn from (excluded 6: 1 by a bot, 5 by another author)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := council(t, tt.env, append([]string{"persona", "build", "--name", "x", "--out", filepath.Join(dir, tt.name, "x.yaml")}, tt.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", r.code, r.err, tt.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestPersonaShowErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lens := filepath.Join(dir, "lens.yaml")
	if err := os.WriteFile(lens, []byte("name: extra\nkind: lens\ntitle: Extra\ninstructions: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := council(t, nil, "persona", "show", lens)
	if r.code != ExitUsage || !strings.Contains(r.err, lens+" is a lens, not a persona") {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	r = council(t, nil, "persona", "show", "../../examples/personas/casey.yaml")
	if r.code != ExitOK || !strings.Contains(r.out, "source: none (written by hand)") || !strings.Contains(r.out, "Priorities:\n  1. Deterministic, fast tests") {
		t.Errorf("a hand-written persona: exit %d\n%s%s", r.code, r.out, r.err)
	}
}

// TestPersonaBuildLargeHistory builds from 2,000 comments against the fake: the history must
// be batched within the request limit, and the run says what it sent.
func TestPersonaBuildLargeHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeComments(t, dir, 2000)
	fake := anthropictest.New(t, anthropictest.WithRespond(personaModel))
	r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
		"persona", "build", "--from-file", in, "--login", "alice", "--name", "alice", "--out", filepath.Join(dir, "alice.yaml"))
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	t.Logf("stderr:\n%s", r.err)
	if calls := fake.Calls(); calls < 2 || calls > persona.DefaultMaxRequests {
		t.Errorf("%d requests, want batches and a merge within %d", calls, persona.DefaultMaxRequests)
	}
	if !strings.Contains(r.err, fmt.Sprintf("request %d of %d (merge)", fake.Calls(), fake.Calls())) {
		t.Errorf("stderr does not report the merge:\n%s", r.err)
	}
}
