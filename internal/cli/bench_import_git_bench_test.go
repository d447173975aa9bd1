package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Kubernetes' history holds about 130,000 commits, merged by its bots with merge commits:
// benchHistory builds one of that size with git fast-import. Every branch forks from main's
// tip, changes a line of one of 500 files per commit, and one in eight answers review with a
// change to the file its first commit changed.
const (
	benchMerges      = 20000
	benchFiles       = 500
	benchFileLines   = 60
	benchImportSince = 18000 // the import reads the merges from this one on: the newest 2,000
)

// benchHistory writes the history into a new bare repository and returns it, with the date
// of merge number benchImportSince.
func benchHistory(b *testing.B) (dir string, since time.Time, commits int) {
	b.Helper()
	dir = filepath.Join(b.TempDir(), "big.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	files := make([][]string, benchFiles)
	for i := range files {
		for j := range benchFileLines {
			files[i] = append(files[i], fmt.Sprintf("\tvalue%03d_%02d := compute(%d, %d)", i, j, i, j))
		}
	}
	content := func(i int) string {
		return fmt.Sprintf("package p%03d\n\nfunc f() {\n%s\n}\n", i, strings.Join(files[i], "\n"))
	}
	start := time.Date(2014, 6, 1, 0, 0, 0, 0, time.UTC)
	mark, clock := 0, 0
	commit := func(ref string, from int, merge int, who, msg string, file int) int {
		mark++
		clock++
		at := start.Add(time.Duration(clock) * 10 * time.Minute).Unix()
		fmt.Fprintf(w, "commit %s\nmark :%d\nauthor %s <%s@example.com> %d +0000\ncommitter %s <%s@example.com> %d +0000\ndata %d\n%s\n",
			ref, mark, who, who, at, who, who, at, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(w, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(w, "merge :%d\n", merge)
		}
		if file >= 0 {
			c := content(file)
			fmt.Fprintf(w, "M 100644 inline p%03d/f.go\ndata %d\n%s\n", file, len(c), c)
		}
		fmt.Fprintln(w)
		return mark
	}
	// The first commit holds every file.
	mark++
	fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\nauthor a <a@example.com> %d +0000\ncommitter a <a@example.com> %d +0000\ndata 7\ninitial\n",
		mark, start.Unix(), start.Unix())
	for i := range files {
		c := content(i)
		fmt.Fprintf(w, "M 100644 inline p%03d/f.go\ndata %d\n%s\n", i, len(c), c)
	}
	fmt.Fprintln(w)
	tip := mark
	commits = 1
	rnd := uint64(1)
	next := func(n int) int { // a fixed sequence: the same history on every run
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return int((rnd >> 33) % uint64(n))
	}
	for m := 1; m <= benchMerges; m++ {
		if m == benchImportSince {
			since = start.Add(time.Duration(clock+1) * 10 * time.Minute)
		}
		who := fmt.Sprintf("dev%d", next(300))
		n := 1 + next(10)
		feedbackAt := -1
		if m%8 == 0 && n > 1 {
			feedbackAt = 1 + next(n-1)
		}
		branchTip := tip
		first := -1
		for c := range n {
			file := next(benchFiles)
			line := next(benchFileLines)
			if c == 0 {
				first = file
			}
			if c == feedbackAt {
				file = first // review asks for changes in what the branch changed
			}
			files[file][line] = fmt.Sprintf("\tvalue%03d_%02d := compute(%d, %d) + %d", file, line, file, line, m)
			msg := fmt.Sprintf("pkg%03d: change %d of #%d", file, c, m)
			if c == feedbackAt {
				msg = "Address review comments"
			}
			branchTip = commit("refs/heads/topic", branchTip, 0, who, msg, file)
			commits++
		}
		tip = commit("refs/heads/main", tip, branchTip, "k8s-ci-robot",
			fmt.Sprintf("Merge pull request #%d from %s/topic-%d\n\nChange things (%d)", m, who, m, m), -1)
		commits++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := stdin.Close(); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("git fast-import: %v", err)
	}
	return dir, since, commits
}

// BenchmarkImportGit imports the newest 2,000 merges of a kubernetes-sized history (130,000
// commits): go test -run '^$' -bench BenchmarkImportGit -benchtime 3x ./internal/cli/
func BenchmarkImportGit(b *testing.B) {
	dir, since, commits := benchHistory(b)
	b.Logf("history: %d commits, %d merges; importing the merges since %s", commits, benchMerges, since.Format(time.RFC3339))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		out := filepath.Join(b.TempDir(), "bench")
		res := council(b, nil, "bench", "import", "--git", dir, "--name", "kubernetes/kubernetes", "--since", since.Format(time.RFC3339), "--out", out)
		if res.code != ExitOK {
			b.Fatalf("exit %d\n%s", res.code, res.err)
		}
		if !strings.Contains(res.err, "2001 merges since") && !strings.Contains(res.err, "2000 merges since") {
			b.Fatalf("the import did not read 2,000 merges:\n%s", lastLines(res.err, 6))
		}
		peak = max(peak, heapSys())
		b.Logf("%s", lastLines(res.err, 4))
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-sys-MiB")
}

// heapSys is the heap the process holds from the system now: its peak over a benchmark's
// iterations is what a run needs.
func heapSys() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapSys
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
