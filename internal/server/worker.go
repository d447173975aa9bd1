package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/prflow"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/store"
)

type reviewWorker struct {
	river.WorkerDefaults[ReviewArgs]
	s *Server
}

func (w *reviewWorker) Work(ctx context.Context, job *river.Job[ReviewArgs]) error {
	return w.s.review(ctx, job)
}

type commandWorker struct {
	river.WorkerDefaults[CommandArgs]
	s *Server
}

func (w *commandWorker) Work(ctx context.Context, job *river.Job[CommandArgs]) error {
	return w.s.command(ctx, job)
}

// outcome is what reviewPR did when it did not fail.
type outcome struct {
	skipped string // why nothing was reviewed; "" when it was
	head    string
	rep     report.Report
	posted  int
	ran     bool // the pull request flow ran at head (reviewed it, or found it reviewed)
}

// review runs one review job: the pull request at its newest head, posted as the CLI would
// post it. A push while it runs queues a review of the new head once it is done.
func (s *Server) review(ctx context.Context, job *river.Job[ReviewArgs]) error {
	a := job.Args
	if !s.acquire(a.Installation) {
		// One installation has its share of this process's workers. The fetch gate keeps River
		// from taking such a job, unless jobs taken a moment before had not started yet when it
		// counted. The job goes back to the queue at once, without using an attempt, for a
		// worker with room for it: River makes it available in its next completion batch
		// (within 50ms).
		return river.JobSnooze(0)
	}
	defer s.release(a.Installation)
	s.m.running.Inc()
	defer s.m.running.Dec()
	log := s.log.With("job", job.ID, "attempt", job.Attempt, "installation", a.Installation, "repo", a.Owner+"/"+a.Repo, "number", a.Number)
	start := time.Now()
	runID, err := s.db.StartRun(ctx, store.Run{
		Installation: a.Installation, Repo: a.Owner + "/" + a.Repo, Number: a.Number, Trigger: a.Trigger,
		Delivery: a.Delivery, JobID: job.ID, Attempt: job.Attempt, Started: start,
	})
	if err != nil {
		return fmt.Errorf("record the run: %w", err)
	}
	log.Info("review run started", "run", runID, "trigger", a.Trigger)
	if job.Attempt > 1 {
		// An earlier attempt whose worker died (SIGKILL, a lost machine) never ended its run.
		if _, err := s.db.AbandonRuns(ctx, job.ID, runID, abandonReason(job.JobRow)); err != nil {
			log.Warn("end the runs of earlier attempts", "error", err.Error())
		}
	}
	out, err := s.reviewPR(ctx, a, log)
	res := store.Result{Head: out.head, Posted: out.posted, Finished: time.Now()}
	switch {
	case err != nil:
		res.Status, res.Error = store.StatusFailed, err.Error()
	case out.skipped != "":
		res.Status, res.Error = store.StatusSkipped, out.skipped
	default:
		res.Status = store.StatusSucceeded
		res.Findings, res.Ledger = runFindings(out.rep), ledgerRows(out.rep)
	}
	// The run's record outlives a cancelled job: the next attempt's history needs it.
	if ferr := s.db.FinishRun(context.WithoutCancel(ctx), runID, res); ferr != nil {
		log.Error("record the end of a run", "run", runID, "error", ferr)
	}
	s.m.reviews.WithLabelValues(res.Status).Inc()
	if res.Status == store.StatusSucceeded {
		s.m.latency.Observe(time.Since(start).Seconds())
		u := out.rep.Usage.Usage
		s.m.tokens.WithLabelValues("input").Add(float64(u.InputTokens))
		s.m.tokens.WithLabelValues("output").Add(float64(u.OutputTokens))
		s.m.tokens.WithLabelValues("cache_read").Add(float64(u.CacheReadTokens))
		s.m.tokens.WithLabelValues("cache_write").Add(float64(u.CacheWriteTokens))
		s.m.cost.Add(u.CostUSD)
	}
	log.Info("review run finished", "run", runID, "status", res.Status, "head", out.head, "posted", out.posted,
		"findings", len(res.Findings), "seconds", time.Since(start).Seconds(), "reason", res.Error)
	if err != nil {
		return s.retry(err, log)
	}
	// Complete the job before looking at the head: until it is completed it holds its unique
	// slot, and a delivery then (a push, /council resume) would be dropped as a duplicate of a
	// job that is done. A push after this is queued by its own delivery; one before it is seen
	// below.
	if cerr := s.q.complete(ctx, job); cerr != nil {
		log.Warn("complete the job", "error", cerr.Error())
		if out.ran && s.headMoved(ctx, a, out.head) {
			return river.JobSnooze(0) // the old way: this job runs again at the new head
		}
		return nil
	}
	if out.ran && s.headMoved(ctx, a, out.head) {
		log.Info("the pull request moved on while it was reviewed: queueing a review of the new head")
		next := a
		next.Full, next.Trigger, next.Delivery = false, "synchronize", ""
		if _, err := s.q.insert(ctx, next); err != nil {
			// The job is completed: an error returned now would change nothing.
			log.Error("queue a review of the new head", "error", err.Error())
		}
	}
	return nil
}

// abandonReason is why the run of an earlier attempt of job, still "running", failed: its
// worker died, and the queue says how it found out (a heartbeat that stopped, or River's
// rescue of a job that ran too long).
func abandonReason(job *rivertype.JobRow) string {
	why := "the worker stopped during this run (killed, or its machine lost); the job ran again"
	if n := len(job.Errors); n > 0 && job.Errors[n-1].Attempt == job.Attempt-1 {
		why += ": " + job.Errors[n-1].Error
	}
	return why
}

// headMoved says whether the open pull request's head is no longer head.
func (s *Server) headMoved(ctx context.Context, a ReviewArgs, head string) bool {
	gh, err := s.github(a.Installation)
	if err != nil {
		return false
	}
	now, err := gh.PullRequest(ctx, a.Owner, a.Repo, a.Number)
	return err == nil && now.State == "open" && now.HeadSHA != head
}

// reviewPR checks that the pull request should be reviewed and runs the pull request flow.
func (s *Server) reviewPR(ctx context.Context, a ReviewArgs, log *slog.Logger) (outcome, error) {
	var out outcome
	inst, _, err := s.db.Installation(ctx, a.Installation)
	if err != nil {
		return out, err
	}
	// An installation the store has not recorded (installed before the server first ran) reads
	// as the zero Installation: it is still this one, whose spend the budget counts.
	inst.ID = a.Installation
	if inst.Suspended {
		out.skipped = "the installation is suspended"
		return out, nil
	}
	if paused, err := s.db.Paused(ctx, a.Owner+"/"+a.Repo, a.Number); err != nil {
		return out, err
	} else if paused {
		out.skipped = "reviews are paused on this pull request (/council resume resumes them)"
		return out, nil
	}
	gh, err := s.github(a.Installation)
	if err != nil {
		return out, err
	}
	pr, err := prflow.Open(ctx, gh, a.Owner, a.Repo, a.Number)
	if err != nil {
		return out, err
	}
	out.head = pr.Info.HeadSHA
	switch {
	case pr.Info.State != "open":
		out.skipped = "the pull request is closed"
		return out, nil
	case pr.Info.Draft && !s.cfg.ReviewDrafts && !inst.Settings.ReviewDrafts:
		out.skipped = "the pull request is a draft"
		return out, nil
	}
	if over, err := s.overBudget(ctx, pr, inst); err != nil || over != "" {
		out.skipped = over
		return out, err
	}

	dir, err := s.cloneDir(gh, a.Owner, a.Repo)
	if err != nil {
		return out, err
	}
	cred, err := prflow.GitCredential(ctx, gh)
	if err != nil {
		return out, err
	}
	// Jobs of one repository share its clone: one fetch at a time, across processes too.
	unlock, err := lockDir(dir)
	if err != nil {
		return out, err
	}
	_, err = pr.Checkout(ctx, dir, cred)
	unlock()
	if err != nil {
		return out, err
	}
	jc := &jobClient{s: s}
	logw := lineLogger(log)
	defer logw.Close()
	res, err := pr.Run(ctx, prflow.Options{
		Clone: dir, Credential: cred,
		Engine: engine.Options{
			Provider: s.cfg.Provider, DefaultProvider: s.defaultProvider(), Model: s.cfg.Model, Version: s.version,
			NoDownload: s.noDownload(),
		},
		Post: true, CheckRun: s.cfg.CheckRun, Full: a.Full, Layout: s.cfg.Layout,
		Client: func(sess *engine.Session) (provider.Client, error) {
			c, err := s.model(sess.Config.Provider)
			if err != nil {
				return nil, err
			}
			jc.next = c
			return jc, nil
		},
		Prices: func(sess *engine.Session) provider.Prices { return prices(sess.Config.Prices) },
		// A review that every reviewer failed for a reason waiting can fix is tried again,
		// before it posts the summary that says it could not review.
		Reviewed: func(_ *engine.Session, rep report.Report) error {
			if prflow.EveryReviewerFailed(rep) {
				if err := jc.transient(); err != nil {
					return err
				}
			}
			return nil
		},
		Log: logw,
	})
	if err != nil {
		return out, err
	}
	out.skipped, out.rep, out.posted, out.ran = res.Skipped, res.Report, res.Posted, true
	return out, nil
}

// noDownload says why the reviewers' read_dependency does not download modules on this
// server, or "" when it may.
func (s *Server) noDownload() string {
	if s.cfg.DownloadModules {
		return ""
	}
	return "this council server downloads modules only with COUNCIL_DOWNLOAD_MODULES=true"
}

// budgetMarker marks the comment that says an installation's monthly budget is spent, once
// per pull request and month.
func budgetMarker(month time.Time) string {
	return fmt.Sprintf("<!-- council:v1 budget %s -->", month.Format("2006-01"))
}

// overBudget says why the installation's monthly budget stops this review ("" when it does
// not), and says so on the pull request once a month.
func (s *Server) overBudget(ctx context.Context, pr *prflow.PR, inst store.Installation) (string, error) {
	limit := inst.Settings.MonthlyBudgetUSD
	if limit == 0 {
		limit = s.cfg.MonthlyBudgetUSD
	}
	if limit <= 0 {
		return "", nil
	}
	now := s.now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	spent, err := s.db.Spend(ctx, inst.ID, month)
	if err != nil {
		return "", err
	}
	if spent < limit {
		return "", nil
	}
	why := fmt.Sprintf("the installation's monthly budget of %s is spent (%s this month)", usd(limit), usd(spent))
	if marker := budgetMarker(month); !pr.Said(marker) {
		next := month.AddDate(0, 1, 0)
		body := fmt.Sprintf("%s\n> [!NOTE]\n> council is paused: this installation's monthly review budget of %s is spent. Reviews resume on %s, or when an administrator raises the budget.\n",
			marker, usd(limit), next.Format("2 January 2006"))
		if err := pr.Say(ctx, body); err != nil {
			return why, err
		}
	}
	return why, nil
}

// command acts on a `/council ...` comment from a user who can write to the repository.
func (s *Server) command(ctx context.Context, job *river.Job[CommandArgs]) error {
	a := job.Args
	log := s.log.With("job", job.ID, "installation", a.Installation, "repo", a.Owner+"/"+a.Repo, "number", a.Number, "command", a.Command, "user", a.Commenter)
	gh, err := s.github(a.Installation)
	if err != nil {
		return s.retry(err, log)
	}
	perm, err := gh.Permission(ctx, a.Owner, a.Repo, a.Commenter)
	if err != nil {
		return s.retry(err, log)
	}
	if !github.CanWrite(perm) {
		log.Info("ignored a command from a user without write access", "permission", perm)
		return nil
	}
	repo := a.Owner + "/" + a.Repo
	switch a.Command {
	case string(github.CommandReview), string(github.CommandFullReview):
		_, err = s.q.insert(ctx, ReviewArgs{
			Installation: a.Installation, Owner: lower(a.Owner), Repo: lower(a.Repo), Number: a.Number,
			Full: a.Command == string(github.CommandFullReview), Trigger: "/council " + a.Command, Delivery: a.Delivery,
		})
	case string(github.CommandPause), string(github.CommandResume):
		pause := a.Command == string(github.CommandPause)
		if err = s.db.SetPaused(ctx, repo, a.Number, pause); err != nil {
			break
		}
		msg := "council will not review this pull request until someone with write access comments `/council resume`."
		if !pause {
			msg = "council reviews this pull request again, starting now."
		}
		_, err = gh.CreateIssueComment(ctx, a.Owner, a.Repo, a.Number, fmt.Sprintf("<!-- council:v1 %s -->\n%s (asked by @%s)", a.Command, msg, a.Commenter))
		if err == nil && !pause {
			_, err = s.q.insert(ctx, ReviewArgs{Installation: a.Installation, Owner: lower(a.Owner), Repo: lower(a.Repo), Number: a.Number, Trigger: "/council resume", Delivery: a.Delivery})
		}
	default:
		log.Warn("unknown command")
		return nil
	}
	if err != nil {
		return s.retry(err, log)
	}
	log.Info("command done")
	return nil
}

// retry turns a job's error into what River should do with it: wait as long as a rate limit
// asks (snoozed, not counted as an attempt), give up on what waiting cannot fix (cancelled,
// with the reason in the run's record), else retry with River's backoff.
func (s *Server) retry(err error, log *slog.Logger) error {
	kind, service, permanent, wait := classify(err)
	if service != "provider" { // the job's client counted each failed model request already
		s.m.errors.WithLabelValues(service, kind).Inc()
	}
	log.Warn("review job failed", "service", service, "kind", kind, "permanent", permanent, "error", err.Error())
	switch {
	case s.stopping.Load() && errors.Is(err, context.Canceled):
		return river.JobSnooze(0) // shut down mid-job: the next worker takes it at once
	case permanent:
		return river.JobCancel(err)
	case wait > 0:
		return river.JobSnooze(wait)
	}
	return err
}

// classify names an error's kind for the metrics and says whether a retry can help.
func classify(err error) (kind, service string, permanent bool, wait time.Duration) {
	var (
		ghRate   *github.RateLimitError
		ghAPI    *github.APIError
		pRate    *provider.RateLimitError
		pOver    *provider.OverloadedError
		pAuth    *provider.AuthError
		pBad     *provider.BadRequestError
		pQuota   *provider.QuotaError
		pServer  *provider.ServerError
		pTimeout *provider.TimeoutError
		pNet     *provider.TransportError
		cfgErr   *config.Error
		setup    *setupError
	)
	switch {
	case errors.As(err, &ghRate):
		wait = ghRate.RetryAfter
		if wait == 0 && !ghRate.Reset.IsZero() {
			wait = time.Until(ghRate.Reset)
		}
		return "rate_limited", "github", false, max(wait, time.Minute)
	case github.IsAuth(err):
		return "auth", "github", true, 0
	case github.IsNotFound(err):
		return "not_found", "github", true, 0
	case github.IsUnprocessable(err):
		return "unprocessable", "github", false, 0
	case errors.As(err, &ghAPI):
		return "server", "github", false, 0
	case errors.As(err, &pRate):
		return "rate_limited", "provider", false, pRate.RetryAfter
	case errors.As(err, &pOver):
		return "overloaded", "provider", false, pOver.RetryAfter
	case errors.As(err, &pAuth):
		return "auth", "provider", true, 0
	case errors.As(err, &pBad):
		return "bad_request", "provider", true, 0
	case errors.As(err, &pQuota):
		return "quota", "provider", true, 0
	case errors.As(err, &pServer):
		return "server", "provider", false, 0
	case errors.As(err, &pTimeout):
		return "timeout", "provider", false, 0
	case errors.As(err, &pNet):
		return "transport", "provider", false, 0
	case errors.As(err, &setup):
		return "setup", "council", true, 0
	case errors.As(err, &cfgErr):
		return "config", "council", true, 0 // the repository's .council.yaml: fixed by a commit, not by waiting
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled", "council", false, 0
	}
	return "other", "council", false, 0
}

// setupError is the server's own configuration failing a job: a provider it has no key for,
// say. Waiting does not fix it; the operator does.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// jobClient is one job's view of the shared model client: it remembers the provider errors
// the job met, so that a review every reviewer failed can be told apart (waiting helps, or not).
type jobClient struct {
	s    *Server
	next provider.Client
	mu   sync.Mutex
	errs []error
}

func (c *jobClient) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	resp, err := c.next.Complete(ctx, req)
	if err != nil && ctx.Err() == nil {
		kind, _, _, _ := classify(err)
		c.s.m.errors.WithLabelValues("provider", kind).Inc()
		c.mu.Lock()
		c.errs = append(c.errs, err)
		c.mu.Unlock()
	}
	return resp, err
}

// transient is the first error the job met that waiting can fix, or nil when every error was
// permanent (or there was none).
func (c *jobClient) transient() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, err := range c.errs {
		if _, _, permanent, _ := classify(err); !permanent {
			return fmt.Errorf("every reviewer failed: %w", err)
		}
	}
	return nil
}

// limitClient caps the model requests in flight in this process, all jobs together.
type limitClient struct {
	next provider.Client
	sem  chan struct{}
}

func (c limitClient) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return provider.Response{}, ctx.Err()
	}
	defer func() { <-c.sem }()
	return c.next.Complete(ctx, req)
}

// acquire takes one of an installation's job slots in this process; false when it has them all.
func (s *Server) acquire(inst int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight[inst] >= s.cfg.InstallationConcurrency {
		return false
	}
	s.inflight[inst]++
	return true
}

// room is how many more jobs of an installation this process can start.
func (s *Server) room(inst int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.InstallationConcurrency - s.inflight[inst]
}

func (s *Server) release(inst int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight[inst]--; s.inflight[inst] <= 0 {
		delete(s.inflight, inst)
	}
}

// cloneDir is where this server keeps its clone of a repository, by GitHub host.
func (s *Server) cloneDir(gh *github.Client, owner, repo string) (string, error) {
	u, err := url.Parse(gh.BaseURL())
	if err != nil {
		return "", err
	}
	host := strings.ReplaceAll(u.Host, ":", "_")
	return filepath.Join(s.cfg.DataDir, "repos", host, strings.ToLower(owner), strings.ToLower(repo)), nil
}

// lockDir takes an exclusive lock beside dir, held by this process until unlock; flock locks
// exclude each other across processes and across open files within one.
func lockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("make the clone directory: %w", err)
	}
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the clone %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the clone %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// lineLogger turns the flow's progress lines into log records.
func lineLogger(log *slog.Logger) io.WriteCloser {
	r, w := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			log.Info(strings.TrimPrefix(sc.Text(), "council: "))
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	return w
}

// runFindings are the report's findings as the store keeps them.
func runFindings(rep report.Report) []store.Finding {
	out := make([]store.Finding, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		out = append(out, store.Finding{
			Fingerprint: f.ID, Reviewer: f.Owner(), Status: string(f.Status), Severity: string(f.Severity),
			Category: f.Category, Path: f.Path, Line: f.Line, Title: f.Title,
		})
	}
	return out
}

// ledgerRows are what each reviewer (and the validator, and the cache warm-up) used.
func ledgerRows(rep report.Report) []store.LedgerRow {
	var out []store.LedgerRow
	row := func(name, model string, u provider.Usage, secs float64) {
		out = append(out, store.LedgerRow{
			Reviewer: name, Model: model, Requests: u.Requests, InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens),
			CacheReadTokens: int64(u.CacheReadTokens), CacheWriteTokens: int64(u.CacheWriteTokens), CostUSD: u.CostUSD, Seconds: secs,
		})
	}
	for _, rv := range rep.Reviewers {
		row(rv.Name, rv.Model, rv.Usage, rv.WallSecs)
	}
	if rep.Validation.Requests > 0 {
		row("validator", "", rep.Validation.Usage, 0)
	}
	if rep.Usage.CacheWarmup.Requests > 0 {
		row("cache warm-up", "", rep.Usage.CacheWarmup, 0)
	}
	return out
}

// usd shows an amount in US dollars: cents, or more digits below a dollar.
func usd(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}
