package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

var updateDemo = flag.Bool("update-demo", false, "re-record examples/demo/recording against the scripted fake")

const demoRecording = "../../examples/demo/recording"

// TestDemoRecordingReplays keeps the README's demo command true: the committed recording must
// answer every request the current code makes for the demo repository. A change to the
// prompts changes the requests; re-record with: go test ./internal/cli -run TestDemo -update-demo
func TestDemoRecordingReplays(t *testing.T) {
	repo := demoRepo(t)
	args := []string{"review", "--repo", repo, "--base", "v1", "--head", "v2", "--format", "json"}
	if *updateDemo {
		fake := anthropicDemo(t)
		if err := os.RemoveAll(demoRecording); err != nil {
			t.Fatal(err)
		}
		r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
			append(args, "--record", demoRecording)...)
		if r.code != ExitOK {
			t.Fatalf("record: exit %d\n%s", r.code, r.err)
		}
	}
	r := council(t, map[string]string{}, append(args, "--replay", demoRecording)...)
	if r.code != ExitOK {
		t.Fatalf("replaying %s: exit %d\n%s\n%s\nIf the prompts changed on purpose, re-record: go test ./internal/cli -run TestDemo -update-demo",
			demoRecording, r.code, r.err, r.out)
	}
	rep := decodeReport(t, []byte(r.out))
	if f := findingTitled(t, rep, "Path traversal in /export"); f.Severity != finding.Critical || !f.Anchored {
		t.Errorf("demo's path traversal finding: %+v", f)
	}
	files, _ := filepath.Glob(filepath.Join(demoRecording, "*.json"))
	if len(files) != rep.Usage.Requests {
		t.Errorf("recording has %d exchanges, the run made %d requests: remove stale ones with -update-demo", len(files), rep.Usage.Requests)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), anthropictest.DefaultAPIKey) {
			t.Errorf("%s contains the fake's API key", f)
		}
	}
}
