package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/store/storetest"
)

// Behaviour of `council serve` as GitHub and a pull request's people see it: commands, drafts,
// the budget, duplicate deliveries and pushes, its operational endpoints and its config.

// serving is one `council serve` on SQLite over a fresh serveSetup.
type serving struct {
	serveSetup
	base string
	db   string
	logs *syncBuffer
}

func startServe(t *testing.T, prs int, more ...string) serving {
	t.Helper()
	return startServeOn(t, storetest.SQLiteURL(t), prs, more...)
}

func startServeOn(t *testing.T, db string, prs int, more ...string) serving {
	t.Helper()
	s := setupServe(t, prs)
	base, logs := serveInProcess(t, s.serveEnv(t, db, freeAddr(t), more...))
	return serving{serveSetup: s, base: base, db: db, logs: logs}
}

func (s serving) opened(t *testing.T, n, head int, id string) {
	t.Helper()
	s.event(t, "pull_request", id, s.gh.PullRequestPayload("opened", "acme", "inventory", n, s.heads[head], false, serveInstallation))
}

func (s serving) synchronize(t *testing.T, n, head int, id string) {
	t.Helper()
	s.event(t, "pull_request", id, s.gh.PullRequestPayload("synchronize", "acme", "inventory", n, s.heads[head], false, serveInstallation))
}

func (s serving) comment(t *testing.T, n int, login, body, id string) {
	t.Helper()
	s.event(t, "issue_comment", id, s.gh.IssueCommentPayload("acme", "inventory", n, login, body, serveInstallation))
}

func (s serving) event(t *testing.T, event, id string, body []byte) {
	t.Helper()
	if code := s.deliver(t, s.base, event, id, body); code != http.StatusAccepted {
		t.Fatalf("%s delivery %s answered %d; want 202", event, id, code)
	}
}

// runsOf waits until pull request n has want finished runs and returns them, oldest first.
func (s serving) runsOf(t *testing.T, n, want int) []apiRun {
	t.Helper()
	runs := waitRuns(t, s.base, fmt.Sprintf("repo=acme/inventory&number=%d&limit=200", n), s.logs, func(rs []apiRun) bool { return finished(rs, want) })
	out := make([]apiRun, len(runs))
	for i, r := range runs {
		out[len(runs)-1-i] = r // the API lists newest first
	}
	return out
}

// waitComment waits until pull request n has a conversation comment containing text.
func (s serving) waitComment(t *testing.T, n int, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if countContaining(s.gh.IssueCommentBodies("acme", "inventory", n), text) > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no comment containing %q on #%d within 30s: %q\nlogs:\n%s", text, n, s.gh.IssueCommentBodies("acme", "inventory", n), s.logs)
}

// waitRequest waits until the fake GitHub has seen method path.
func (s serving) waitRequest(t *testing.T, method, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s.gh.Count(method, path) > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s %s within 30s\nlogs:\n%s", method, path, s.logs)
}

func countContaining(bodies []string, text string) int {
	c := 0
	for _, b := range bodies {
		if strings.Contains(b, text) {
			c++
		}
	}
	return c
}

// metrics is the server's GET /metrics, as sample -> value ("name{labels}" as exposed).
func (s serving) metrics(t *testing.T) (map[string]float64, string) {
	t.Helper()
	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics answered %d", resp.StatusCode)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out, string(body)
}

// quiet waits until the queue holds no job that is yet to run or running.
func (s serving) quiet(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	calm := 0
	for time.Now().Before(deadline) {
		m, _ := s.metrics(t)
		busy := 0.0
		for _, state := range []string{"available", "scheduled", "retryable", "pending", "running"} {
			busy += m[`council_jobs{state="`+state+`"}`]
		}
		if busy == 0 {
			// Twice in a row, a poll interval apart: a job that snoozes passes through no state
			// this misses, but a delivery in flight might.
			if calm++; calm == 3 {
				return
			}
		} else {
			calm = 0
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the queue did not empty within 90s\nlogs:\n%s", s.logs)
}

// A /council resume right after a skipped run queues a review: the finished job no longer
// holds the pull request's unique slot (River completes jobs in batches, up to 250ms later).
func TestServeCommandsPauseAndResume(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			url := storetest.SQLiteURL(t)
			if db == "postgres" {
				url = storetest.PostgresURL(t)
			}
			testPauseAndResume(t, startServeOn(t, url, 1))
		})
	}
}

func testPauseAndResume(t *testing.T, s serving) {
	s.gh.SetCollaborator("acme", "inventory", "maint", "write")

	s.comment(t, 1, "maint", "/council pause", "c-pause")
	s.waitComment(t, 1, "will not review this pull request")
	s.push(t, 1, 1)
	s.synchronize(t, 1, 1, "d-sync-1")
	runs := s.runsOf(t, 1, 1)
	if len(runs) != 1 || runs[0].Status != "skipped" || !strings.Contains(runs[0].Reason, "paused") {
		t.Fatalf("runs after a push to a paused pull request: %+v; want one skipped as paused", runs)
	}
	if n := s.gh.Count("POST", "/repos/acme/inventory/pulls/1/reviews"); n != 0 {
		t.Errorf("a paused pull request got %d reviews", n)
	}

	s.push(t, 1, 2)
	s.comment(t, 1, "maint", "/council resume", "c-resume")
	s.waitComment(t, 1, "reviews this pull request again")
	runs = s.runsOf(t, 1, 2)
	if last := runs[len(runs)-1]; len(runs) != 2 || last.Status != "succeeded" || last.Head != s.heads[2] || last.Trigger != "/council resume" {
		t.Fatalf("runs after /council resume: %+v; want the second to succeed at %s", runs, s.heads[2])
	}
	for _, c := range s.gh.IssueCommentBodies("acme", "inventory", 1) {
		if strings.Contains(c, "council:v1 pause") && !strings.Contains(c, "@maint") {
			t.Errorf("the pause comment does not say who asked: %q", c)
		}
	}
}

func TestServeCommandsNeedWriteAccess(t *testing.T) {
	t.Parallel()
	s := startServe(t, 1)
	s.gh.SetCollaborator("acme", "inventory", "reader", "read")
	s.gh.SetCollaborator("acme", "inventory", "outsider", "none")

	s.comment(t, 1, "reader", "/council pause", "c-reader")
	s.comment(t, 1, "outsider", "/council pause", "c-outsider")
	s.comment(t, 1, "reader", "/council full-review", "c-reader-full")
	// The worker asks GitHub who they are before it acts; then it must do nothing.
	s.waitRequest(t, "GET", "/repos/acme/inventory/collaborators/reader/permission")
	s.waitRequest(t, "GET", "/repos/acme/inventory/collaborators/outsider/permission")
	s.quiet(t)
	if runs := listRuns(t, s.base, "repo=acme/inventory"); len(runs) != 0 {
		t.Fatalf("commands from users without write access made runs: %+v", runs)
	}

	s.opened(t, 1, 0, "d-open")
	runs := s.runsOf(t, 1, 1)
	if runs[0].Status != "succeeded" {
		t.Fatalf("run after a reader's /council pause: %+v; want succeeded (not paused)", runs[0])
	}
	for _, c := range s.gh.IssueCommentBodies("acme", "inventory", 1) {
		if strings.Contains(c, "council:v1 pause") || strings.Contains(c, "will not review") {
			t.Errorf("council answered a command from a user without write access: %q", c)
		}
	}
}

func TestServeFullReviewAndRedelivery(t *testing.T) {
	t.Parallel()
	s := startServe(t, 1)
	s.gh.SetCollaborator("acme", "inventory", "maint", "write")

	s.opened(t, 1, 0, "d-open")
	if runs := s.runsOf(t, 1, 1); runs[0].Status != "succeeded" {
		t.Fatalf("first run: %+v", runs[0])
	}

	s.comment(t, 1, "maint", "/council full-review", "c-full")
	runs := s.runsOf(t, 1, 2)
	if r := runs[1]; r.Status != "succeeded" || r.Head != s.heads[0] || r.Trigger != "/council full-review" {
		t.Fatalf("run after /council full-review: %+v; want a second succeeded review at %s", r, s.heads[0])
	}

	// GitHub redelivers under a new id when asked to: the same head is not reviewed again.
	s.synchronize(t, 1, 0, "d-sync-again")
	runs = s.runsOf(t, 1, 3)
	if r := runs[2]; r.Status != "skipped" || !strings.Contains(r.Reason, "already reviewed") || r.Head != s.heads[0] {
		t.Fatalf("run of a head already reviewed: %+v; want skipped, already reviewed", r)
	}
}

func TestServeDrafts(t *testing.T) {
	t.Parallel()
	addDraft := func(s serving, n int) {
		s.gh.AddPR("acme", "inventory", githubtest.PR{
			Number: n, Title: "WIP: reserve stock", Author: "dev", State: "open", Draft: true,
			BaseRef: "main", BaseSHA: strings.TrimSpace(git(t, s.repo, "rev-parse", "v1")), HeadRef: "feature", HeadSHA: s.heads[0],
		}, git(t, s.repo, "diff", "v1", s.heads[0]), nil)
	}
	t.Run("skipped", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, 1)
		addDraft(s, 2)
		s.event(t, "pull_request", "d-draft", s.gh.PullRequestPayload("opened", "acme", "inventory", 2, s.heads[0], true, serveInstallation))
		s.opened(t, 1, 0, "d-ready") // after the draft's delivery: when it is done, so would a job of the draft be
		s.runsOf(t, 1, 1)
		s.quiet(t)
		if runs := listRuns(t, s.base, "repo=acme/inventory&number=2"); len(runs) != 0 {
			t.Fatalf("a draft was queued: %+v", runs)
		}
		if n := s.gh.Count("POST", "/repos/acme/inventory/pulls/2/reviews"); n != 0 {
			t.Errorf("a draft got %d reviews", n)
		}
	})
	t.Run("reviewed with COUNCIL_REVIEW_DRAFTS", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, 1, "COUNCIL_REVIEW_DRAFTS", "true")
		addDraft(s, 2)
		s.event(t, "pull_request", "d-draft", s.gh.PullRequestPayload("opened", "acme", "inventory", 2, s.heads[0], true, serveInstallation))
		if runs := s.runsOf(t, 2, 1); runs[0].Status != "succeeded" || runs[0].Posted == 0 {
			t.Fatalf("draft run with COUNCIL_REVIEW_DRAFTS=true: %+v; want succeeded", runs[0])
		}
	})
}

func TestServeMonthlyBudget(t *testing.T) {
	t.Parallel()
	s := startServe(t, 2, "COUNCIL_MONTHLY_BUDGET_USD", "0.0001")
	marker := "<!-- council:v1 budget " + time.Now().UTC().Format("2006-01") + " -->"

	s.opened(t, 1, 0, "d-1")
	if runs := s.runsOf(t, 1, 1); runs[0].Status != "succeeded" || runs[0].CostUSD <= 0 {
		t.Fatalf("first pull request, nothing spent before: %+v; want succeeded at a cost", runs[0])
	}

	s.opened(t, 2, 0, "d-2")
	runs := s.runsOf(t, 2, 1)
	if r := runs[0]; r.Status != "skipped" || !strings.Contains(r.Reason, "budget") {
		t.Fatalf("second pull request over the budget: %+v; want skipped for the budget", r)
	}
	if n := countContaining(s.gh.IssueCommentBodies("acme", "inventory", 2), marker); n != 1 {
		t.Fatalf("%d comments with %s on #2; want 1: %q", n, marker, s.gh.IssueCommentBodies("acme", "inventory", 2))
	}

	s.push(t, 2, 1)
	s.synchronize(t, 2, 1, "d-2-again")
	runs = s.runsOf(t, 2, 2)
	if r := runs[1]; r.Status != "skipped" || !strings.Contains(r.Reason, "budget") {
		t.Fatalf("second delivery over the budget: %+v; want skipped", r)
	}
	if n := countContaining(s.gh.IssueCommentBodies("acme", "inventory", 2), marker); n != 1 {
		t.Errorf("%d comments with %s on #2 after a second delivery; want still 1", n, marker)
	}
	if n := countContaining(s.gh.IssueCommentBodies("acme", "inventory", 1), marker); n != 0 {
		t.Errorf("the pull request reviewed within the budget got %d budget comments", n)
	}
}

var (
	reviewMarkerRE = regexp.MustCompile(`<!-- council:v1 review reviewer=(\S+) head=([0-9a-f]+) -->`)
	reviewsPathRE  = regexp.MustCompile(`^/repos/acme/inventory/pulls/(\d+)/reviews$`)
)

// Duplicate deliveries and pushes in quick succession: each pull request is reviewed once at
// its newest head, and no review is posted twice.
func TestServeDuplicatesAndRapidPushes(t *testing.T) {
	t.Parallel()
	const prs = 5
	s := startServe(t, prs)
	for n := 1; n <= prs; n++ {
		open := s.gh.PullRequestPayload("opened", "acme", "inventory", n, s.heads[0], false, serveInstallation)
		s.event(t, "pull_request", fmt.Sprintf("d-%d-0", n), open)
		for i := 1; i <= 2; i++ {
			s.push(t, n, i)
			s.synchronize(t, n, i, fmt.Sprintf("d-%d-%d", n, i))
		}
		// One delivery twice, as GitHub does when an answer was lost.
		dup := fmt.Sprintf("d-%d-%d", n, n%3)
		body := s.gh.PullRequestPayload("synchronize", "acme", "inventory", n, s.heads[n%3], false, serveInstallation)
		if n%3 == 0 {
			body = open
		}
		if code := s.deliver(t, s.base, "pull_request", dup, body); code != http.StatusOK {
			t.Errorf("duplicate delivery %s answered %d; want 200", dup, code)
		}
	}
	// Every pull request reviewed at its newest head, then nothing left to do.
	waitRuns(t, s.base, "repo=acme/inventory&limit=200", s.logs, func(rs []apiRun) bool {
		done := map[int]bool{}
		for _, r := range rs {
			if r.Status == "succeeded" && r.Head == s.heads[2] {
				done[r.Number] = true
			}
		}
		return len(done) == prs
	})
	s.quiet(t)

	runs := listRuns(t, s.base, "repo=acme/inventory&limit=200")
	for n := 1; n <= prs; n++ {
		c := 0
		for _, r := range runs {
			if r.Number == n && r.Status == "succeeded" && r.Head == s.heads[2] {
				c++
			}
			if r.Number == n && r.Status != "succeeded" && r.Status != "skipped" {
				t.Errorf("#%d: run %+v", n, r)
			}
		}
		if c != 1 {
			t.Errorf("#%d: %d succeeded runs at the newest head; want 1", n, c)
		}
		summary := ""
		for _, b := range s.gh.IssueCommentBodies("acme", "inventory", n) {
			if reviewMarkerRE.MatchString(b) {
				summary = b
			}
		}
		if m := reviewMarkerRE.FindStringSubmatch(summary); m == nil || m[2] != s.heads[2] {
			t.Errorf("#%d: the summary comment's marker is %q; want head=%s", n, m, s.heads[2])
		}
	}

	seen := map[string]int{}
	for _, req := range s.gh.Log() {
		pm := reviewsPathRE.FindStringSubmatch(req.Path)
		if req.Method != http.MethodPost || pm == nil {
			continue
		}
		var body struct{ Body string }
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		for _, m := range reviewMarkerRE.FindAllStringSubmatch(body.Body, -1) {
			seen[fmt.Sprintf("#%s %s at %s", pm[1], m[1], m[2])]++
		}
	}
	if len(seen) == 0 {
		t.Fatal("no reviews posted")
	}
	for k, c := range seen {
		if c > 1 {
			t.Errorf("review %s posted %d times", k, c)
		}
	}
	if t.Failed() {
		t.Logf("runs: %+v\nlogs:\n%s", runs, s.logs)
	}
}

func TestServeOperations(t *testing.T) {
	t.Parallel()
	s := startServe(t, 1)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s answered %d", path, resp.StatusCode)
		}
	}

	// A delivery signed with another secret.
	body := s.gh.PullRequestPayload("opened", "acme", "inventory", 1, s.heads[0], false, serveInstallation)
	req, err := http.NewRequest(http.MethodPost, s.base+"/webhook", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", "d-forged")
	req.Header.Set("X-Hub-Signature-256", githubtest.Sign("not-the-secret", body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(got) != 0 {
		t.Errorf("a forged delivery answered %d %q; want 401 and no body", resp.StatusCode, got)
	}

	s.opened(t, 1, 0, "d-1")
	if runs := s.runsOf(t, 1, 1); runs[0].Status != "succeeded" {
		t.Fatalf("run: %+v", runs[0])
	}
	s.quiet(t)
	m, text := s.metrics(t)
	for _, sample := range []string{
		`council_webhook_deliveries_total{event="pull_request",outcome="accepted"}`,
		`council_webhook_deliveries_total{event="",outcome="bad_signature"}`,
		`council_reviews_total{status="succeeded"}`,
		`council_jobs{state="completed"}`,
		`council_model_cost_usd_total`,
	} {
		if m[sample] <= 0 {
			t.Errorf("metric %s = %v; want > 0", sample, m[sample])
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}
	if _, ok := m[`council_webhook_deliveries_total{event="pull_request",outcome="bad_signature"}`]; ok {
		t.Error("a forged delivery's event header became a metric label")
	}
}

func TestServeRunsList(t *testing.T) {
	t.Parallel()
	s := startServe(t, 1)
	s.opened(t, 1, 0, "d-1")
	want := s.runsOf(t, 1, 1)[0]
	if want.Status != "succeeded" {
		t.Fatalf("run: %+v", want)
	}

	r := council(t, nil, "runs", "list", "--repo", "acme/inventory", "--database-url", s.db)
	if r.code != ExitOK {
		t.Fatalf("council runs list: exit %d\n%s", r.code, r.err)
	}
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "RUN") {
		t.Fatalf("council runs list printed:\n%s", r.out)
	}
	for _, f := range []string{"acme/inventory#1", want.Head[:7], "succeeded"} {
		if !strings.Contains(lines[1], f) {
			t.Errorf("the row %q does not show %q", lines[1], f)
		}
	}

	r = council(t, nil, "runs", "list", "--repo", "acme/inventory", "--database-url", s.db, "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("council runs list --format json: exit %d\n%s", r.code, r.err)
	}
	var out struct{ Runs []apiRun }
	if err := json.Unmarshal([]byte(r.out), &out); err != nil {
		t.Fatalf("decode %q: %v", r.out, err)
	}
	if len(out.Runs) != 1 || out.Runs[0] != want {
		t.Errorf("--format json: %+v; want %+v (as GET /api/runs)", out.Runs, want)
	}

	r = council(t, nil, "runs", "list", "--database-url", s.db, "--format", "xml")
	if r.code != ExitUsage || !strings.Contains(r.err, "table") || !strings.Contains(r.err, "json") || r.out != "" {
		t.Errorf("--format xml: exit %d, stdout %q, stderr %q; want a usage error naming table and json", r.code, r.out, r.err)
	}
}

func TestServeConfigErrors(t *testing.T) {
	t.Parallel()
	s := setupServe(t, 0)
	env := func(more ...string) map[string]string {
		e := s.serveEnv(t, storetest.SQLiteURL(t), freeAddr(t), more...)
		for k, v := range e {
			if v == "" {
				delete(e, k)
			}
		}
		return e
	}
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknown := file("unknown.yaml", "COUNCIL_WORKERS: 2\nCOUNCIL_WROKERS: 3\n")
	layout := file("layout.yaml", "COUNCIL_LAYOUT: from-the-file\n")

	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string // in stderr
	}{
		{name: "no webhook secret", env: env("GITHUB_WEBHOOK_SECRET", ""), want: []string{"GITHUB_WEBHOOK_SECRET"}},
		{name: "bad role", env: env(), args: []string{"--role", "nope"}, want: []string{`"nope"`, "all, web, worker"}},
		{name: "bad role in the environment", env: env("COUNCIL_ROLE", "nope"), want: []string{"COUNCIL_ROLE", "all, web, worker"}},
		{name: "unknown key", env: env(), args: []string{"--config", unknown}, want: []string{unknown + ":2", "COUNCIL_WROKERS"}},
		{name: "environment over the file", env: env("COUNCIL_LAYOUT", "from-the-env"), args: []string{"--config", layout}, want: []string{`"from-the-env"`}},
		{name: "bad number", env: env("COUNCIL_WORKERS", "lots"), want: []string{`COUNCIL_WORKERS "lots"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := council(t, tt.env, append([]string{"serve"}, tt.args...)...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d; want %d\n%s", r.code, ExitUsage, r.err)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.err, w) {
					t.Errorf("stderr %q does not contain %q", r.err, w)
				}
			}
			if strings.Contains(r.err, "from-the-file") {
				t.Errorf("the file's value was used over the environment's: %q", r.err)
			}
		})
	}
}
