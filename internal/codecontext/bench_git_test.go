package codecontext

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/council-dev/council/internal/source"
)

// BenchmarkBuildGit is BenchmarkBuild on a real repository read through git, as council reads
// one: the same 5,000-file module and 50-file change, committed in b.TempDir(). Setting it up
// takes a few seconds; the figure is the time to assemble the context.
func BenchmarkBuildGit(b *testing.B) {
	mem, files := benchRepo()
	dir := b.TempDir()
	gitRun := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rev string) {
		for p, content := range mem.revs[rev] {
			full := filepath.Join(dir, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	gitRun("init", "-q", "-b", "main")
	write("base")
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	gitRun("tag", "base")
	write("head")
	gitRun("commit", "-qam", "head")
	g, err := source.OpenGit(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	benchBuild(b, g, files, "main")
}
