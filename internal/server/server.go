// Package server is `council serve`: a GitHub App service that takes webhooks, queues one
// review job per pull request on River, and runs the jobs with the same pull request flow as
// `council review --pr --post`. Its store and queue share one database: SQLite on one machine,
// Postgres for several processes (web and workers) on any number of machines.
//
// It must never review inline in a webhook (GitHub gives ten seconds), never log a secret or
// a payload, and never send the model provider's key anywhere but the server's own provider
// settings (a repository's .council.yaml cannot redirect it).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/store"
)

// Options are what Run needs besides the config.
type Options struct {
	Config Config
	// NewClient makes the model client of a provider ("anthropic", "openai") from the
	// config's keys; the CLI passes its SDK clients, so that this package never compiles them.
	NewClient func(provider string) (provider.Client, error)
	Log       *slog.Logger
	Version   string
	// GitHubHTTP carries the requests to GitHub; nil for the default.
	GitHubHTTP *http.Client
	// Ready is told the address the server listens on, once it serves (tests use port 0).
	Ready func(addr string)
	Now   func() time.Time
}

// Server is one `council serve` process.
type Server struct {
	cfg       Config
	db        *store.DB
	q         queue
	m         *metrics
	log       *slog.Logger
	version   string
	newClient func(string) (provider.Client, error)
	ghHTTP    *http.Client
	now       func() time.Time

	stopping atomic.Bool
	started  atomic.Bool

	mu       sync.Mutex
	inflight map[int64]int // installation -> jobs running in this process
	clients  map[int64]installationClient
	models   map[string]provider.Client
	modelSem chan struct{}
}

// installationClient is a cached GitHub client of one installation: its token cache lives as
// long as it does.
type installationClient struct {
	c       *github.Client
	created time.Time
}

// Run serves until ctx ends, then stops taking webhooks and drains the running jobs for up to
// COUNCIL_SHUTDOWN_TIMEOUT.
func Run(ctx context.Context, o Options) error {
	cfg := o.Config
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	s := &Server{
		cfg: cfg, db: db, log: o.Log, version: o.Version, newClient: o.NewClient, ghHTTP: o.GitHubHTTP, now: o.Now,
		inflight: map[int64]int{}, clients: map[int64]installationClient{}, models: map[string]provider.Client{},
		modelSem: make(chan struct{}, cfg.MaxModelCalls),
	}
	s.m = newMetrics(db.JobCounts)
	work := cfg.Role != "web"
	workers := river.NewWorkers()
	river.AddWorker(workers, &reviewWorker{s: s})
	river.AddWorker(workers, &commandWorker{s: s})
	var gate *fetchGate
	if work {
		gate = &fetchGate{db: db, log: o.Log, room: s.room}
	}
	if s.q, err = newQueue(db, queueOptions{
		work: work, workers: workers, maxWorkers: cfg.Workers, gate: gate,
		jobTimeout: cfg.Duration("COUNCIL_JOB_TIMEOUT"), rescueAfter: cfg.Duration("COUNCIL_RESCUE_AFTER"),
		poll: cfg.Duration("COUNCIL_POLL_INTERVAL"), maxAttempts: cfg.MaxAttempts, log: riverLogger(o.Log),
	}); err != nil {
		return err
	}
	// A worker records itself before it takes a job, so that every job it takes is one the
	// leader can put back if it dies.
	beats := make(chan error, 1)
	stopBeats := func() {}
	if work {
		host, _ := os.Hostname()
		if err := db.AddWorker(ctx, store.Worker{ID: s.q.id(), Host: host, PID: os.Getpid()}); err != nil {
			return fmt.Errorf("record this worker: %w", err)
		}
		if err := s.q.start(context.WithoutCancel(ctx)); err != nil {
			_ = db.RemoveWorker(context.WithoutCancel(ctx), s.q.id()) // the start's error says what went wrong
			return fmt.Errorf("start the job queue: %w", err)
		}
		// Heartbeats go on while the process drains its jobs, until the queue has stopped.
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		go func() { beats <- s.liveness(lctx, s.q.id()) }()
		stopBeats = func() {
			cancel()
			if err := <-beats; err != nil {
				o.Log.Warn("stopped recording heartbeats", "error", err.Error()) // the process stops either way
			}
		}
	}
	s.started.Store(true)

	srv := &http.Server{Addr: cfg.Addr, Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	ln, err := listen(cfg.Addr)
	if err != nil {
		return err
	}
	jobs := 0
	if work {
		jobs = cfg.Workers
	}
	o.Log.Info("council serve started", "addr", ln.Addr().String(), "role", cfg.Role, "database", db.Kind, "workers", jobs, "version", o.Version)
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		stopBeats()
		return fmt.Errorf("serve HTTP: %w", err)
	case err := <-beats:
		return s.stopAtOnce(err)
	case <-ctx.Done():
	}
	o.Log.Info("shutting down: no new webhooks; draining running jobs", "timeout", cfg.Duration("COUNCIL_SHUTDOWN_TIMEOUT").String())
	s.stopping.Store(true)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.Duration("COUNCIL_SHUTDOWN_TIMEOUT"))
	defer cancel()
	herr := srv.Shutdown(sctx)
	var qerr error
	if work {
		stopped := make(chan error, 1)
		go func() { stopped <- s.q.stop(sctx) }()
		select {
		case qerr = <-stopped:
		case err := <-beats:
			return s.stopAtOnce(err)
		}
		stopBeats()
		// Its jobs all finished or went back to the queue: nothing of this worker is left to
		// rescue. After an error some may still run, and the leader puts them back.
		if qerr == nil {
			if err := db.RemoveWorker(context.WithoutCancel(ctx), s.q.id()); err != nil {
				o.Log.Warn("remove this worker's record", "error", err.Error())
			}
		}
	}
	o.Log.Info("council serve stopped")
	return errors.Join(herr, qerr)
}

// stopAtOnce is how Run ends when liveness says this worker must stop: at once, without
// finishing its jobs or putting them back, as a killed worker would, since they may run
// elsewhere already or soon. The process exits; its run records are ended by the jobs' next
// attempts.
func (s *Server) stopAtOnce(err error) error {
	s.log.Error("stopping at once: this worker's jobs may run elsewhere", "worker", s.q.id(), "error", err.Error())
	return err
}

// routes are the HTTP endpoints of the process's role.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}))
	if s.cfg.Role != "worker" {
		hook := NewWebhookHandler(WebhookOptions{
			Secret: []byte(s.cfg.WebhookSecret), MaxBody: s.cfg.WebhookMaxBody, Deliveries: s.db, Dispatch: s, Log: s.log,
			Metrics: func(event, outcome string) { s.m.webhooks.WithLabelValues(event, outcome).Inc() },
		})
		mux.HandleFunc("/webhook", func(w http.ResponseWriter, r *http.Request) {
			t0 := time.Now()
			hook.ServeHTTP(w, r)
			s.m.deliveries.Observe(time.Since(t0).Seconds())
		})
		mux.HandleFunc("GET /api/runs", s.apiRuns)
	}
	return mux
}

// readyz: the database answers and the queue runs.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	switch {
	case s.stopping.Load():
		http.Error(w, "stopping", http.StatusServiceUnavailable)
	case !s.started.Load():
		http.Error(w, "queue not started", http.StatusServiceUnavailable)
	case s.db.Ping(ctx) != nil:
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
	default:
		_, _ = w.Write([]byte("ready\n"))
	}
}

// apiRuns lists recent runs as JSON: ?repo=owner/name&number=&status=&limit=.
func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.RunFilter{Repo: q.Get("repo"), Status: q.Get("status")}
	for name, p := range map[string]*int{"number": &f.Number, "limit": &f.Limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				http.Error(w, name+" must be a whole number", http.StatusBadRequest)
				return
			}
			*p = n
		}
	}
	f.Limit = min(f.Limit, maxAPIRuns) // an unauthenticated endpoint: one request reads a bounded page
	runs, err := s.db.Runs(r.Context(), f)
	if err != nil {
		s.log.Error("list runs", "error", err)
		http.Error(w, "cannot read the runs", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"runs": RunsJSON(runs)})
}

// maxAPIRuns caps GET /api/runs's limit.
const maxAPIRuns = 1000

// RunJSON is one run as GET /api/runs and `council runs list --format json` show it.
type RunJSON struct {
	ID           int64     `json:"id"`
	Installation int64     `json:"installation"`
	Repo         string    `json:"repo"`
	Number       int       `json:"number"`
	Head         string    `json:"head"`
	Trigger      string    `json:"trigger"`
	Status       string    `json:"status"`
	Attempt      int       `json:"attempt"`
	Started      time.Time `json:"started"`
	Finished     time.Time `json:"finished,omitzero"`
	Findings     int       `json:"findings"`
	Posted       int       `json:"posted"`
	InputTokens  int64     `json:"input_tokens"`
	OutputTokens int64     `json:"output_tokens"`
	CostUSD      float64   `json:"cost_usd"`
	Reason       string    `json:"reason,omitempty"`
}

// RunsJSON converts store runs.
func RunsJSON(runs []store.Run) []RunJSON {
	out := make([]RunJSON, 0, len(runs))
	for _, r := range runs {
		out = append(out, RunJSON{
			ID: r.ID, Installation: r.Installation, Repo: r.Repo, Number: r.Number, Head: r.Head, Trigger: r.Trigger,
			Status: r.Status, Attempt: r.Attempt, Started: r.Started, Finished: r.Finished, Findings: r.Findings,
			Posted: r.Posted, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, Reason: r.Error,
		})
	}
	return out
}

// Dispatch turns a verified webhook event into queue jobs and installation records.
func (s *Server) Dispatch(ctx context.Context, e github.Event, delivery string) error {
	switch e.Name {
	case "installation":
		switch e.Action {
		case "deleted":
			return s.db.DeleteInstallation(ctx, e.Installation)
		case "suspend", "unsuspend", "created", "new_permissions_accepted":
			if err := s.db.UpsertInstallation(ctx, store.Installation{ID: e.Installation, Account: e.Account, Suspended: e.Action == "suspend"}); err != nil {
				return err
			}
			s.forget(e.Installation) // its permissions may have changed: a new token
			if len(e.ReposAdded) > 0 {
				return s.db.SetRepositories(ctx, e.Installation, e.ReposAdded, nil)
			}
		}
		return nil
	case "installation_repositories":
		return s.db.SetRepositories(ctx, e.Installation, e.ReposAdded, e.ReposRemoved)
	case "pull_request":
		if e.Draft {
			inst, _, err := s.db.Installation(ctx, e.Installation)
			if err != nil {
				return err
			}
			if !s.cfg.ReviewDrafts && !inst.Settings.ReviewDrafts {
				return nil // a draft: reviewed when it is marked ready (ready_for_review)
			}
		}
		_, err := s.q.insert(ctx, ReviewArgs{
			Installation: e.Installation, Owner: lower(e.Owner), Repo: lower(e.Repo), Number: e.Number,
			Trigger: e.Action, Delivery: delivery,
		})
		return err
	case "pull_request_review_comment":
		// A question in a review thread: the pull request's job answers it (on a head already
		// reviewed, that is all it does). A job already queued answers it too; one already
		// running may have read the threads before it, and the next run answers it then.
		_, err := s.q.insert(ctx, ReviewArgs{
			Installation: e.Installation, Owner: lower(e.Owner), Repo: lower(e.Repo), Number: e.Number,
			Trigger: "question", Delivery: delivery,
		})
		return err
	case "issue_comment":
		cmd, ok := github.ParseCommand(e.Comment)
		if !ok {
			return nil
		}
		_, err := s.q.insert(ctx, CommandArgs{
			Installation: e.Installation, Owner: e.Owner, Repo: e.Repo, Number: e.Number,
			Command: string(cmd), Commenter: e.Commenter, Delivery: delivery,
		})
		return err
	}
	return nil
}

// github is the installation's client, cached (and with it its installation token) for
// COUNCIL_INSTALLATION_CLIENT_TTL.
func (s *Server) github(inst int64) (*github.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[inst]; ok && s.now().Sub(c.created) < s.cfg.Duration("COUNCIL_INSTALLATION_CLIENT_TTL") {
		return c.c, nil
	}
	c, err := github.New(github.Options{
		AppID: s.cfg.AppID, InstallationID: inst, PrivateKey: []byte(s.cfg.PrivateKey), BaseURL: s.cfg.APIURL,
		HTTPClient: s.ghHTTP, UserAgent: "council/" + s.version,
	})
	if err != nil {
		return nil, fmt.Errorf("GitHub client for installation %d: %w", inst, err)
	}
	s.clients[inst] = installationClient{c: c, created: s.now()}
	return c, nil
}

func (s *Server) forget(inst int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clients, inst)
}

// model is the process's client of a provider, shared by every job under one cap on requests
// in flight, with the provider package's retries.
func (s *Server) model(name string) (provider.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.models[name]; ok {
		return c, nil
	}
	var c provider.Client
	if s.cfg.ReplayDir != "" {
		c = provider.Replay(name, s.cfg.ReplayDir)
	} else {
		if s.newClient == nil {
			return nil, &setupError{fmt.Errorf("no %s client in this build", name)}
		}
		sdk, err := s.newClient(name)
		if err != nil {
			return nil, &setupError{fmt.Errorf("set up the %s provider: %w", name, err)}
		}
		c = provider.WithRetry(sdk, provider.RetryOptions{})
	}
	c = limitClient{next: c, sem: s.modelSem}
	s.models[name] = c
	return c, nil
}

// defaultProvider is the provider when neither COUNCIL_PROVIDER nor the repository's config
// names one: whichever has credentials, Anthropic first.
func (s *Server) defaultProvider() string {
	if s.cfg.AnthropicAPIKey == "" && s.cfg.AnthropicBaseURL == "" && (s.cfg.OpenAIAPIKey != "" || s.cfg.OpenAIBaseURL != "") {
		return "openai"
	}
	return "anthropic"
}

// prices are the built-in prices, and a repository's own only for models they lack: what a
// review costs counts against the installation's budget, so a repository cannot lower it.
func prices(repo map[string]config.Price) provider.Prices {
	out := provider.DefaultPrices()
	extra := provider.Prices{}
	for model, p := range repo {
		if _, ok := out.Lookup(model); !ok {
			extra[model] = provider.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
		}
	}
	return out.Merge(extra)
}

// riverLogger keeps River's own lines at warning and above: its info lines are per job.
func riverLogger(l *slog.Logger) *slog.Logger {
	return slog.New(levelFilter{l.Handler(), slog.LevelWarn})
}

type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (--addr): %w", addr, err)
	}
	return ln, nil
}
