package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/store"
	"github.com/council-dev/council/internal/store/storetest"
)

const (
	serveAppID        = 77
	serveInstallation = 4242
	serveSecret       = "webhook-secret-for-tests"
)

// serveSetup is a GitHub with the App installed on acme/inventory (the demo repository as its
// git remote), pull requests 1..prs at the demo's v1..v2, and a model that answers the demo.
type serveSetup struct {
	prSetup
	keyFile string
	heads   []string // v2, then commits on top of it, for pushes
}

func setupServe(t *testing.T, prs int, opts ...githubtest.Option) serveSetup {
	t.Helper()
	repo := demoRepo(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	// A token to read what was posted with, beside the App.
	gh := githubtest.New(t, append([]githubtest.Option{githubtest.WithApp(serveAppID, serveInstallation, &key.PublicKey), githubtest.WithToken(prToken)}, opts...)...)
	gh.SetRemote("acme", "inventory", repo)
	heads := []string{strings.TrimSpace(git(t, repo, "rev-parse", "v2"))}
	// Pushes on top of v2: a notes file that grows, on a branch of its own.
	git(t, repo, "checkout", "-q", "-b", "pushes", "v2")
	for i := 1; i <= 2; i++ {
		if err := os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte(strings.Repeat("note\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, repo, "add", "NOTES.md")
		git(t, repo, "commit", "-q", "-m", fmt.Sprintf("push %d", i))
		heads = append(heads, strings.TrimSpace(git(t, repo, "rev-parse", "HEAD")))
	}
	base := strings.TrimSpace(git(t, repo, "rev-parse", "v1"))
	for n := 1; n <= prs; n++ {
		gh.AddPR("acme", "inventory", githubtest.PR{
			Number: n, Title: "Reserve stock and export reports", Body: "Adds /reserve and /export.", Author: "dev", State: "open",
			BaseRef: "main", BaseSHA: base, HeadRef: "feature", HeadSHA: heads[0],
		}, git(t, repo, "diff", "v1", heads[0]), nil)
	}
	ai := anthropicDemo(t)
	return serveSetup{
		prSetup: prSetup{repo: repo, gh: gh, ai: ai, env: map[string]string{
			"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": ai.URL, "GITHUB_API_URL": gh.URL,
			"GITHUB_APP_ID": fmt.Sprint(serveAppID), "GITHUB_APP_PRIVATE_KEY_FILE": keyFile,
		}},
		keyFile: keyFile, heads: heads,
	}
}

// push moves pull request n to heads[i], as a push to its branch does.
func (s serveSetup) push(t *testing.T, n, i int) {
	t.Helper()
	s.gh.SetHead("acme", "inventory", n, s.heads[i], git(t, s.repo, "diff", "v1", s.heads[i]))
}

// serveEnv is the environment of a `council serve` process on db.
func (s serveSetup) serveEnv(t *testing.T, db, addr string, more ...string) map[string]string {
	env := map[string]string{
		"GITHUB_WEBHOOK_SECRET": serveSecret, "COUNCIL_DATABASE_URL": db, "COUNCIL_ADDR": addr,
		"COUNCIL_DATA_DIR": t.TempDir(), "COUNCIL_POLL_INTERVAL": "50ms",
	}
	for k, v := range s.env {
		env[k] = v
	}
	for i := 0; i+1 < len(more); i += 2 {
		env[more[i]] = more[i+1]
	}
	return env
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// syncBuffer is a log two goroutines may write and read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// serveInProcess runs `council serve` in this process until the test ends, and waits until it
// is ready.
func serveInProcess(t testing.TB, env map[string]string) (base string, logs *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs = &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		f := &Factory{Out: logs, Err: logs, Getenv: func(k string) string { return env[k] }, NewClient: newSDKClient}
		done <- Run(ctx, f, []string{"serve"})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("council serve exited %d:\n%s", code, logs)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("council serve did not stop within 30s of its context ending")
		}
	})
	base = "http://" + env["COUNCIL_ADDR"]
	waitReady(t, base, logs)
	return base, logs
}

func waitReady(t testing.TB, base string, logs fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s/readyz did not answer 200 within 30s; logs:\n%s", base, logs)
}

type apiRun struct {
	ID       int64   `json:"id"`
	Repo     string  `json:"repo"`
	Number   int     `json:"number"`
	Head     string  `json:"head"`
	Status   string  `json:"status"`
	Posted   int     `json:"posted"`
	Findings int     `json:"findings"`
	CostUSD  float64 `json:"cost_usd"`
	Reason   string  `json:"reason"`
	Attempt  int     `json:"attempt"`
	Trigger  string  `json:"trigger"`
}

func listRuns(t *testing.T, base, query string) []apiRun {
	t.Helper()
	resp, err := http.Get(base + "/api/runs?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Runs []apiRun }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Runs
}

// waitRuns polls the server's runs until done says they are complete.
func waitRuns(t *testing.T, base, query string, logs fmt.Stringer, done func([]apiRun) bool) []apiRun {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var runs []apiRun
	for time.Now().Before(deadline) {
		runs = listRuns(t, base, query)
		if done(runs) {
			return runs
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("runs did not complete within 90s: %+v\nlogs:\n%s", runs, logs)
	return nil
}

func finished(runs []apiRun, n int) bool {
	c := 0
	for _, r := range runs {
		if r.Status != "running" {
			c++
		}
	}
	return c >= n
}

func (s serveSetup) deliver(t *testing.T, base, event, id string, body []byte) int {
	t.Helper()
	code, err := githubtest.Deliver(context.Background(), nil, base+"/webhook", serveSecret, event, id, body)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// The server's review of a pull request is the CLI's, byte for byte: the same flow posts it.
func TestServeReviewsPullRequestAsTheCLIDoes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the CLI's cached clone
	srv := setupServe(t, 7)
	cli := setupServe(t, 7)

	r := council(t, cli.env, "review", "--pr", "acme/inventory#7", "--post")
	if r.code != ExitOK {
		t.Fatalf("council review: exit %d\n%s", r.code, r.err)
	}

	base, logs := serveInProcess(t, srv.serveEnv(t, storetest.SQLiteURL(t), freeAddr(t)))
	if code := srv.deliver(t, base, "pull_request", "d-1", srv.gh.PullRequestPayload("opened", "acme", "inventory", 7, srv.heads[0], false, serveInstallation)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	runs := waitRuns(t, base, "repo=acme/inventory", logs, func(rs []apiRun) bool { return finished(rs, 1) })
	if runs[0].Status != "succeeded" || runs[0].Head != srv.heads[0] || runs[0].Posted != 3 || runs[0].Findings == 0 || runs[0].CostUSD <= 0 {
		t.Fatalf("run: %+v\nlogs:\n%s", runs[0], logs)
	}
	if got, want := srv.posted(t), cli.posted(t); got != want {
		t.Errorf("the server posted another review than the CLI:\n--- server\n%s\n--- CLI\n%s", got, want)
	}
	if got, want := normalizeHost(srv.gh.IssueCommentBodies("acme", "inventory", 7), srv.gh.URL), normalizeHost(cli.gh.IssueCommentBodies("acme", "inventory", 7), cli.gh.URL); !equalSummaries(got, want) {
		t.Errorf("summary comments differ:\n--- server\n%q\n--- CLI\n%q", got, want)
	}
	if strings.Contains(logs.String(), "BEGIN RSA PRIVATE KEY") || strings.Contains(logs.String(), serveSecret) || strings.Contains(logs.String(), anthropictest.DefaultAPIKey) {
		t.Error("the server's log shows a secret")
	}
}

func normalizeHost(bodies []string, api string) []string {
	host := strings.TrimSuffix(strings.TrimPrefix(api, "http://"), "/api/v3")
	out := make([]string, len(bodies))
	for i, b := range bodies {
		out[i] = strings.ReplaceAll(b, host, "github.example")
	}
	return out
}

// equalSummaries compares summary comments but for the run's wall time, which no two runs
// share.
func equalSummaries(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if cut(a[i]) != cut(b[i]) {
			return false
		}
	}
	return true
}

var wallTime = regexp.MustCompile(` · [0-9.]+s\n`)

func cut(s string) string { return wallTime.ReplaceAllString(s, "\n") }

// council runs list never makes an empty database where the server's is not.
func TestRunsListNeedsTheServersDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nope.db")
	r := council(t, nil, "runs", "list", "--database-url", "sqlite://"+path)
	if r.code == 0 || !strings.Contains(r.err, "no council serve database at "+path) {
		t.Errorf("exit %d; stderr:\n%s", r.code, r.err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("runs list created %s", path)
	}
}

// A question asked in one of council's review threads reaches the server as a
// pull_request_review_comment webhook, and the pull request's job answers it in the thread,
// without reviewing the head again.
func TestServeAnswersQuestionsInItsThreads(t *testing.T) {
	s := setupServe(t, 1, githubtest.WithUser(askerToken, "alice", githubtest.PullRequestsWrite))
	ai := anthropictest.New(t, anthropictest.WithRespond(feedbackReply))
	s.env["ANTHROPIC_BASE_URL"] = ai.URL
	base, logs := serveInProcess(t, s.serveEnv(t, storetest.SQLiteURL(t), freeAddr(t)))
	if code := s.deliver(t, base, "pull_request", "d-open", s.gh.PullRequestPayload("opened", "acme", "inventory", 1, s.heads[0], false, serveInstallation)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	waitRuns(t, base, "repo=acme/inventory", logs, func(rs []apiRun) bool { return finished(rs, 1) })

	ctx := context.Background()
	reader, err := github.New(github.Options{Token: prToken, BaseURL: s.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	comments, err := reader.ReviewComments(ctx, "acme", "inventory", 1)
	if err != nil || len(comments) == 0 {
		t.Fatalf("review comments: %d, %v", len(comments), err)
	}
	alice, err := github.New(github.Options{Token: askerToken, BaseURL: s.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	q, err := alice.ReplyToReviewComment(ctx, "acme", "inventory", 1, comments[0].ID, "Why is a negative n a problem here?")
	if err != nil {
		t.Fatal(err)
	}
	body := s.gh.ReviewCommentPayload("acme", "inventory", 1, q.ID, comments[0].ID, "alice", q.Body, serveInstallation)
	if code := s.deliver(t, base, "pull_request_review_comment", "d-question", body); code != http.StatusAccepted {
		t.Fatalf("question delivery answered %d", code)
	}
	runs := waitRuns(t, base, "repo=acme/inventory", logs, func(rs []apiRun) bool { return finished(rs, 2) })
	if runs[0].Status != "skipped" || runs[0].Reason != "already reviewed" || runs[0].Trigger != "question" {
		t.Errorf("the question's run: %+v", runs[0])
	}
	after, err := reader.ReviewComments(ctx, "acme", "inventory", 1)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, c := range after {
		if c.User == githubtest.AppLogin && strings.Contains(c.Body, ghreview.AnswerMarker(q.ID)) {
			answered++
		}
	}
	if answered != 1 {
		t.Errorf("%d answers to the question, want 1; logs:\n%s", answered, logs)
	}
}

// council installations lists what the server knows and changes an installation's settings,
// which its workers read before each review.
func TestInstallationsListAndSet(t *testing.T) {
	t.Parallel()
	url := storetest.SQLiteURL(t)
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpsertInstallation(context.Background(), store.Installation{ID: 4242, Account: "acme"}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	r := council(t, nil, "installations", "set", "4242", "--monthly-budget-usd", "25", "--database-url", url)
	if r.code != 0 || !strings.Contains(r.err, "installation 4242: monthly budget $25.00, drafts as the server says") {
		t.Fatalf("set: exit %d; stderr:\n%s", r.code, r.err)
	}
	if r := council(t, nil, "installations", "set", "4242", "--review-drafts=true", "--database-url", url); r.code != 0 {
		t.Fatalf("set drafts: exit %d; stderr:\n%s", r.code, r.err)
	}
	r = council(t, nil, "installations", "list", "--database-url", url)
	if r.code != 0 {
		t.Fatalf("list: exit %d; stderr:\n%s", r.code, r.err)
	}
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "4242") || !strings.Contains(lines[1], "acme") ||
		!strings.Contains(lines[1], "$25.00") || !strings.Contains(lines[1], "reviewed") {
		t.Errorf("list:\n%s", r.out)
	}
	for _, args := range [][]string{
		{"installations", "set", "4242", "--database-url", url},                               // nothing to set
		{"installations", "set", "acme", "--monthly-budget-usd", "1", "--database-url", url},  // not an id
		{"installations", "set", "4242", "--monthly-budget-usd", "-1", "--database-url", url}, // negative
	} {
		if r := council(t, nil, args...); r.code == 0 {
			t.Errorf("%v: exit 0, want an error; stderr:\n%s", args, r.err)
		}
	}
	// The budget reached the store the workers read.
	db, err = store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in, ok, err := db.Installation(context.Background(), 4242)
	if err != nil || !ok || in.Settings != (store.Settings{MonthlyBudgetUSD: 25, ReviewDrafts: true}) || in.Account != "acme" {
		t.Errorf("installation after set: %+v, %v, %v", in, ok, err)
	}
}
