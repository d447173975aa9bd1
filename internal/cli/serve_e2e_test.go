package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/store/storetest"
)

// TestMain lets the serve tests start this test binary as `council` in processes of its own.
func TestMain(m *testing.M) {
	if os.Getenv("COUNCIL_TEST_AS_MAIN") == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// serveProcess is `council serve` in a process of its own.
type serveProcess struct {
	name string
	cmd  *exec.Cmd
	base string
	logs *syncBuffer
	done chan error
}

func startServeProcess(t *testing.T, name string, env map[string]string) *serveProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve")
	cmd.Env = append(os.Environ(), "COUNCIL_TEST_AS_MAIN=1")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &serveProcess{name: name, cmd: cmd, base: "http://" + env["COUNCIL_ADDR"], logs: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Errorf("%s did not stop within 30s of SIGTERM", name)
			}
		}
		if t.Failed() {
			t.Logf("--- %s log:\n%s", name, tail(p.logs.String(), 60))
		}
	})
	waitReady(t, p.base, p.logs)
	return p
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var reviewMarker = regexp.MustCompile(`<!-- council:v1 review reviewer=(\S+) head=([0-9a-f]+) -->`)

// postedTwice lists the reviews posted more than once: the same reviewer at the same head on
// the same pull request.
func postedTwice(gh *githubtest.Server) (posted int, twice []string) {
	seen := map[string]int{}
	for _, l := range gh.Log() {
		var n int
		if l.Method != http.MethodPost {
			continue
		}
		if _, err := fmt.Sscanf(l.Path, "/repos/acme/inventory/pulls/%d/reviews", &n); err != nil || !strings.HasSuffix(l.Path, "/reviews") {
			continue
		}
		for _, m := range reviewMarker.FindAllStringSubmatch(string(l.Body), -1) {
			seen[fmt.Sprintf("#%d %s@%s", n, m[1], m[2][:12])]++
			posted++
		}
	}
	for k, c := range seen {
		if c > 1 {
			twice = append(twice, fmt.Sprintf("%s ×%d", k, c))
		}
	}
	sort.Strings(twice)
	return posted, twice
}

// One web process and two workers on one Postgres: a burst of deliveries for many pull
// requests, with duplicates and rapid pushes, reviews every pull request's newest head exactly
// once and posts nothing twice; then a worker killed in the middle of a job loses nothing: the
// job completes on the other worker, which posts only what the dead one had not.
func TestServeScalesOutOnPostgres(t *testing.T) {
	const prs = 50
	db := storetest.PostgresURL(t)
	s := setupServe(t, prs+1)
	var slow atomic.Bool
	ai := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		if slow.Load() {
			time.Sleep(300 * time.Millisecond)
		}
		return demoReply(req)
	}))
	s.env["ANTHROPIC_BASE_URL"] = ai.URL
	timeouts := []string{"COUNCIL_JOB_TIMEOUT", "20s", "COUNCIL_RESCUE_AFTER", "25s", "COUNCIL_WORKERS", "4", "COUNCIL_SHUTDOWN_TIMEOUT", "20s"}
	web := startServeProcess(t, "web", s.serveEnv(t, db, freeAddr(t), append(timeouts, "COUNCIL_ROLE", "web")...))
	w1 := startServeProcess(t, "worker-1", s.serveEnv(t, db, freeAddr(t), append(timeouts, "COUNCIL_ROLE", "worker")...))
	w2 := startServeProcess(t, "worker-2", s.serveEnv(t, db, freeAddr(t), append(timeouts, "COUNCIL_ROLE", "worker")...))

	burst(t, s, prs, web)

	// A worker killed hard in the middle of a job: GitHub is slow to take reviews, and the
	// worker dies after its first review of the job was posted.
	const n = prs + 1
	s.gh.SetDelay(func(method, path string) time.Duration {
		if method == http.MethodPost && path == fmt.Sprintf("/repos/acme/inventory/pulls/%d/reviews", n) {
			return 700 * time.Millisecond
		}
		return 0
	})
	slow.Store(true)
	reviewsOf := func() int { return s.gh.Count("POST", fmt.Sprintf("/repos/acme/inventory/pulls/%d/reviews", n)) }
	if code := s.deliver(t, web.base, "pull_request", "kill-opened", s.gh.PullRequestPayload("opened", "acme", "inventory", n, s.heads[0], false, serveInstallation)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	deadline := time.Now().Add(60 * time.Second)
	for reviewsOf() < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if reviewsOf() < 1 {
		t.Fatal("no review of the job was posted within 60s")
	}
	victim, other := w1, w2
	if !strings.Contains(w1.logs.String(), fmt.Sprintf(`"number":%d`, n)) {
		victim, other = w2, w1
	}
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.done
	killedAt := reviewsOf()
	t.Logf("killed %s with %d of 3 reviews posted", victim.name, killedAt)
	runs := waitRuns(t, web.base, fmt.Sprintf("repo=acme/inventory&number=%d", n), other.logs, func(rs []apiRun) bool {
		for _, r := range rs {
			if r.Status == "succeeded" {
				return true
			}
		}
		return false
	})
	if _, twice := postedTwice(s.gh); len(twice) > 0 {
		t.Errorf("reviews posted twice after the kill: %v", twice)
	}
	if got := reviewsOf(); got != 3 {
		t.Errorf("#%d got %d reviews, want the 3 reviewers' once each", n, got)
	}
	if !strings.Contains(other.logs.String(), fmt.Sprintf(`"number":%d`, n)) {
		t.Errorf("the job did not complete on %s", other.name)
	}
	// The dead worker's run does not stay "running": the next attempt ended it.
	byStatus := map[string]int{}
	for _, r := range runs {
		byStatus[r.Status]++
	}
	if byStatus["succeeded"] != 1 || byStatus["failed"] != 1 || byStatus["running"] != 0 {
		t.Errorf("runs of #%d by status: %v; want the dead worker's failed and one succeeded", n, byStatus)
	}
	t.Logf("after the kill: %d runs of #%d (%+v); the job completed on %s", len(runs), n, runs, other.name)
}

// burst sends 200 deliveries for 50 pull requests to web and waits until every pull request's
// newest head is reviewed: opened at the first head, two pushes, and GitHub delivering the last
// push twice. Each pull request's deliveries go in order; the pull requests go in parallel. It
// checks that each newest head was reviewed exactly once and nothing was posted twice, and logs
// the figures.
func burst(t *testing.T, s serveSetup, prs int, web *serveProcess) {
	t.Helper()
	start := time.Now()
	var mu sync.Mutex
	var latencies []time.Duration
	codes := map[int]int{}
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				send := func(event, id string, body []byte) {
					t0 := time.Now()
					code, err := githubtest.Deliver(context.Background(), nil, web.base+"/webhook", serveSecret, event, id, body)
					mu.Lock()
					defer mu.Unlock()
					latencies = append(latencies, time.Since(t0))
					if err != nil {
						codes[-1]++
						return
					}
					codes[code]++
				}
				send("pull_request", fmt.Sprintf("pr%d-opened", n), s.gh.PullRequestPayload("opened", "acme", "inventory", n, s.heads[0], false, serveInstallation))
				for i := 1; i <= 2; i++ {
					s.push(t, n, i)
					send("pull_request", fmt.Sprintf("pr%d-push%d", n, i), s.gh.PullRequestPayload("synchronize", "acme", "inventory", n, s.heads[i], false, serveInstallation))
				}
				send("pull_request", fmt.Sprintf("pr%d-push2", n), s.gh.PullRequestPayload("synchronize", "acme", "inventory", n, s.heads[2], false, serveInstallation))
			}
		}()
	}
	for n := 1; n <= prs; n++ {
		work <- n
	}
	close(work)
	wg.Wait()
	sent := time.Since(start)
	if codes[http.StatusAccepted] != 3*prs || codes[http.StatusOK] != prs {
		t.Fatalf("answers by status: %v; want %d accepted and %d duplicates (200)", codes, 3*prs, prs)
	}

	newest := func(rs []apiRun) map[int]int {
		got := map[int]int{}
		for _, r := range rs {
			if r.Status == "succeeded" && r.Head == s.heads[2] {
				got[r.Number]++
			}
		}
		return got
	}
	runs := waitRuns(t, web.base, "repo=acme/inventory&limit=1000", web.logs, func(rs []apiRun) bool {
		for _, r := range rs {
			if r.Status == "running" {
				return false
			}
		}
		return len(newest(rs)) == prs
	})
	took := time.Since(start)
	time.Sleep(time.Second) // a straggler would show now
	runs = listRuns(t, web.base, "repo=acme/inventory&limit=1000")
	for n, c := range newest(runs) {
		if c != 1 {
			t.Errorf("#%d: %d succeeded runs at the newest head, want 1", n, c)
		}
	}
	status := map[string]int{}
	for _, r := range runs {
		status[r.Status]++
	}
	posted, twice := postedTwice(s.gh)
	if len(twice) > 0 {
		t.Errorf("reviews posted twice: %v", twice)
	}
	for n := 1; n <= prs; n++ {
		bodies := s.gh.IssueCommentBodies("acme", "inventory", n)
		if len(bodies) != 1 || !strings.Contains(bodies[0], "head="+s.heads[2]) {
			t.Errorf("#%d: summary comments %d, want one that records the newest head", n, len(bodies))
		}
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	t.Logf("burst: %d deliveries in %s (p50 %s, p99 %s); %d runs %v; %d reviews posted; every newest head reviewed after %s: %.0f reviews/minute",
		len(latencies), sent.Round(time.Millisecond), latencies[len(latencies)/2].Round(time.Microsecond), latencies[len(latencies)*99/100].Round(time.Microsecond),
		len(runs), status, posted, took.Round(time.Millisecond), float64(status["succeeded"])/took.Minutes())

}

// The same burst on SQLite alone: one process takes the webhooks and runs the reviews.
func TestServeBurstOnSQLite(t *testing.T) {
	const prs = 50
	s := setupServe(t, prs)
	one := startServeProcess(t, "all", s.serveEnv(t, storetest.SQLiteURL(t), freeAddr(t), "COUNCIL_WORKERS", "4"))
	burst(t, s, prs, one)
}
