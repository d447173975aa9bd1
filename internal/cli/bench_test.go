package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// BenchmarkReviewPR100 is a whole --pr --post run on a 100-file pull request against the fake
// GitHub and a fake model that answers at once: the time is what council spends outside the
// model (git, context, anchoring, consolidation, rendering, GitHub requests).
func BenchmarkReviewPR100(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "svc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	run := func(args ...string) string {
		b.Helper()
		return git(b, dir, args...)
	}
	run("init", "-q", "-b", "main")
	for i := 0; i < 100; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%10), fmt.Sprintf("f%03d.go", i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		body := fmt.Sprintf("package pkg%02d\n\n// F%03d adds.\nfunc F%03d(a, b int) int {\n\treturn a + b\n}\n", i%10, i, i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-qm", "base")
	base := strings.TrimSpace(run("rev-parse", "HEAD"))
	for i := 0; i < 100; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%10), fmt.Sprintf("f%03d.go", i))
		body := fmt.Sprintf("package pkg%02d\n\n// F%03d adds, and logs.\nfunc F%03d(a, b int) int {\n\tsum := a + b\n\tprintln(sum)\n\treturn sum\n}\n", i%10, i, i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run("commit", "-qam", "log sums")
	head := strings.TrimSpace(run("rev-parse", "HEAD"))
	patch := run("diff", base, head)

	ai := anthropictest.New(b, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		if isCheck(req) {
			return anthropictest.ToolReply("submit_verdicts", demoVerdict(""))
		}
		return anthropictest.ToolReply("submit_review", map[string]any{"summary": "- ok", "findings": []any{map[string]any{
			"path": "pkg00/f000.go", "line": 6, "quote": "\tprintln(sum)", "severity": "low", "category": "style",
			"title": "Debug print left in", "body": "Remove the println.",
		}}})
	}))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		gh := githubtest.New(b, githubtest.WithToken(prToken, githubtest.PullRequestsWrite, githubtest.IssuesWrite))
		gh.AddPR("acme", "svc", githubtest.PR{Number: 1, Title: "log", State: "open", BaseRef: "main", BaseSHA: base, HeadRef: "f", HeadSHA: head}, patch, nil)
		r := council(b, map[string]string{
			"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": ai.URL,
			"GITHUB_TOKEN": prToken, "GITHUB_API_URL": gh.URL,
		}, "review", "--pr", "acme/svc#1", "--post", "--repo", dir, "--format", "json")
		if r.code != ExitOK {
			b.Fatalf("exit %d: %s", r.code, r.err)
		}
		if i == 0 {
			b.ReportMetric(float64(gh.Requests()), "github-requests")
		}
	}
}
