package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/prflow"
	"github.com/council-dev/council/internal/provider"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/publish/rdjson"
	"github.com/council-dev/council/internal/publish/sarif"
	"github.com/council-dev/council/internal/report"
)

// ReviewOptions are the flags of `council review`.
type ReviewOptions struct {
	Repo, Base, Head string
	Provider, Model  string
	Lenses, Personas []string
	Formats          []string
	Out, OutDir      string
	FailOn           string
	Concurrency      int
	AllowPartial     bool
	ConfigPath       string
	RecordDir        string
	ReplayDir        string
	DryRun           bool
	MaxUSD           float64
	NoTools          bool
	NoValidate       bool
	NoLearnings      bool
	RulesOnly        bool
	PR               string // owner/repo#123 or a pull request URL
	Post             bool
	Layout           string
	CheckRun         bool
	Full             bool
	Overview         bool

	repoSet   bool // --repo was given
	formatSet bool // --format was given (else the config's output.format applies)
	failOnSet bool
}

// Formats council review writes, and the file name each gets under --out-dir.
var formatFiles = map[string]string{
	"markdown": "review.md", "json": "review.json", "sarif": "review.sarif", "rdjson": "review.rdjson",
}

// informationURI is where a SARIF consumer sends users to read about council.
const informationURI = "https://github.com/council-dev/council"

var providers = []string{"anthropic", "openai"}

// NewCmdReview declares `council review`. runF replaces the behaviour in flag-parsing tests.
func NewCmdReview(f *Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{}
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Review a git range with the council",
		Long: `Review the change from --base to --head in a local repository with every configured
reviewer in parallel, anchor each finding to the diff, merge duplicates, and print the result.

The model provider comes from --provider, else .council.yaml, else whichever of
ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL or OPENAI_API_KEY / OPENAI_BASE_URL is set.
OpenAI's own API is spoken through its Responses API, any other OPENAI_BASE_URL through Chat
Completions; COUNCIL_OPENAI_API=responses|chat (or openai_api: in .council.yaml) overrides.
Configuration and reviewer documents are read from the base revision, never from the change.`,
		Example: `  # in a checkout: HEAD against its merge-base with the default branch
  council review

  # another repository and range, as JSON
  council review --repo ../svc --base v1.2.0 --head feature --format json --out review.json

  # OpenAI (or Ollama, vLLM, llama.cpp through OPENAI_BASE_URL), two lenses
  council review --provider openai --model gpt-6.2-sol --lenses correctness,security

  # a server that speaks OpenAI's Responses API, not only Chat Completions
  COUNCIL_OPENAI_API=responses OPENAI_BASE_URL=http://localhost:8000/v1 council review --provider openai

  # a GitHub pull request: print locally, or post the reviews on it
  council review --pr owner/repo#123
  council review --pr https://github.com/owner/repo/pull/123 --post --format sarif --out council.sarif

  # see what would be sent and what it would cost, without calling a model
  council review --dry-run

  # record a review, then reproduce it offline (examples/demo/replay.sh replays a demo)
  council review --record rec/
  council review --replay rec/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.formatSet = cmd.Flags().Changed("format")
			opts.repoSet = cmd.Flags().Changed("repo")
			opts.failOnSet = cmd.Flags().Changed("fail-on")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return reviewRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", ".", "repository `DIR` to review")
	fl.StringVar(&opts.Base, "base", "", "base `REV` (default: merge-base of HEAD with origin/HEAD, else main or master)")
	fl.StringVar(&opts.Head, "head", "HEAD", "head `REV`")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: config, else claude-sonnet-5-5 or gpt-6.2-sol)")
	fl.StringSliceVar(&opts.Lenses, "lenses", nil, "lenses to run, comma-separated (default: correctness,security,maintainability)")
	fl.StringSliceVar(&opts.Personas, "personas", nil, "persona `FILE`s to add, comma-separated")
	fl.StringSliceVar(&opts.Formats, "format", []string{"markdown"}, "output formats: markdown|json|sarif|rdjson; several need --out-dir")
	fl.StringVar(&opts.Out, "out", "", "write the output to `FILE` instead of stdout")
	fl.StringVar(&opts.OutDir, "out-dir", "", "write each format to `DIR`/review.<ext>")
	fl.StringVar(&opts.FailOn, "fail-on", "", "exit 1 when a finding at or above this severity is found: "+severityList())
	fl.IntVar(&opts.Concurrency, "concurrency", 0, "model requests in flight at once (default: config, else 4)")
	fl.BoolVar(&opts.AllowPartial, "allow-partial", false, "exit 0 when some reviewers failed but at least one succeeded")
	fl.StringVar(&opts.ConfigPath, "config", "", "config `FILE` to use instead of the base revision's .council.yaml")
	fl.StringVar(&opts.RecordDir, "record", "", "save every model exchange under `DIR`")
	fl.StringVar(&opts.ReplayDir, "replay", "", "answer every model request from recordings in `DIR`, offline")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "stop before calling a model: print the plan and estimates (requests go to --record DIR)")
	fl.Float64Var(&opts.MaxUSD, "max-usd", 0, "stop sending requests before the run would cost more than this")
	fl.BoolVar(&opts.NoTools, "no-tools", false, "reviewers and the validator get no repository tools (read_file, grep, list_files, git_log)")
	fl.BoolVar(&opts.NoValidate, "no-validate", false, "do not check each finding with a second model call (the output says so)")
	fl.BoolVar(&opts.NoLearnings, "no-learnings", false, "ignore the base revision's .council/learnings.yaml (see docs/config.md)")
	fl.BoolVar(&opts.RulesOnly, "rules-only", false, "run only the rules of .council.yaml: no model, no credentials, offline")
	fl.StringVar(&opts.PR, "pr", "", "review a GitHub pull request: `owner/repo#123` or its URL (uses --repo as the clone, else a cached one)")
	fl.BoolVar(&opts.Post, "post", false, "post the reviews on the pull request (with --pr)")
	fl.StringVar(&opts.Layout, "layout", "per-reviewer", "GitHub review layout with --post: per-reviewer|consolidated")
	fl.BoolVar(&opts.CheckRun, "check-run", false, "report the review as a check run whose conclusion follows --fail-on (with --pr)")
	fl.BoolVar(&opts.Overview, "overview", false, "post a 'Pull request overview' review first: what the PR changes, file by file (with --post)")
	fl.BoolVar(&opts.Full, "full", false, "review the whole pull request again, not only what changed since council's last review")
	return cmd
}

func severityList() string {
	names := make([]string, len(finding.Severities))
	for i, s := range finding.Severities {
		names[i] = string(s)
	}
	return strings.Join(names, "|")
}

func (o *ReviewOptions) validate() error {
	if o.Provider != "" && !slices.Contains(providers, o.Provider) {
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	}
	for _, fm := range o.Formats {
		if _, ok := formatFiles[fm]; !ok {
			return fmt.Errorf("--format %q: must be one of markdown, json, sarif, rdjson", fm)
		}
	}
	if o.FailOn != "" {
		if _, err := finding.ParseSeverity(o.FailOn); err != nil {
			return fmt.Errorf("--fail-on: %w", err)
		}
	}
	if o.Concurrency < 0 || o.Concurrency > 64 {
		return fmt.Errorf("--concurrency %d: must be between 1 and 64", o.Concurrency)
	}
	if o.Out != "" && o.OutDir != "" {
		return fmt.Errorf("--out and --out-dir cannot be used together")
	}
	if len(o.Formats) > 1 && o.OutDir == "" {
		return fmt.Errorf("--format %s writes several files: add --out-dir DIR", strings.Join(o.Formats, ","))
	}
	if o.RecordDir != "" && o.ReplayDir != "" {
		return fmt.Errorf("--record and --replay cannot be used together")
	}
	if o.DryRun && o.ReplayDir != "" {
		return fmt.Errorf("--dry-run and --replay cannot be used together")
	}
	if o.MaxUSD < 0 {
		return fmt.Errorf("--max-usd must be >= 0")
	}
	if o.PR == "" && (o.Post || o.CheckRun || o.Full) {
		return fmt.Errorf("--post, --check-run and --full need --pr")
	}
	if o.Overview && !o.Post {
		return fmt.Errorf("--overview is a review posted on the pull request: add --pr and --post")
	}
	if _, err := ghreview.ParseLayout(o.Layout); err != nil {
		return fmt.Errorf("--layout: %w", err)
	}
	if o.PR != "" && (o.Base != "" || o.Head != "HEAD") {
		return fmt.Errorf("--pr takes its base and head from the pull request: drop --base and --head")
	}
	if o.RulesOnly && (o.DryRun || o.ReplayDir != "" || o.RecordDir != "") {
		return fmt.Errorf("--rules-only calls no model: it cannot be used with --dry-run, --record or --replay")
	}
	return nil
}

// credentialsHelp names every way to give council a model.
const credentialsHelp = `no model provider is configured: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) for Anthropic,
or OPENAI_API_KEY (or OPENAI_BASE_URL for Ollama, vLLM, llama.cpp) for OpenAI-compatible servers,
and choose with --provider anthropic|openai; or use --dry-run or --replay DIR to run without one`

func reviewRun(ctx context.Context, f *Factory, o *ReviewOptions) error {
	offline := o.DryRun || o.ReplayDir != "" || o.RulesOnly
	eo := engine.Options{
		Repo: o.Repo, Base: o.Base, Head: o.Head, ConfigPath: o.ConfigPath,
		Provider: o.Provider, DefaultProvider: envProvider(f.Getenv), Model: o.Model,
		Lenses: o.Lenses, PersonaFiles: o.Personas, Concurrency: o.Concurrency, MaxUSD: o.MaxUSD,
		NoTools: o.NoTools, NoValidate: o.NoValidate, NoLearnings: o.NoLearnings, RulesOnly: o.RulesOnly,
		Version: Version,
	}
	if f.Environ != nil {
		eo.Env = f.Environ()
	}
	if o.PR == "" {
		sess, err := engine.Open(ctx, eo)
		if err != nil {
			return err
		}
		defer sess.Close()
		if err := prepare(f, o, sess); err != nil {
			return err
		}
		client, err := startClient(ctx, f, o, sess, offline)
		if errors.Is(err, prflow.ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
		rep := sess.Run(ctx, client, prices(sess))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := reviewed(f, o, sess, rep); err != nil {
			return err
		}
		return outcome(rep, o)
	}

	// A workflow on a pull request from a fork gets no secrets: that is not the author's
	// fault, so it is a skip with a reason, not a failure of their pull request.
	if f.Getenv("GITHUB_ACTIONS") == "true" && !offline && !anyCredentials(f.Getenv) {
		fmt.Fprintln(f.Err, "council: skipping the review: this workflow run has no model API key (pull requests from forks get no secrets); a maintainer can run it with the key, or use pull_request_target with care")
		return nil
	}
	owner, repo, n, err := github.ParsePRRef(o.PR)
	if err != nil {
		return fmt.Errorf("--pr: %w", err)
	}
	gh, err := githubClient(ctx, f.Getenv, owner, repo)
	if err != nil {
		return err
	}
	pr, err := prflow.Open(ctx, gh, owner, repo, n)
	if err != nil {
		return err
	}
	po := prflow.Options{
		Engine: eo, Post: o.Post, CheckRun: o.CheckRun, Full: o.Full, Overview: o.Overview, Layout: o.Layout,
		Prepare: func(sess *engine.Session) (string, error) {
			return o.FailOn, prepare(f, o, sess)
		},
		Client: func(sess *engine.Session) (provider.Client, error) {
			return startClient(ctx, f, o, sess, offline)
		},
		Prices: prices,
		Reviewed: func(sess *engine.Session, rep report.Report) error {
			return reviewed(f, o, sess, rep)
		},
		Gate: func(rep report.Report, _ string) error { return outcome(rep, o) },
		Log:  f.Err,
	}
	if o.repoSet {
		po.Clone = o.Repo
	}
	// An App mints a token for git only when a commit has to be fetched.
	if clone := orCache(po.Clone, owner+"/"+repo); !prflow.HasCommit(ctx, clone, pr.Info.BaseSHA) || !prflow.HasCommit(ctx, clone, pr.Info.HeadSHA) {
		if po.Credential, err = gitCredentialFor(ctx, gh); err != nil {
			return err
		}
	}
	res, err := pr.Run(ctx, po)
	var pe *prflow.PublishError
	if errors.As(err, &pe) {
		if pe.Op == "post the review" {
			return &exitError{code: ExitPublish, msg: fmt.Sprintf("post the review on %s: %v (the review is in this run's output)", o.PR, pe.Err)}
		}
		return &exitError{code: ExitPublish, msg: fmt.Sprintf("%s on %s: %v", pe.Op, o.PR, pe.Err)}
	}
	if err != nil || res.Skipped != "" {
		return err
	}
	return res.GateErr
}

// prepare applies the config's output settings that the command line did not set.
func prepare(f *Factory, o *ReviewOptions, sess *engine.Session) error {
	cfg := sess.Config
	if !o.formatSet && len(cfg.Output.Format) > 0 {
		o.Formats = cfg.Output.Format
		if len(o.Formats) > 1 && o.OutDir == "" {
			return fmt.Errorf(".council.yaml output.format lists %s: add --out-dir DIR, or choose one with --format", strings.Join(o.Formats, ","))
		}
	}
	if !o.failOnSet && cfg.Output.FailOn != "" {
		o.FailOn = string(cfg.Output.FailOn)
	}
	return nil
}

func prices(sess *engine.Session) provider.Prices {
	return provider.DefaultPrices().Merge(configPrices(sess.Config.Prices))
}

// startClient checks that a model can be reached and makes its client; a dry run prints its
// plan and ends with prflow.ErrStop; a rules-only run gets no client.
func startClient(ctx context.Context, f *Factory, o *ReviewOptions, sess *engine.Session, offline bool) (provider.Client, error) {
	cfg := sess.Config
	// Only local reads so far: stop here, before any model work, when no provider can be reached.
	s := configSettings(f.Getenv, cfg)
	if !offline && s.APIKey == "" && s.BaseURL == "" {
		return nil, fmt.Errorf("%s", credentialsHelp)
	}
	if cfg.Budget.MaxUSD > 0 {
		for _, m := range sess.Models() {
			if !hasPrice(prices(sess), m) {
				return nil, fmt.Errorf("budget.max_usd cannot limit model %q: it has no price; add it under prices: in .council.yaml (USD per million tokens)", m)
			}
		}
	}
	if o.DryRun {
		rep, reqs := sess.DryRun(ctx, prices(sess))
		if o.RecordDir != "" {
			for _, rr := range reqs {
				for _, req := range rr {
					if _, err := provider.SaveRequest(cfg.Provider, o.RecordDir, req); err != nil {
						return nil, fmt.Errorf("save dry-run request: %w", err)
					}
				}
			}
		}
		if err := writeOutputs(f, o, rep, cfg.CouncilName); err != nil {
			return nil, err
		}
		fmt.Fprintf(f.Err, "council: dry run, nothing sent. %s\n", markdown.EstimateLine(*rep.Estimate))
		return nil, prflow.ErrStop
	}
	if o.RulesOnly {
		if len(cfg.Rules) == 0 {
			return nil, fmt.Errorf("--rules-only: the config has no rules: add rules: to .council.yaml (see docs/config.md)")
		}
		return nil, nil
	}
	client, err := modelClient(f, cfg.Provider, s, o.ReplayDir, o.RecordDir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f.Err, "council: reviewing %s..%s (%s changed) with %s on %s\n", revName(sess.Change.Base), revName(sess.Change.Head),
		plural(len(sess.Change.Files), "file"), plural(len(sess.Reviewers), "reviewer"), cfg.Model)
	return client, nil
}

// reviewed writes the finished review's outputs and its one-line ledger.
func reviewed(f *Factory, o *ReviewOptions, sess *engine.Session, rep report.Report) error {
	if err := writeOutputs(f, o, rep, sess.Config.CouncilName); err != nil {
		return err
	}
	if o.RulesOnly {
		fmt.Fprintf(f.Err, "council: rules only: %s from %s, no model called\n", plural(len(rep.Findings), "finding"), plural(len(sess.Config.Rules), "rule"))
	} else {
		fmt.Fprintf(f.Err, "council: %s\n", markdown.Ledger(rep.Usage))
	}
	return nil
}

// orCache is dir, or the cached clone of name when dir is "".
func orCache(dir, name string) string {
	if dir != "" {
		return dir
	}
	d, _ := cloneCache(name)
	return d
}

// modelClient makes the client a review sends its requests to: the recordings in replayDir,
// else the provider's SDK client with retries, recording into recordDir when set.
func modelClient(f *Factory, name string, s ProviderSettings, replayDir, recordDir string) (provider.Client, error) {
	if replayDir != "" {
		return provider.Replay(name, replayDir), nil
	}
	c, err := f.NewClient(name, s)
	if err != nil {
		return nil, fmt.Errorf("set up %s provider: %w", name, err)
	}
	var mu sync.Mutex
	client := provider.WithRetry(c, provider.RetryOptions{
		OnRetry: func(attempt int, wait time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(f.Err, "council: %v; retrying in %s (attempt %d of %d)\n",
				err, wait.Round(time.Millisecond), attempt+1, provider.DefaultMaxAttempts)
		},
	})
	if recordDir != "" {
		return provider.Record(client, name, recordDir), nil
	}
	return client, nil
}

// outcome turns a finished review into the command's result: failed reviewers first, then
// --fail-on.
func outcome(rep report.Report, o *ReviewOptions) error {
	failed, succeeded := 0, 0
	for _, r := range rep.Reviewers {
		if len(r.Errors) > 0 {
			failed++
		}
		if r.Succeeded {
			succeeded++
		}
	}
	if failed > 0 && (!o.AllowPartial || succeeded == 0) {
		return &exitError{code: ExitIncomplete, msg: fmt.Sprintf("%d of %d reviewers failed (see the review's warnings); --allow-partial accepts a partial review", failed, len(rep.Reviewers))}
	}
	if o.FailOn != "" {
		floor, _ := finding.ParseSeverity(o.FailOn)
		if worst := rep.MaxSeverity(); worst != "" && worst.Rank() >= floor.Rank() {
			return &exitError{code: ExitFindings, msg: fmt.Sprintf("found a %s finding (--fail-on %s)", worst, o.FailOn)}
		}
	}
	return nil
}

// writeOutputs renders the report in every requested format, to stdout, --out or --out-dir.
func writeOutputs(f *Factory, o *ReviewOptions, rep report.Report, council string) error {
	for _, fm := range o.Formats {
		var buf bytes.Buffer
		var err error
		switch fm {
		case "json":
			err = report.WriteJSON(&buf, rep)
		case "sarif":
			err = sarif.Write(&buf, rep, sarif.Options{ToolVersion: Version, InformationURI: informationURI})
		case "rdjson":
			err = rdjson.Write(&buf, rep)
		default:
			err = markdown.Render(&buf, rep, markdown.Options{Council: council})
		}
		if err != nil {
			return fmt.Errorf("render %s: %w", fm, err)
		}
		switch {
		case o.OutDir != "":
			if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
			if err := writeFile(filepath.Join(o.OutDir, formatFiles[fm]), buf.Bytes()); err != nil {
				return err
			}
		case o.Out != "":
			if err := writeFile(o.Out, buf.Bytes()); err != nil {
				return err
			}
		default:
			if _, err := f.Out.Write(buf.Bytes()); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
		}
	}
	return nil
}

func writeFile(name string, data []byte) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

func configPrices(in map[string]config.Price) provider.Prices {
	out := provider.Prices{}
	for model, p := range in {
		out[model] = provider.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
	}
	return out
}

func anyCredentials(getenv func(string) string) bool {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		if getenv(k) != "" {
			return true
		}
	}
	return false
}

// revName shortens a full commit SHA for messages and leaves names as given.
func revName(rev string) string {
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	return rev
}

func hasPrice(p provider.Prices, model string) bool {
	_, ok := p.Lookup(model)
	return ok
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// envProvider is the provider used when neither --provider nor the config names one: whichever
// has credentials in the environment, Anthropic first.
func envProvider(getenv func(string) string) string {
	if getenv("ANTHROPIC_API_KEY") == "" && getenv("ANTHROPIC_BASE_URL") == "" &&
		(getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "") {
		return "openai"
	}
	return "anthropic"
}

func settings(getenv func(string) string, name string) ProviderSettings {
	if name == "openai" {
		return ProviderSettings{APIKey: getenv("OPENAI_API_KEY"), BaseURL: getenv("OPENAI_BASE_URL"), KeyEnv: "OPENAI_API_KEY", API: getenv(openAIAPIEnv)}
	}
	return ProviderSettings{APIKey: getenv("ANTHROPIC_API_KEY"), BaseURL: getenv("ANTHROPIC_BASE_URL"), KeyEnv: "ANTHROPIC_API_KEY"}
}

// openAIAPIEnv names the variable that chooses the OpenAI API: responses or chat.
const openAIAPIEnv = "COUNCIL_OPENAI_API"

// configSettings are the provider's settings with what the repository's config says over the
// environment: base_url, and for OpenAI openai_api.
func configSettings(getenv func(string) string, cfg config.Config) ProviderSettings {
	s := settings(getenv, cfg.Provider)
	if cfg.BaseURL != "" {
		s.BaseURL = cfg.BaseURL
	}
	if cfg.Provider == "openai" && cfg.OpenAIAPI != "" {
		s.API = cfg.OpenAIAPI
	}
	return s
}
