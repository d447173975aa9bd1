package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/ledger"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/source"
)

// BenchRunOptions are the flags of `council bench run`.
type BenchRunOptions struct {
	Dataset          string
	Out              string
	Concurrency      int
	MaxCost          float64
	Provider, Model  string
	Lenses, Personas []string
	ConfigPath       string
	RecordDir        string
	ReplayDir        string
	NoTools          bool
	NoValidate       bool
	Only             []string
	CacheDir         string
	// Learnings are learnings files the samples are reviewed with instead of their base
	// revision's, each for the samples of its source.repos; NoLearnings reviews with none.
	// AllowLeak lets through a file the leak check refuses (it cites the dataset's pull
	// requests, or is not dated before them).
	Learnings   []string
	NoLearnings bool
	AllowLeak   bool
}

// NewCmdBenchRun declares `council bench run`.
func NewCmdBenchRun(f *Factory, runF func(context.Context, *BenchRunOptions) error) *cobra.Command {
	opts := &BenchRunOptions{}
	cmd := &cobra.Command{
		Use:   "run DATASET --out DIR",
		Short: "Review every sample of a dataset with the council, as council review would",
		Long: `Review each sample of DATASET (a directory of <id>.json samples, made by council bench import)
at the state its first human reviewer saw: the council runs on the sample's base..head exactly as
council review would, with the configuration and reviewer documents of the sample's base revision.
Each review is written to DIR/reviews/<id>.json and DIR/run.json records how every sample ended.

The repository of a sample is its repo.path when set, else a cached clone of repo.url
(--cache DIR) into which the base and head commits are fetched.

A run is resumable: samples already done in DIR are skipped, so running the same command again
after an interrupt, a failure or a budget stop finishes the rest. --max-cost is a hard limit
over the whole run directory, what earlier invocations spent included (run.json's spent_usd):
no request is sent that could take it past the limit, and no sample is started whose estimate
no longer fits. One run directory holds one provider and model.

--learnings FILE reviews the samples of the repositories in FILE's source.repos with FILE's
learnings (a .council/learnings.yaml made by council learn) instead of those of the sample's
base revision; --no-learnings with none. Give --learnings once per repository of a dataset
that spans several: no file may name a repository another names, and a sample of a
repository no file names is reviewed with no learnings. A file without source.repos
(written by hand) must be the only one, and is for every sample. Before any review, a FILE
that could know the answers is refused: a learning whose evidence is a comment on one of its
samples' pull requests, or a file whose source.until is after the earliest of its samples'
pull requests was opened (or that has no source.until while the samples say when they were
opened). Build it with council learn --until DATE, DATE before the dataset.
--allow-learnings-leak runs anyway, for experiments; run.json records that it did.`,
		Example: `  council bench run bench/mine --out runs/sonnet --concurrency 4 --max-cost 20
  council bench run bench/mine --out runs/haiku --model claude-haiku-4-5 --record rec/haiku
  council bench run bench/mine --out runs/replayed --replay rec/haiku
  council bench run bench/mine --out runs/with-learnings --learnings learnings.yaml
  council bench run bench/eval --out runs/each-own --learnings etcd.yaml --learnings prometheus.yaml
  council bench run bench/mine --out runs/without --no-learnings`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dataset = args[0]
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Out, "out", "", "run `DIR`: run.json and reviews/<id>.json (required)")
	fl.IntVar(&opts.Concurrency, "concurrency", 2, "samples reviewed at once (each also sends its reviewers' requests in parallel)")
	fl.Float64Var(&opts.MaxCost, "max-cost", 0, "stop before the whole run would cost more than this many USD (0: no limit)")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: each sample's config, else the provider's default)")
	fl.StringSliceVar(&opts.Lenses, "lenses", nil, "lenses to run, comma-separated")
	fl.StringSliceVar(&opts.Personas, "personas", nil, "persona `FILE`s to add, comma-separated")
	fl.StringVar(&opts.ConfigPath, "config", "", "config `FILE` to use instead of each sample's base revision .council.yaml")
	fl.StringVar(&opts.RecordDir, "record", "", "save every model exchange under `DIR`/<id>/")
	fl.StringVar(&opts.ReplayDir, "replay", "", "answer every model request from the recordings in `DIR`/<id>/, offline (with --record: send only the requests not recorded there)")
	fl.BoolVar(&opts.NoTools, "no-tools", false, "reviewers get no repository tools")
	fl.BoolVar(&opts.NoValidate, "no-validate", false, "do not check findings with a second model call")
	fl.StringSliceVar(&opts.Only, "only", nil, "review only these sample `ID`s, comma-separated")
	fl.StringVar(&opts.CacheDir, "cache", "", "`DIR` for the clones of samples without repo.path (default: the user cache directory)")
	fl.StringArrayVar(&opts.Learnings, "learnings", nil, "review the samples of `FILE`'s source.repos with its learnings instead of their base revision's (repeat: one file per repository)")
	fl.BoolVar(&opts.NoLearnings, "no-learnings", false, "review with no learnings, not even a sample's own")
	fl.BoolVar(&opts.AllowLeak, "allow-learnings-leak", false, "use --learnings even when it cites the dataset's pull requests or is not dated before them (experiments only)")
	return cmd
}

func (o *BenchRunOptions) validate() error {
	switch {
	case o.Out == "":
		return errors.New("--out DIR is required: the run's reviews and run.json go there")
	case o.Concurrency < 1 || o.Concurrency > 64:
		return fmt.Errorf("--concurrency %d: must be between 1 and 64", o.Concurrency)
	case o.MaxCost < 0:
		return errors.New("--max-cost must be >= 0")
	case o.Provider != "" && !slices.Contains(providers, o.Provider):
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	case len(o.Learnings) > 0 && o.NoLearnings:
		return errors.New("--learnings and --no-learnings: choose one")
	case o.AllowLeak && len(o.Learnings) == 0:
		return errors.New("--allow-learnings-leak needs --learnings FILE")
	}
	return nil
}

// benchRunner reviews the samples of one run; its methods are safe for concurrent use.
type benchRunner struct {
	f        *Factory
	o        *BenchRunOptions
	guard    *ledger.Guard // the run's budget, shared by every sample; nil without --max-cost
	stop     atomic.Bool   // the budget is spent: start no more samples
	repoLock sync.Map      // repository dir -> *sync.Mutex: one fetch at a time per clone

	saveMu   sync.Mutex // held while run.json is written
	mu       sync.Mutex
	manifest bench.RunManifest
	clients  map[string]provider.Client // by provider name, made when a sample first needs one

	learnings runLearnings // --learnings
}

func benchRun(ctx context.Context, f *Factory, o *BenchRunOptions) error {
	samples, err := bench.LoadDataset(o.Dataset)
	if err != nil {
		return err
	}
	if samples, err = only(samples, o.Only); err != nil {
		return err
	}
	r := &benchRunner{f: f, o: o, clients: map[string]provider.Client{}}
	if r.learnings, err = checkLearnings(f, o, samples); err != nil {
		return err
	}
	if r.manifest, err = readManifest(o.Out); err != nil {
		return err
	}
	was := r.manifest
	r.manifest.Learnings, r.manifest.LearningsFiles, r.manifest.NoLearnings = nil, nil, o.NoLearnings
	if used := r.learnings.used; len(used) == 1 {
		r.manifest.Learnings = &used[0].LearningsUsed
	} else {
		r.manifest.LearningsFiles = used
	}
	if err := sameLearnings(was, r.manifest, o.Out); err != nil {
		return err
	}
	r.manifest.RunVersion, r.manifest.Dataset, r.manifest.MaxCostUSD = bench.RunVersion, o.Dataset, o.MaxCost
	if r.manifest.Name == "" {
		r.manifest.Name = filepath.Base(filepath.Clean(o.Out))
	}
	// Each sample's provider comes from --provider, else its config, else the environment, as
	// in council review; stop early when not even the first choice has credentials.
	if o.ReplayDir == "" || o.RecordDir != "" {
		name := o.Provider
		if name == "" {
			name = envProvider(f.Getenv)
		}
		if s := settings(f.Getenv, name); s.APIKey == "" && s.BaseURL == "" {
			return fmt.Errorf("%s", credentialsHelp)
		}
	}
	if o.MaxCost > 0 {
		// --max-cost is for the run directory: what earlier invocations spent counts.
		r.guard = ledger.NewGuard(nil, ledger.Budget{MaxUSD: o.MaxCost}, provider.DefaultPrices())
		r.guard.Charge(r.recordedSpend())
	}

	var todo []bench.Sample
	for _, s := range samples {
		if r.done(s.ID) {
			continue
		}
		todo = append(todo, s)
	}
	fmt.Fprintf(f.Err, "council: bench run: %s, %d already done, %d to review\n",
		plural(len(samples), "sample"), len(samples)-len(todo), len(todo))
	prog := newProgress(f.Err, len(todo))
	work := make(chan bench.Sample)
	var wg sync.WaitGroup
	for range min(o.Concurrency, max(len(todo), 1)) {
		wg.Go(func() {
			for s := range work {
				rs := r.sample(ctx, s)
				r.record(rs)
				prog.done(rs, r.spent())
			}
		})
	}
	for _, s := range todo {
		if ctx.Err() != nil || r.stop.Load() {
			break
		}
		select {
		case work <- s:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	prog.finish()
	if err := r.save(); err != nil {
		return err
	}
	return r.outcome(ctx, samples)
}

// outcome sums the run up on stderr and turns it into the exit code: interrupted, stopped by
// the budget (exit 3, resumable), some samples failed (exit 3), or done.
func (r *benchRunner) outcome(ctx context.Context, samples []bench.Sample) error {
	counts := map[string]int{}
	for _, rs := range r.manifest.Samples {
		counts[rs.Status]++
	}
	notRun := 0
	for _, s := range samples {
		if r.status(s.ID) == "" {
			notRun++
		}
	}
	fmt.Fprintf(r.f.Err, "council: bench run: %d done, %d failed, %d stopped, %d not started; $%.4f spent in all; %s\n",
		counts[bench.StatusDone], counts[bench.StatusFailed], counts[bench.StatusStopped], notRun, r.recordedSpend(), filepath.Join(r.o.Out, "run.json"))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if r.stop.Load() {
		return &exitError{code: ExitIncomplete, msg: fmt.Sprintf("the run stopped at --max-cost $%.2f; raise it and run the same command again to review the rest", r.o.MaxCost)}
	}
	if counts[bench.StatusFailed] > 0 || counts[bench.StatusStopped] > 0 {
		return &exitError{code: ExitIncomplete, msg: fmt.Sprintf("%d sample(s) not reviewed (see the errors in run.json); run the same command again to retry them", counts[bench.StatusFailed]+counts[bench.StatusStopped])}
	}
	return nil
}

// sample reviews one sample and writes its review; it never fails the run: what went wrong
// is the sample's status and error.
func (r *benchRunner) sample(ctx context.Context, s bench.Sample) bench.RunSample {
	rs := bench.RunSample{ID: s.ID}
	fail := func(status string, err error) bench.RunSample {
		rs.Status, rs.Error = status, err.Error()
		return rs
	}
	if r.stop.Load() {
		return fail(bench.StatusStopped, errors.New("not started: the run's --max-cost was reached"))
	}
	dir, err := r.repository(ctx, s)
	if err != nil {
		return fail(bench.StatusFailed, err)
	}
	o := r.o
	learnings, noLearnings := r.learnings.forSample(s)
	sess, err := engine.Open(ctx, engine.Options{
		Repo: dir, Base: s.Base, Head: s.Head, ConfigPath: o.ConfigPath,
		Provider: o.Provider, DefaultProvider: envProvider(r.f.Getenv), Model: o.Model,
		Lenses: o.Lenses, PersonaFiles: o.Personas, NoTools: o.NoTools, NoValidate: o.NoValidate,
		Title: s.PR.Title, Body: s.PR.Body, Version: Version,
		LearningsFile: learnings, NoLearnings: noLearnings,
	})
	if err != nil {
		return fail(bench.StatusFailed, err)
	}
	defer sess.Close()
	cfg := sess.Config
	prices := provider.DefaultPrices().Merge(configPrices(cfg.Prices))
	if err := r.noteRun(sess); err != nil {
		return fail(bench.StatusFailed, err)
	}

	var client ledger.Completer
	if o.ReplayDir != "" && o.RecordDir == "" {
		client = provider.Replay(cfg.Provider, filepath.Join(o.ReplayDir, s.ID))
	} else {
		c, err := r.clientFor(cfg)
		if err != nil {
			return fail(bench.StatusFailed, err)
		}
		client = c
		if o.ReplayDir != "" { // and --record: replay what is recorded, send the rest
			client = provider.ReplayOr(cfg.Provider, filepath.Join(o.ReplayDir, s.ID), client)
		}
		if o.RecordDir != "" { // every exchange, replayed or sent: the recording is complete
			client = provider.Record(client, cfg.Provider, filepath.Join(o.RecordDir, s.ID))
		}
	}
	if r.guard != nil {
		for _, m := range sess.Models() {
			if !hasPrice(prices, m) {
				return fail(bench.StatusFailed, fmt.Errorf("--max-cost cannot limit model %q: it has no price; add it under prices: in the config (USD per million tokens)", m))
			}
		}
		est, _ := sess.DryRun(ctx, prices)
		if need, left := est.Estimate.Usage.CostUSD, o.MaxCost-r.guard.Spent(); need > left {
			r.stop.Store(true)
			return fail(bench.StatusStopped, fmt.Errorf("not started: it needs about $%.4f and $%.4f of --max-cost is left", need, left))
		}
		client = r.guard.Through(client, prices)
	}
	// Outside the guard, to see its refusals.
	watch := &budgetWatch{next: client}
	rep := sess.Run(ctx, watch, prices)
	// Spent even when the review does not count: the run's cost says so.
	rs.CostUSD, rs.WallSeconds = rep.Usage.CostUSD, rep.Usage.WallSeconds
	if ctx.Err() != nil {
		return fail(bench.StatusStopped, errors.New("interrupted"))
	}
	if watch.refused.Load() {
		r.stop.Store(true)
		return fail(bench.StatusStopped, fmt.Errorf("stopped: the run's --max-cost $%.2f was reached during its review", o.MaxCost))
	}
	if err := reviewFailed(rep); err != nil {
		return fail(bench.StatusFailed, err)
	}
	name := filepath.Join("reviews", s.ID+".json")
	if err := writeReport(filepath.Join(o.Out, name), rep); err != nil {
		return fail(bench.StatusFailed, err)
	}
	rs.Status, rs.Review = bench.StatusDone, filepath.ToSlash(name)
	for _, fd := range rep.Findings {
		if fd.Status != finding.Filtered {
			rs.Findings++
		}
	}
	return rs
}

// clientFor is the client of the sample's provider, with retries, shared by every sample on
// that provider and endpoint.
func (r *benchRunner) clientFor(cfg config.Config) (provider.Client, error) {
	s := configSettings(r.f.Getenv, cfg)
	if s.APIKey == "" && s.BaseURL == "" {
		return nil, fmt.Errorf("%s", credentialsHelp)
	}
	key := cfg.Provider + " " + s.BaseURL + " " + s.API
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[key]; ok {
		return c, nil
	}
	c, err := modelClient(r.f, cfg.Provider, s, "", "")
	if err != nil {
		return nil, err
	}
	r.clients[key] = c
	return c, nil
}

// reviewFailed is the error of a review in which no reviewer succeeded: scoring it would
// count the failure as the council missing everything.
func reviewFailed(rep report.Report) error {
	var errs []string
	for _, rv := range rep.Reviewers {
		if rv.Succeeded {
			return nil
		}
		for _, e := range rv.Errors {
			errs = append(errs, rv.Name+": "+e)
		}
	}
	if len(rep.Reviewers) == 0 {
		return nil
	}
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
	}
	return fmt.Errorf("every reviewer failed: %s", strings.Join(errs, "; "))
}

// budgetWatch notes whether the budget refused a request of its sample.
type budgetWatch struct {
	next    ledger.Completer
	refused atomic.Bool
}

func (b *budgetWatch) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	resp, err := b.next.Complete(ctx, req)
	var be *ledger.BudgetError
	if errors.As(err, &be) {
		b.refused.Store(true)
	}
	return resp, err
}

// recordedSpend is what the run has spent (run.json's spent_usd), earlier invocations
// included: a resumed run's budget starts from it.
func (r *benchRunner) recordedSpend() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.manifest.SpentUSD
}

// spent is what the run has cost so far, for the progress line.
func (r *benchRunner) spent() float64 {
	if r.guard == nil {
		return r.recordedSpend()
	}
	return r.guard.Spent()
}

// repository returns the local repository holding the sample's base and head: its repo.path
// (relative to the dataset), else a cached clone of repo.url that they are fetched into.
func (r *benchRunner) repository(ctx context.Context, s bench.Sample) (string, error) {
	dir := s.LocalPath(r.o.Dataset)
	var err error
	if dir == "" {
		name := s.Repo.Name
		if name == "" {
			name = repoNameFromURL(s.Repo.URL)
		}
		if r.o.CacheDir != "" {
			dir = filepath.Join(r.o.CacheDir, filepath.FromSlash(name))
		} else if dir, err = cloneCache(name); err != nil {
			return "", err
		}
	}
	lock, _ := r.repoLock.LoadOrStore(dir, &sync.Mutex{})
	lock.(*sync.Mutex).Lock()
	defer lock.(*sync.Mutex).Unlock()
	var g *source.Git
	if s.Repo.Path != "" {
		g, err = source.OpenGit(ctx, dir)
	} else {
		g, err = source.InitGit(ctx, dir)
	}
	if err != nil {
		return "", fmt.Errorf("open the repository of %s: %w", s.ID, err)
	}
	defer g.Close()
	if g.Has(ctx, s.Base) && g.Has(ctx, s.Head) {
		return g.Dir(), nil
	}
	if s.Repo.URL == "" {
		return "", fmt.Errorf("%s does not hold the sample's base %s and head %s, and the sample has no repo.url to fetch them from", dir, short(s.Base), short(s.Head))
	}
	if err := g.Fetch(ctx, s.Repo.URL, gitCredential(r.f.Getenv, githubAPI(r.f.Getenv)), s.Base, s.Head); err != nil {
		return "", fmt.Errorf("fetch %s's base and head into %s: %w", s.ID, dir, err)
	}
	for _, sha := range []string{s.Base, s.Head} {
		if !g.Has(ctx, sha) {
			return "", fmt.Errorf("commit %s of %s is not in %s after fetching from %s", short(sha), s.ID, dir, s.Repo.URL)
		}
	}
	return g.Dir(), nil
}

// repoNameFromURL turns https://example.com/owner/repo.git into example.com/owner/repo, the
// cache path of a sample that has no repo.name.
func repoNameFromURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return "other"
	}
	name := strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	return u.Host + "/" + name
}

// githubAPI is the GitHub API council talks to: GITHUB_API_URL, else github.com's.
func githubAPI(getenv func(string) string) string {
	if u := getenv("GITHUB_API_URL"); u != "" {
		return u
	}
	return "https://api.github.com/"
}

// noteRun records the run's provider, model and reviewers from the first sample that opens,
// and refuses a sample on another model: one run directory scores one model.
func (r *benchRunner) noteRun(sess *engine.Session) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := sess.Config
	if r.manifest.Provider == "" {
		r.manifest.Provider, r.manifest.Model = c.Provider, c.Model
	}
	if c.Provider != r.manifest.Provider || c.Model != r.manifest.Model {
		return fmt.Errorf("this run is on %s %s (run.json), this sample would run on %s %s (flags, or its config): use --provider and --model to pick one, or another --out",
			r.manifest.Provider, r.manifest.Model, c.Provider, c.Model)
	}
	for _, rv := range sess.Reviewers {
		if !slices.Contains(r.manifest.Reviewers, rv.Name) {
			r.manifest.Reviewers = append(r.manifest.Reviewers, rv.Name)
		}
	}
	return nil
}

func (r *benchRunner) status(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range r.manifest.Samples {
		if rs.ID == id {
			return rs.Status
		}
	}
	return ""
}

// done says whether a sample was reviewed by an earlier run into this directory.
func (r *benchRunner) done(id string) bool {
	if r.status(id) != bench.StatusDone {
		return false
	}
	_, err := os.Stat(filepath.Join(r.o.Out, "reviews", id+".json"))
	return err == nil
}

// record puts a sample's outcome in the manifest and saves it, so that an interrupted run
// loses nothing that finished.
func (r *benchRunner) record(rs bench.RunSample) {
	r.mu.Lock()
	r.manifest.SpentUSD += rs.CostUSD
	i := slices.IndexFunc(r.manifest.Samples, func(x bench.RunSample) bool { return x.ID == rs.ID })
	if i < 0 {
		r.manifest.Samples = append(r.manifest.Samples, rs)
	} else {
		r.manifest.Samples[i] = rs
	}
	slices.SortFunc(r.manifest.Samples, func(a, b bench.RunSample) int { return strings.Compare(a.ID, b.ID) })
	r.mu.Unlock()
	if err := r.save(); err != nil {
		fmt.Fprintf(r.f.Err, "council: %v\n", err)
	}
}

// save writes run.json. Saves are one at a time, so that an older state encoded first can
// never be written over a newer one.
func (r *benchRunner) save() error {
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	r.mu.Lock()
	data, err := json.MarshalIndent(r.manifest, "", "  ")
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("encode run.json: %w", err)
	}
	return writeAtomic(filepath.Join(r.o.Out, "run.json"), append(data, '\n'))
}

// readManifest reads DIR/run.json of an earlier run; a new directory starts empty.
func readManifest(dir string) (bench.RunManifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if errors.Is(err, os.ErrNotExist) {
		return bench.RunManifest{}, nil
	}
	if err != nil {
		return bench.RunManifest{}, fmt.Errorf("read the earlier run: %w", err)
	}
	var m bench.RunManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return bench.RunManifest{}, fmt.Errorf("read %s: %w (move it away to start the run afresh)", filepath.Join(dir, "run.json"), err)
	}
	if m.RunVersion != bench.RunVersion {
		return bench.RunManifest{}, fmt.Errorf("%s has run_version %q; this council writes %s: use another --out", filepath.Join(dir, "run.json"), m.RunVersion, bench.RunVersion)
	}
	return m, nil
}

func writeReport(path string, rep report.Report) error {
	var b strings.Builder
	if err := report.WriteJSON(&b, rep); err != nil {
		return fmt.Errorf("render review: %w", err)
	}
	return writeAtomic(path, []byte(b.String()))
}

// writeAtomic writes through a temporary file and a rename, so that an interrupt never leaves
// half a file that a resumed run would take for a finished one.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// only keeps the samples named by --only; an unknown id is an error.
func only(samples []bench.Sample, ids []string) ([]bench.Sample, error) {
	if len(ids) == 0 {
		return samples, nil
	}
	var out []bench.Sample
	for _, id := range ids {
		i := slices.IndexFunc(samples, func(s bench.Sample) bool { return s.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("--only %s: the dataset has no such sample", id)
		}
		out = append(out, samples[i])
	}
	return out, nil
}

// progress shows how the run goes: a bar redrawn in place on a terminal, a line per sample
// otherwise (a CI log).
type progress struct {
	w        io.Writer
	terminal bool
	total    int
	start    time.Time
	mu       sync.Mutex
	n        int
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, terminal: isTerminal(w), total: total, start: time.Now()}
}

func (p *progress) done(rs bench.RunSample, spent float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	what := fmt.Sprintf("%s: %d findings, $%.4f, %.0fs", rs.ID, rs.Findings, rs.CostUSD, rs.WallSeconds)
	if rs.Status != bench.StatusDone {
		what = fmt.Sprintf("%s %s: %s", rs.ID, rs.Status, rs.Error)
	}
	if !p.terminal {
		fmt.Fprintf(p.w, "council: bench [%d/%d] %s\n", p.n, p.total, what)
		return
	}
	if rs.Status != bench.StatusDone {
		fmt.Fprintf(p.w, "\r\033[Kcouncil: %s\n", what)
	}
	const width = 30
	filled := width * p.n / max(p.total, 1)
	eta := "-"
	if p.n < p.total {
		per := time.Since(p.start) / time.Duration(p.n)
		eta = (per * time.Duration(p.total-p.n)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d  ETA %s  $%.2f", strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.n, p.total, eta, spent)
}

func (p *progress) finish() {
	if p.terminal && p.n > 0 {
		fmt.Fprintln(p.w)
	}
}

// isTerminal says whether w is a terminal (a character device), where a redrawn bar makes sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// maxLeaksShown bounds the leaks a refusal lists; run.json keeps them all.
const maxLeaksShown = 5

// runLearnings is which learnings file each sample is reviewed with (--learnings), if any
// (--no-learnings).
type runLearnings struct {
	none   bool              // --no-learnings
	all    string            // the only file, without source.repos: every sample's
	byRepo map[string]string // lower-case owner/name -> the file of its samples
	used   []bench.LearningsFileUsed
}

// forSample is the learnings file a sample is reviewed with ("": none given), and whether it
// is reviewed with no learnings at all.
func (l runLearnings) forSample(s bench.Sample) (file string, none bool) {
	switch {
	case l.none:
		return "", true
	case l.all != "":
		return l.all, false
	case len(l.used) == 0:
		return "", false // the base revision's own
	}
	// A sample of a repository no file names gets NoLearnings, not just no LearningsFile: with
	// LearningsFile "" the engine reads the base revision's .council/learnings.yaml, and the
	// run measures the files given, nothing else.
	file = l.byRepo[strings.ToLower(s.RepoName())]
	return file, file == ""
}

// checkLearnings reads the --learnings files, works out which samples each is for (those of
// its source.repos; every sample for the only file when it names none), and refuses, before
// any review, files that name the same repository or that could know their samples' answers
// (bench.LearningsLeaks), unless --allow-learnings-leak.
func checkLearnings(f *Factory, o *BenchRunOptions, samples []bench.Sample) (runLearnings, error) {
	l := runLearnings{none: o.NoLearnings, byRepo: map[string]string{}}
	owner := map[string]int{} // lower-case owner/name -> index in o.Learnings
	for i, name := range o.Learnings {
		data, err := os.ReadFile(name)
		if err != nil {
			return runLearnings{}, fmt.Errorf("--learnings: %w", err)
		}
		file, err := learn.Parse(name, data)
		if err != nil {
			return runLearnings{}, fmt.Errorf("--learnings: %w", err)
		}
		abs, err := filepath.Abs(name) // the engine opens it from the sample's repository
		if err != nil {
			return runLearnings{}, fmt.Errorf("--learnings %s: %w", name, err)
		}
		var repos []string
		if file.Source != nil {
			repos = file.Source.Repos
		}
		mine := samples
		if len(repos) == 0 {
			if len(o.Learnings) > 1 {
				return runLearnings{}, fmt.Errorf("--learnings %s has no source.repos, so nothing says which samples it is for: with several --learnings files each must name its repositories (council learn writes them), or give this one alone to review every sample with it", name)
			}
			l.all = abs
		} else {
			for _, repo := range repos {
				key := strings.ToLower(repo)
				if j, dup := owner[key]; dup && j != i {
					return runLearnings{}, fmt.Errorf("--learnings %s and --learnings %s both name repository %s (source.repos): give one file per repository", o.Learnings[j], name, repo)
				}
				owner[key], l.byRepo[key] = i, abs
			}
			mine = nil
			for _, s := range samples {
				if slices.ContainsFunc(repos, func(r string) bool { return strings.EqualFold(r, s.RepoName()) }) {
					mine = append(mine, s)
				}
			}
		}
		used, err := checkLearningsFile(f, o, name, data, file, mine)
		if err != nil {
			return runLearnings{}, err
		}
		l.used = append(l.used, bench.LearningsFileUsed{LearningsUsed: used, Repos: repos})
	}
	if len(l.used) > 0 && l.all == "" {
		unnamed := map[string]int{}
		for _, s := range samples {
			if _, none := l.forSample(s); none {
				repo := s.RepoName()
				if repo == "" {
					repo = "(no repository)"
				}
				unnamed[repo]++
			}
		}
		if len(unnamed) > 0 {
			var counts []string
			n := 0
			for _, repo := range slices.Sorted(maps.Keys(unnamed)) {
				counts = append(counts, fmt.Sprintf("%s %d", repo, unnamed[repo]))
				n += unnamed[repo]
			}
			fmt.Fprintf(f.Err, "council: bench run: no --learnings file names the repository of %s, reviewed with no learnings: %s\n", plural(n, "sample"), strings.Join(counts, ", "))
		}
	}
	return l, nil
}

// checkLearningsFile refuses a learnings file that could know the answers of the samples it
// is for (bench.LearningsLeaks), unless --allow-learnings-leak; what it returns is run.json's
// record of the file.
func checkLearningsFile(f *Factory, o *BenchRunOptions, name string, data []byte, file learn.File, samples []bench.Sample) (bench.LearningsUsed, error) {
	sum := sha256.Sum256(data)
	used := bench.LearningsUsed{File: name, SHA256: hex.EncodeToString(sum[:]), Learnings: len(file.Learnings)}
	var src bench.LearningsSource
	if file.Source != nil {
		src.Until, used.Until = file.Source.Until, file.Source.Until
	}
	for _, l := range file.Learnings {
		for _, ev := range l.Evidence {
			src.Evidence = append(src.Evidence, bench.LearningsEvidence{Learning: l.ID, URL: ev.URL})
		}
	}
	if _, dated := bench.EarliestCreated(samples); !dated {
		fmt.Fprintf(f.Err, "council: bench run: no sample says when its pull request was opened (pr.created): %s is checked for evidence from the dataset's pull requests, not for its date\n", name)
	}
	leaks := bench.LearningsLeaks(src, samples)
	if len(leaks) == 0 {
		return used, nil
	}
	lines := make([]string, len(leaks))
	for i, l := range leaks {
		lines[i] = l.String()
	}
	if o.AllowLeak {
		used.LeakAllowed, used.Leaks = true, lines
		fmt.Fprintf(f.Err, "council: bench run: --allow-learnings-leak: %s could know the answers of this dataset (%s); run.json records it\n", name, plural(len(leaks), "leak"))
		return used, nil
	}
	shown := lines[:min(len(lines), maxLeaksShown)]
	more := ""
	if len(lines) > len(shown) {
		more = fmt.Sprintf("\n  and %d more", len(lines)-len(shown))
	}
	return bench.LearningsUsed{}, fmt.Errorf("--learnings %s could know the answers of dataset %s, so the run would not measure the council on unseen pull requests:\n  %s%s\nbuild the file with council learn --until DATE (DATE before the dataset's pull requests, on other pull requests), or pass --allow-learnings-leak to run anyway",
		name, o.Dataset, strings.Join(shown, "\n  "), more)
}

// sameLearnings refuses to add to a run directory reviews made with other learnings than its
// earlier ones: a run's numbers must come from one set of learnings. The files are compared
// by content, in any order.
func sameLearnings(was, now bench.RunManifest, out string) error {
	if len(was.Samples) == 0 {
		return nil
	}
	if was.NoLearnings == now.NoLearnings && slices.Equal(learningsSums(was), learningsSums(now)) {
		return nil
	}
	return fmt.Errorf("%s was run with %s, this run would use %s: use the same, or another --out", filepath.Join(out, "run.json"), sayLearnings(was), sayLearnings(now))
}

// learningsSums are the sha256 of a run's learnings files, sorted.
func learningsSums(m bench.RunManifest) []string {
	var sums []string
	if m.Learnings != nil {
		sums = append(sums, m.Learnings.SHA256)
	}
	for _, u := range m.LearningsFiles {
		sums = append(sums, u.SHA256)
	}
	slices.Sort(sums)
	return sums
}

// sayLearnings says which learnings a run was made with, as its flags would.
func sayLearnings(m bench.RunManifest) string {
	files := slices.Clone(m.LearningsFiles)
	if m.Learnings != nil {
		files = append(files, bench.LearningsFileUsed{LearningsUsed: *m.Learnings})
	}
	switch {
	case len(files) > 0:
		var says []string
		for _, u := range files {
			says = append(says, fmt.Sprintf("--learnings %s (sha256 %s)", u.File, u.SHA256[:min(12, len(u.SHA256))]))
		}
		return strings.Join(says, " ")
	case m.NoLearnings:
		return "--no-learnings"
	}
	return "each sample's own learnings"
}
