package rdjson

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/report"
)

// reviewdog is built from source at the version the tests were written against. Later
// v0.21.x releases are not served by the module proxy.
const (
	reviewdogModule  = "github.com/reviewdog/reviewdog"
	reviewdogVersion = "v0.21.0"
	reviewdogCmd     = reviewdogModule + "/cmd/reviewdog"
)

// reviewdogBinary is built once per test process, and kept between runs in the user's cache
// directory: a build from a cold Go build cache takes over a minute.
var reviewdogBinary = sync.OnceValues(buildReviewdog)

func buildReviewdog() (string, error) {
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	dir := filepath.Join(root, "council-tests", "reviewdog@"+reviewdogVersion)
	name := "reviewdog"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	if checkReviewdog(bin) == nil {
		return bin, nil
	}
	hint := fmt.Sprintf("run `GOFLAGS=-mod=mod go install %s@%s` to see why (it needs the Go module proxy, or its modules in the module cache)",
		reviewdogCmd, reviewdogVersion)
	// go test puts its own GOROOT/bin first in PATH, so this is the go that runs the tests.
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("find the go command: %w; %s", err, hint)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Built aside and renamed into place, so that a concurrent test process never runs a
	// half-written binary.
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(gobin, "install", reviewdogCmd+"@"+reviewdogVersion)
	// Outside this module, in module mode whatever the environment says: reviewdog's own
	// go.mod decides its dependencies, and council's go.mod and go.sum stay untouched.
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build reviewdog %s: %w\n%s\n%s", reviewdogVersion, err, out, hint)
	}
	if err := os.Rename(filepath.Join(tmp, name), bin); err != nil {
		return "", err
	}
	if err := checkReviewdog(bin); err != nil {
		return "", fmt.Errorf("%w; %s", err, hint)
	}
	return bin, nil
}

// checkReviewdog reads the binary's build information: `reviewdog -version` prints "master"
// for a binary built with go install, so the module version is the reliable mark.
func checkReviewdog(bin string) error {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return err
	}
	if info.Path != reviewdogCmd || info.Main.Path != reviewdogModule || info.Main.Version != reviewdogVersion {
		return fmt.Errorf("%s is %s from %s %s, want %s from %s %s",
			bin, info.Path, info.Main.Path, info.Main.Version, reviewdogCmd, reviewdogModule, reviewdogVersion)
	}
	return nil
}

// TestReviewdogLocal feeds the output to reviewdog itself and checks what a person reads in
// the terminal: `council review --format rdjson | reviewdog -f=rdjson -reporter=local`. That
// reporter prints each diagnostic's original_output as it is. The filter is off, with no diff:
// the diff only decides which diagnostics are printed, never how.
func TestReviewdogLocal(t *testing.T) {
	t.Parallel()
	bin, err := reviewdogBinary()
	if err != nil {
		t.Fatalf("reviewdog: %v", err)
	}
	tests := []struct {
		name string
		r    report.Report
		want string
	}{
		{
			name: "full",
			r:    full(),
			want: "felix/bpf/conntrack/scanner.go:189: high: Failed enqueue is logged at Debug and the entry leaks (correctness)\n" +
				"felix/bpf-gpl/conntrack cleanup.c:77: medium: CCQ entry survives a failed delete (correctness)\n" +
				"docs/réseau.md: low: Document the cleanup queue (maintainability)\n" +
				"felix/bpf/conntrack/cleanup.go: critical: The lock that guarded the map is gone (casey, old lines 40-42)\n",
		},
		{name: "empty", r: empty(), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, "-f=rdjson", "-reporter=local", "-filter-mode=nofilter")
			cmd.Dir = t.TempDir()
			cmd.Stdin = bytes.NewReader(write(t, tt.r))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("reviewdog: %v\n%s", err, stderr.Bytes())
			}
			if diff := cmp.Diff(tt.want, stdout.String()); diff != "" {
				t.Errorf("reviewdog -reporter=local printed (-want +got):\n%s", diff)
			}
			if stderr.Len() > 0 {
				t.Errorf("reviewdog wrote to stderr:\n%s", stderr.Bytes())
			}
		})
	}
}
