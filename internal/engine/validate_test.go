package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/provider/anthropic"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/validate"
)

// changelogRepo is a repository whose head changes main.go and adds two lines to
// CHANGELOG.md.
func changelogRepo(t *testing.T) string {
	t.Helper()
	dir, run, write := gitRepo(t)
	run("init", "-q", "-b", "main")
	write("main.go", "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n")
	write("CHANGELOG.md", "# Changelog\n\n## 1.0\n\n- First release.\n")
	run("add", ".")
	run("commit", "-qm", "base")
	run("tag", "base")
	write("main.go", "package main\n\nimport \"os\"\n\nfunc main() {\n\tprintln(\"hello\", os.Args[1])\n}\n")
	write("CHANGELOG.md", "# Changelog\n\n## 1.1\n\n- Greet the first argument.\n\n## 1.0\n\n- First release.\n")
	run("commit", "-qam", "greet the first argument")
	run("tag", "head")
	return dir
}

// The validator's check of an issue in one file of a change lists the change's other files: a
// CHANGELOG.md changed beside the code is named, with what happened to it and its counts. The
// check shares the reviewers' prefix (system prompt, tools and change, the same bytes), so it
// reads the prompt cache the reviewers' warm-up wrote; and it passes the Anthropic fake's rules.
func TestValidatorSharesTheReviewersPrefix(t *testing.T) {
	t.Parallel()
	repo := changelogRepo(t)
	s, err := Open(context.Background(), Options{Repo: repo, Base: "base", Head: "head", NoTools: true, Lenses: []string{"correctness", "security"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fake := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		switch anthropictest.ToolAsked(req) {
		case validate.VerdictTool:
			return anthropictest.ToolReply(validate.VerdictTool, map[string]any{"verdicts": []any{map[string]any{
				"issue": 1, "reason": "os.Args[1] panics without an argument.", "decision": "keep", "severity": "high", "attention": true,
			}}})
		case "submit_review":
			return anthropictest.ToolReply("submit_review", map[string]any{"summary": "- A crash.", "findings": []any{map[string]any{
				"path": "main.go", "line": 6, "quote": "\tprintln(\"hello\", os.Args[1])", "severity": "high", "category": "bug",
				"title": "Index out of range without an argument", "body": "`os.Args[1]` panics when no argument is given.", "confidence": 0.9,
			}}})
		}
		return anthropictest.TextReply("")
	}))
	client := anthropic.New(anthropic.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
	rep := s.Run(context.Background(), client, nil)
	if rep.Validation.Requests != 1 || len(rep.Validation.Errors) > 0 {
		t.Fatalf("validation = %+v, want one check that the fake accepted", rep.Validation)
	}
	var check, review anthropictest.Request
	for _, req := range fake.Requests() {
		switch anthropictest.ToolAsked(req) {
		case validate.VerdictTool:
			check = req
		case "submit_review":
			review = req
		}
	}
	prefix := check.Messages[0].Content[0].Text
	if !strings.Contains(prefix, "- `CHANGELOG.md` (modified, +4 -0)\n") || !strings.Contains(prefix, "- `main.go` (modified, +3 -1)\n") {
		t.Errorf("the validator's request does not list the change's files:\n%s", prefix)
	}
	if !strings.Contains(check.Messages[0].Content[1].Text, "File: `main.go`\n") {
		t.Errorf("the issue does not name its file:\n%s", check.Messages[0].Content[1].Text)
	}
	if prefix != review.Messages[0].Content[0].Text || !cmp.Equal(check.System, review.System) || !cmp.Equal(check.Tools, review.Tools) {
		t.Errorf("the check's system prompt, tools or change differ from the reviewers'")
	}
	if u := rep.Validation.Usage; u.CacheReadTokens == 0 || u.CacheWriteTokens != 0 {
		t.Errorf("validator usage %+v: want the shared prefix read from the cache, nothing written", u)
	}
}
