package cli

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkLearnGit harvests the asks of the newest 2,000 merges of the kubernetes-sized
// history BenchmarkImportGit imports from, without a model: go test -run '^$' -bench
// BenchmarkLearnGit -benchtime 3x ./internal/cli/
func BenchmarkLearnGit(b *testing.B) {
	dir, since, _ := benchHistory(b)
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		res := council(b, nil, "learn", "--git", dir, "--name", "kubernetes/kubernetes", "--since", since.Format(time.RFC3339), "--dry-run")
		if res.code != ExitOK {
			b.Fatalf("exit %d\n%s", res.code, res.err)
		}
		if !strings.Contains(res.err, "2001 merges walked") && !strings.Contains(res.err, "2000 merges walked") {
			b.Fatalf("the harvest did not walk 2,000 merges:\n%s", lastLines(res.err, 8))
		}
		peak = max(peak, heapSys())
		for line := range strings.Lines(res.err) {
			if strings.Contains(line, "walked") || strings.Contains(line, "skipped:") || strings.Contains(line, "dropped:") {
				b.Logf("%s", strings.TrimSpace(line))
			}
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-sys-MiB")
}
