package benchreport

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromiumMu keeps to one browser at a time: two headless Chromiums on a small CI runner
// starve each other into the timeout.
var chromiumMu sync.Mutex

// chromium finds the browser, or ends the test: a failure where CI promises one
// (COUNCIL_REQUIRE_CHROMIUM=1), a skip elsewhere.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("COUNCIL_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium not found and COUNCIL_REQUIRE_CHROMIUM=1: install it (apt-get install chromium)")
	}
	t.Skip("chromium not found: install it (apt-get install chromium) to render the HTML report in a browser")
	return ""
}

// runChromium runs headless Chromium with the flags it needs on a closed network: no
// sandbox (containers), no GPU, and none of its background requests.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// artifactDir is where a test leaves files for people to look at: CI uploads
// $COUNCIL_TEST_ARTIFACTS.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("COUNCIL_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "council-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReportHTMLInChromium opens the report in a real browser: the page renders, its charts carry
// their points, and its script ran (the tier selector marked the default tier). It leaves a
// screenshot for a person to look at.
func TestReportHTMLInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	chromiumMu.Lock()
	defer chromiumMu.Unlock()

	runs := twoRuns()
	var page bytes.Buffer
	if err := HTML(&page, runs); err != nil {
		t.Fatal(err)
	}
	art := artifactDir(t)
	file := filepath.Join(art, "bench-report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(file)

	dom := string(runChromium(t, bin, "--dump-dom", url))
	checks := []struct {
		what string
		re   string
	}{
		{"the script ran", `<body[^>]* data-ready="true"`},
		{"the placement table, up front first", `<div class="scroll">\s*<table class="text">\s*<thead><tr><th>Run</th><th>Placement</th>.*\s*<tbody>\s*<tr><td>sonnet</td><td>up front</td>`},
		{"the headline table", `<table class="headline" id="headline-table">`},
		{"the placement breakdown at the default tier", `<tr data-tiers="L2"><td>up front</td><td>L2</td>`},
		{"the tier selector marked the default tier", `<tr data-tier-mark="L2" class="[^"]*current`},
		{"an L3 element hidden at L2", `data-tiers="L3" hidden=""`},
		{"the kind chart", `<rect class="bar c1" data-kind="concurrency" data-run="haiku"`},
	}
	for _, c := range checks {
		if !regexp.MustCompile(c.re).MatchString(dom) {
			t.Errorf("DOM after scripts: no %s (%s)", c.what, c.re)
		}
	}
	for _, r := range runs {
		re := regexp.MustCompile(`<circle class="pt micro" data-point="L\d" data-run="` + regexp.QuoteMeta(r.Name) + `"`)
		if n, want := len(re.FindAllString(dom, -1)), len(r.Score.Tiers); n != want {
			t.Errorf("run %s: %d micro points in its chart, want one per tier (%d)", r.Name, n, want)
		}
	}
	if n := strings.Count(dom, "<svg"); n < len(runs)+1 {
		t.Errorf("%d <svg> charts, want one per run and the kind chart", n)
	}

	shot := filepath.Join(art, "bench-report.png")
	_ = os.Remove(shot)
	runChromium(t, bin, "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars", url)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("%s is not a PNG", shot)
	}
	if len(png) < 10<<10 {
		t.Errorf("%s is %d bytes: a blank page?", shot, len(png))
	}
	t.Logf("screenshot: %s (page: %s)", shot, file)
}
