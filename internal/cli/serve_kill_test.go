package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/store"
	"github.com/council-dev/council/internal/store/storetest"
)

// The issue's contract: on Postgres, one web and two worker processes on default job settings,
// a burst of 30 pull requests, one worker SIGKILLed in the middle of its reviews. Its jobs run
// again on the other worker: every pull request is reviewed once per lens, the last review
// within 150 seconds of the kill, nothing is posted twice, every delivery is answered 2xx, and
// the dead attempts' runs are recorded failed, saying why.
func TestServeWorkerKilledOnPostgres(t *testing.T) {
	t.Parallel()
	const (
		prs     = 30
		lenses  = 3
		promise = 150 * time.Second
	)
	db := storetest.PostgresURL(t)
	s := setupServe(t, prs)
	// A model that takes half a second per request: a review takes a few seconds, so the kill
	// lands in the middle of some.
	ai := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		time.Sleep(500 * time.Millisecond)
		return demoReply(req)
	}))
	s.env["ANTHROPIC_BASE_URL"] = ai.URL
	env := func(role string) map[string]string {
		e := s.serveEnv(t, db, freeAddr(t), "COUNCIL_ROLE", role)
		delete(e, "COUNCIL_POLL_INTERVAL") // every job setting at its default
		return e
	}
	web := startServeProcess(t, "web", env("web"))
	workers := []*serveProcess{startServeProcess(t, "worker-1", env("worker")), startServeProcess(t, "worker-2", env("worker"))}

	// Each pull request opened, and the delivery delivered twice (GitHub does when an answer is
	// lost), from a few senders at once.
	var mu sync.Mutex
	codes := map[int]int{}
	deliver := func(event, id string, body []byte) {
		code, err := githubtest.Deliver(context.Background(), nil, web.base+"/webhook", serveSecret, event, id, body)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			code = -1
		}
		codes[code]++
	}
	var wg sync.WaitGroup
	for n := 1; n <= prs; n++ {
		wg.Go(func() {
			body := s.gh.PullRequestPayload("opened", "acme", "inventory", n, s.heads[0], false, serveInstallation)
			deliver("pull_request", fmt.Sprintf("pr%d-opened", n), body)
			deliver("pull_request", fmt.Sprintf("pr%d-opened", n), body)
		})
	}
	wg.Wait()

	// The victim: a worker in the middle of as many reviews as it runs for one installation
	// (COUNCIL_INSTALLATION_CONCURRENCY, 2), a few seconds in. It must hold no other job.
	reviews := func() int {
		posted, _ := postedTwice(s.gh)
		return posted
	}
	var victim, other *serveProcess
	deadline := time.Now().Add(60 * time.Second)
	for victim == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if reviews() == 0 {
			continue
		}
		for i, w := range workers {
			if inProgress(w.logs.String()) == 2 {
				victim, other = w, workers[1-i]
				break
			}
		}
	}
	if victim == nil {
		t.Fatal("no worker was in the middle of two reviews within 60s")
	}
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-victim.done
	running := inProgress(victim.logs.String()) // its whole log, now that it is dead
	t.Logf("SIGKILLed %s with %d reviews in progress, %d of %d reviews posted", victim.name, running, reviews(), prs*lenses)

	// Late deliveries: pushes GitHub reports after the reviews began, at the same head.
	for n := 1; n <= 10; n++ {
		deliver("pull_request", fmt.Sprintf("pr%d-late", n), s.gh.PullRequestPayload("synchronize", "acme", "inventory", n, s.heads[0], false, serveInstallation))
	}

	// Until every pull request is reviewed and no run is left running, or the promise is broken.
	var last time.Time
	seen := -1
	for {
		if n := reviews(); n != seen {
			seen, last = n, time.Now()
		}
		if seen >= prs*lenses && runStatuses(listRuns(t, web.base, "repo=acme/inventory&limit=1000"))["running"] == 0 {
			break
		}
		if time.Since(killed) > promise+30*time.Second {
			t.Fatalf("%d of %d reviews posted %s after the kill; runs %v\n%s log:\n%s", seen, prs*lenses,
				time.Since(killed).Round(time.Second), runStatuses(listRuns(t, web.base, "repo=acme/inventory&limit=1000")),
				other.name, tail(other.logs.String(), 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := last.Sub(killed)
	t.Logf("the last review was posted %.1fs after the kill", took.Seconds())
	if took > promise {
		t.Errorf("the last review was posted %s after the kill; want within %s", took.Round(time.Second), promise)
	}

	// The late deliveries' jobs finish (they find their heads reviewed), and a review posted
	// twice would show by then.
	time.Sleep(2 * time.Second)
	runs := waitRuns(t, web.base, "repo=acme/inventory&limit=1000", other.logs, func(rs []apiRun) bool { return runStatuses(rs)["running"] == 0 })
	posted, twice := postedTwice(s.gh)
	if len(twice) > 0 {
		t.Errorf("reviews posted twice: %v", twice)
	}
	if posted != prs*lenses {
		t.Errorf("%d reviews posted; want %d pull requests × %d lenses, once each", posted, prs, lenses)
	}
	for n := 1; n <= prs; n++ {
		if c := s.gh.Count("POST", fmt.Sprintf("/repos/acme/inventory/pulls/%d/reviews", n)); c != lenses {
			t.Errorf("#%d got %d reviews; want one per lens, %d", n, c, lenses)
		}
		if bodies := s.gh.IssueCommentBodies("acme", "inventory", n); len(bodies) != 1 || !strings.Contains(bodies[0], "head="+s.heads[0]) {
			t.Errorf("#%d: %d summary comments; want one that records the head reviewed", n, len(bodies))
		}
	}
	if codes[http.StatusAccepted]+codes[http.StatusOK] != 2*prs+10 {
		t.Errorf("deliveries answered %v; want all %d 2xx", codes, 2*prs+10)
	}
	for n, c := range reviewedOnce(runs, s.heads[0]) {
		if c != 1 {
			t.Errorf("#%d: %d succeeded runs; want 1", n, c)
		}
	}
	// The dead worker's runs do not stay "running": the next attempt ended each, saying how
	// its worker was found dead.
	dead := 0
	for _, r := range runs {
		switch {
		case r.Status == "running":
			t.Errorf("run %d of #%d is still running", r.ID, r.Number)
		case r.Status == "failed" && strings.Contains(r.Reason, "the worker stopped during this run") &&
			strings.Contains(r.Reason, "no heartbeat since"):
			dead++
		case r.Status == "failed":
			t.Errorf("run %d of #%d failed: %s", r.ID, r.Number, r.Reason)
		}
	}
	// The dead worker held only the jobs it was running: each one put back had a run.
	rescue, ok := rescueLine(other.logs.String())
	if !ok {
		t.Fatalf("%s did not say it put back the dead worker's jobs", other.name)
	}
	if len(rescue.Requeued) != running || len(rescue.Discarded) != 0 || dead != running {
		t.Errorf("jobs put back %v, discarded %v, dead runs %d; want the %d the dead worker was running, each with its run",
			rescue.Requeued, rescue.Discarded, dead, running)
	}
	t.Logf("%s put the dead worker's %d jobs back %.1fs after the kill; %d runs %v",
		other.name, len(rescue.Requeued), rescue.Time.Sub(killed).Seconds(), len(runs), runStatuses(runs))
}

// rescue is a worker's log line saying it put back a dead worker's jobs.
type rescue struct {
	Time      time.Time `json:"time"`
	Msg       string    `json:"msg"`
	Requeued  []int64   `json:"requeued"`
	Discarded []int64   `json:"discarded"`
}

func rescueLine(log string) (rescue, bool) {
	for _, line := range strings.Split(log, "\n") {
		var r rescue
		if json.Unmarshal([]byte(line), &r) == nil && r.Msg == "a worker stopped recording heartbeats: its running jobs are back in the queue" {
			return r, true
		}
	}
	return rescue{}, false
}

// inProgress counts the review runs a worker's log shows started and not finished.
func inProgress(log string) int {
	return strings.Count(log, `"msg":"review run started"`) - strings.Count(log, `"msg":"review run finished"`)
}

// reviewedOnce counts each pull request's succeeded runs at head.
func reviewedOnce(runs []apiRun, head string) map[int]int {
	out := map[int]int{}
	for _, r := range runs {
		if r.Status == "succeeded" && r.Head == head {
			out[r.Number]++
		}
	}
	return out
}

// runStatuses counts runs by status.
func runStatuses(runs []apiRun) map[string]int {
	out := map[string]int{}
	for _, r := range runs {
		out[r.Status]++
	}
	return out
}

// A worker that finds it was taken for dead (the leader put its jobs back) stops at once, as a
// killed one would, rather than finish jobs that now run elsewhere.
func TestServeWorkerTakenForDeadStops(t *testing.T) {
	t.Parallel()
	s := setupServe(t, 0)
	url := storetest.SQLiteURL(t)
	w := startServeProcess(t, "worker", s.serveEnv(t, url, freeAddr(t), "COUNCIL_HEARTBEAT_INTERVAL", "500ms", "COUNCIL_HEARTBEAT_TIMEOUT", "3s"))
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	workers, err := db.Workers(t.Context())
	if err != nil || len(workers) != 1 {
		t.Fatalf("workers of a running server: %+v, %v; want one", workers, err)
	}
	if err := db.RemoveWorker(t.Context(), workers[0].ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("the worker exited with %v; want a failure", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker taken for dead still runs 30s later")
	}
	if !strings.Contains(w.logs.String(), "stopping at once") {
		t.Errorf("the worker did not say why it stopped:\n%s", tail(w.logs.String(), 10))
	}
}

// On SQLite, one process: killed in the middle of a review and started again on the same
// database, it runs the dead process's jobs again once their heartbeat is too old, posting
// only what the dead one had not.
func TestServeRestartAfterKillOnSQLite(t *testing.T) {
	t.Parallel()
	const prs, lenses = 3, 3
	s := setupServe(t, prs)
	ai := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		time.Sleep(300 * time.Millisecond)
		return demoReply(req)
	}))
	s.env["ANTHROPIC_BASE_URL"] = ai.URL
	url := storetest.SQLiteURL(t)
	beats := []string{"COUNCIL_HEARTBEAT_INTERVAL", "500ms", "COUNCIL_HEARTBEAT_TIMEOUT", "3s"}
	first := startServeProcess(t, "first", s.serveEnv(t, url, freeAddr(t), beats...))
	for n := 1; n <= prs; n++ {
		if code := s.deliver(t, first.base, "pull_request", fmt.Sprintf("pr%d", n), s.gh.PullRequestPayload("opened", "acme", "inventory", n, s.heads[0], false, serveInstallation)); code != http.StatusAccepted {
			t.Fatalf("delivery answered %d", code)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for inProgress(first.logs.String()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	running := inProgress(first.logs.String())

	again := startServeProcess(t, "again", s.serveEnv(t, url, freeAddr(t), beats...))
	runs := waitRuns(t, again.base, "repo=acme/inventory&limit=100", again.logs, func(rs []apiRun) bool {
		posted, _ := postedTwice(s.gh)
		return posted == prs*lenses && runStatuses(rs)["running"] == 0
	})
	if _, twice := postedTwice(s.gh); len(twice) > 0 {
		t.Errorf("reviews posted twice: %v", twice)
	}
	dead := 0
	for _, r := range runs {
		if r.Status == "failed" && strings.Contains(r.Reason, "no heartbeat since") {
			dead++
		}
	}
	if dead != running || running == 0 {
		t.Errorf("runs %+v; want the %d the dead process was running failed, saying its heartbeat stopped", runs, running)
	}
}
