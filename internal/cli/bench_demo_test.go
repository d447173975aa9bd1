package cli

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

var updateBenchDemo = flag.Bool("update-bench-demo", false, "re-record examples/bench/recording against the scripted fake")

const (
	benchDemoDir       = "../../examples/bench"
	benchDemoRecording = benchDemoDir + "/recording"
)

// benchDemoWorkspace lays out what examples/bench/replay.sh does: the demo repository next to
// a copy of the dataset, whose sample names it as ../inventory.
func benchDemoWorkspace(t *testing.T) (dataset string) {
	t.Helper()
	work := t.TempDir()
	if out, err := exec.Command("bash", "../../examples/demo/make-repo.sh", filepath.Join(work, "inventory")).CombinedOutput(); err != nil {
		t.Fatalf("make demo repo: %v\n%s", err, out)
	}
	dataset = filepath.Join(work, "dataset")
	if err := os.MkdirAll(dataset, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(benchDemoDir, "dataset", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeText(t, filepath.Join(dataset, filepath.Base(f)), string(data))
	}
	return dataset
}

// TestBenchDemoReplays keeps examples/bench true: the committed recording answers every request
// bench run makes for the demo dataset, and the score and report come out of it. After a change
// to the prompts, re-record: go test ./internal/cli -run TestBenchDemo -update-bench-demo
func TestBenchDemoReplays(t *testing.T) {
	dataset := benchDemoWorkspace(t)
	run := filepath.Join(filepath.Dir(dataset), "runs", "demo")
	if *updateBenchDemo {
		fake := anthropicDemo(t)
		if err := os.RemoveAll(benchDemoRecording); err != nil {
			t.Fatal(err)
		}
		r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
			"bench", "run", dataset, "--out", filepath.Join(t.TempDir(), "recorded"), "--record", benchDemoRecording)
		if r.code != ExitOK {
			t.Fatalf("record: exit %d\n%s", r.code, r.err)
		}
	}
	r := council(t, map[string]string{}, "bench", "run", dataset, "--out", run, "--replay", benchDemoRecording)
	if r.code != ExitOK {
		t.Fatalf("replaying %s: exit %d\n%s\nIf the prompts changed on purpose, re-record: go test ./internal/cli -run TestBenchDemo -update-bench-demo",
			benchDemoRecording, r.code, r.err)
	}
	r = council(t, map[string]string{}, "bench", "score", run, "--truth", dataset)
	if r.code != ExitOK {
		t.Fatalf("score: exit %d\n%s", r.code, r.err)
	}
	data, err := os.ReadFile(filepath.Join(run, "score.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc bench.Score
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	// The scripted reviewers raise the path traversal, the race and the dropped Atoi error, at
	// the lines the humans commented on; nobody raises the Content-Type, ExportDir or tests.
	tiers := map[string]bench.TierScore{}
	for _, ts := range sc.Tiers {
		tiers[ts.Tier] = ts
	}
	if got := tiers[bench.TierL1].TP; got != 3 {
		t.Errorf("L1 matched %d human comments, want 3 (path traversal, race, Atoi)\n%s", got, r.out)
	}
	if got := tiers[bench.TierL2].TP; got < 2 || got > 3 {
		t.Errorf("L2 matched %d human comments, want the L1 matches whose wording is close enough\n%s", got, r.out)
	}
	if sc.TruthItems != 6 {
		t.Errorf("%d truth items scored, want the sample's 6", sc.TruthItems)
	}

	// The calibration labels shipped with the demo name findings of this very run.
	r = council(t, map[string]string{}, "bench", "calibrate", run, "--truth", dataset, "--labels", filepath.Join(benchDemoDir, "labels.jsonl"))
	if r.code != ExitOK {
		t.Fatalf("calibrate: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	if !strings.Contains(r.out, "similarity_threshold:") {
		t.Errorf("calibrate does not print the config line:\n%s", r.out)
	}

	report := filepath.Join(t.TempDir(), "report.html")
	if r := council(t, map[string]string{}, "bench", "report", run, "--out", report); r.code != ExitOK {
		t.Fatalf("report: exit %d\n%s", r.code, r.err)
	}
	if html := readFile(t, report); !strings.Contains(html, "Validate the name") && !strings.Contains(html, "filepath.Base") {
		t.Error("the report's drill-down does not show the human comments")
	}
}
