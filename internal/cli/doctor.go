package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/doctor"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/anthropic/anthropicapi"
	"github.com/council-dev/council/internal/provider/openai"
	"github.com/council-dev/council/internal/provider/openai/openaiapi"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
)

// DoctorOptions are the flags of `council doctor`.
type DoctorOptions struct {
	Dir             string
	ConfigPath      string
	Provider, Model string
	Repo            string // owner/name on GitHub, for the token's permissions
	Offline         bool
	owner, repoName string
}

// NewCmdDoctor declares `council doctor`. runF replaces the behaviour in flag-parsing tests.
func NewCmdDoctor(f *Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the provider, model, requests and GitHub token council will use",
		Long: `Check, one line each, what council review would work with: the repository's config and
reviewer documents (from the base revision, as council review reads them), for OpenAI the
API the review would speak (the Responses API or Chat Completions, and why), the model
provider's key, each model the review would call (it exists, its output limit fits
budget.max_output_tokens, it is not retired), a tool call with council's real tool schemas
(forced where the model allows it), and the prompt cache. With --repo, the GitHub
credentials' permissions on that repository (the same variables council review --pr reads).

Each line starts with ok, warn or fail; a fail says what to do. It sends a handful of tiny
requests and prints what they cost. --offline sends nothing: it checks the config, the
reviewer documents and git, and every kind of request council sends, as the provider's SDK
writes it, against the API's documented rules.

Exit status: 0 when no check failed, 1 when one did, 2 for a usage error.`,
		Example: `  # after setting ANTHROPIC_API_KEY (or OPENAI_API_KEY / OPENAI_BASE_URL)
  council doctor

  # another model, and the GitHub token's permissions for council review --pr --post
  council doctor --model claude-opus-5-5 --repo owner/name

  # no network: config, reviewers, git, and the request bodies council would send
  council doctor --offline --provider openai`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return doctorRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Dir, "dir", ".", "the repository `DIR` whose config council review would use")
	fl.StringVar(&opts.ConfigPath, "config", "", "config `FILE` to use instead of the base revision's .council.yaml")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: config, else claude-sonnet-5-5 or gpt-6.2-sol)")
	fl.StringVar(&opts.Repo, "repo", "", "check the GitHub credentials on `OWNER/NAME`")
	fl.BoolVar(&opts.Offline, "offline", false, "send nothing: check config, reviewers, git and council's request bodies against the API's rules")
	return cmd
}

func (o *DoctorOptions) validate() error {
	if o.Provider != "" && !slices.Contains(providers, o.Provider) {
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	}
	if o.Repo != "" {
		var err error
		if o.owner, o.repoName, err = splitRepo(o.Repo); err != nil {
			return fmt.Errorf("--repo: %w", err)
		}
	}
	return nil
}

func doctorRun(ctx context.Context, f *Factory, o *DoctorOptions) error {
	start := time.Now()
	failed := 0
	print := func(ls ...doctor.Line) {
		for _, l := range ls {
			fmt.Fprintln(f.Out, l)
		}
		failed += doctor.Failures(ls)
	}
	setup, lines := doctor.Load(ctx, engine.Options{
		Repo: o.Dir, ConfigPath: o.ConfigPath, Provider: o.Provider, DefaultProvider: envProvider(f.Getenv), Model: o.Model,
	})
	print(lines...)
	cfg := setup.Config
	s := configSettings(f.Getenv, cfg)
	if cfg.Provider == "openai" {
		print(apiLine(s))
	}
	prices := provider.DefaultPrices().Merge(configPrices(cfg.Prices))
	var spent provider.Usage

	switch {
	case o.Offline:
		print(doctorOffline(ctx, f, cfg.Provider, setup, s)...)
	case s.APIKey == "" && s.BaseURL == "":
		print(doctor.Line{Status: doctor.Fail, Check: "credentials", Text: keyHelp(cfg.Provider)})
	default:
		client, err := f.NewClient(cfg.Provider, s)
		if err != nil {
			print(doctor.Line{Status: doctor.Fail, Check: "provider", Text: err.Error()})
			break
		}
		keyEnv := s.KeyEnv
		if s.APIKey == "" {
			keyEnv = ""
		}
		for i, m := range setup.Models {
			ls, u := doctor.Online(ctx, client, doctor.Target{
				Provider: cfg.Provider, Model: m, KeyEnv: keyEnv, ReportKey: i == 0, Official: official(cfg.Provider, s.BaseURL),
				MaxOutputTokens: cfg.Budget.MaxOutputTokens, KnownLimit: max(0, knownLimit(cfg.Provider, m)),
			})
			if cost, ok := prices.Cost(m, u); ok {
				u.CostUSD = cost
			}
			spent = spent.Add(u)
			print(ls...)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}

	if o.Repo != "" {
		print(doctorGitHub(ctx, f, o)...)
	}
	if !o.Offline {
		// On stderr, as council review's: stdout holds only the checks' lines.
		fmt.Fprintf(f.Err, "council: doctor's requests: %s\n", markdown.Ledger(report.Usage{Usage: spent, WallSeconds: time.Since(start).Seconds()}))
	}
	if failed > 0 {
		return &exitError{code: ExitFindings, msg: fmt.Sprintf("doctor: %s failed", plural(failed, "check"))}
	}
	return nil
}

// doctorOffline checks, without a network, the key's presence, the model against council's
// table of the provider's models, and every kind of request council sends as the SDK writes
// it, through a transport that holds each to the API's rules.
func doctorOffline(ctx context.Context, f *Factory, name string, setup doctor.Setup, s ProviderSettings) []doctor.Line {
	var lines []doctor.Line
	if s.APIKey == "" && s.BaseURL == "" {
		lines = append(lines, doctor.Line{Status: doctor.Warn, Check: "credentials", Text: keyHelp(name) + " (--offline sends nothing; council review will need it)"})
	} else {
		lines = append(lines, doctor.Line{Status: doctor.OK, Check: "credentials", Text: "set" + from(s) + "; not sent (--offline)"})
	}
	cfg := setup.Config
	for _, m := range setup.Models {
		// The output limit is checked, and an unknown model refused, only for a model of
		// council's table: another may well exist, which only an online check can tell.
		limit := knownLimit(name, m)
		var transport http.RoundTripper
		var api, base string
		switch name {
		case "openai":
			t := openaiapi.Offline{}
			if limit >= 0 {
				t.Models = openaiapi.KnownModels()
			}
			transport, api, base = t, "Chat Completions'", "http://offline.invalid/v1"
			if openai.ChooseAPI(openai.API(s.API), s.BaseURL) == openai.APIResponses {
				api = "the Responses API's"
			}
			if official(name, s.BaseURL) {
				// The client writes its body for OpenAI's own endpoint (the API it chooses,
				// max_completion_tokens, reasoning_effort) by the base URL; the transport
				// answers, nothing is sent.
				base = "https://api.openai.com/v1"
				if known, _ := openaiapi.KnownModels().Lookup(m); known.Shutdown != "" {
					lines = append(lines, doctor.Line{Status: doctor.Warn, Check: "model " + m,
						Text: fmt.Sprintf("OpenAI shuts it down on %s (https://developers.openai.com/api/docs/deprecations): move to a current model, such as %s, with --model or model: in .council.yaml", known.Shutdown, config.DefaultModel(name))})
				}
			}
		default:
			t := anthropicapi.Offline{}
			if limit >= 0 {
				t.Models = anthropicapi.KnownModels()
			}
			transport, api, base = t, "the Messages API's", "http://offline.invalid"
		}
		if limit < 0 {
			lines = append(lines, doctor.Line{Status: doctor.Warn, Check: "model " + m, Text: fmt.Sprintf("not in council's table of %s models: its name and output limit are checked online only", name)})
		} else {
			lines = append(lines, doctor.OutputLimit(m, cfg.Budget.MaxOutputTokens, limit))
		}
		samples, err := doctor.Requests(ctx, doctor.RequestOptions{Provider: name, Model: m, MaxOutputTokens: cfg.Budget.MaxOutputTokens})
		if err != nil {
			lines = append(lines, doctor.Line{Status: doctor.Fail, Check: "requests for " + m, Text: fmt.Sprintf("could not build council's sample requests: %v", err)})
			continue
		}
		client, err := f.NewClient(name, ProviderSettings{APIKey: "offline", BaseURL: base, HTTPClient: &http.Client{Transport: transport}, KeyEnv: s.KeyEnv, API: s.API})
		if err != nil {
			lines = append(lines, doctor.Line{Status: doctor.Fail, Check: "provider", Text: err.Error()})
			continue
		}
		lines = append(lines, doctor.Offline(ctx, client, m, samples, api)...)
	}
	return lines
}

// apiLine says which OpenAI API the review will speak, where, and why.
func apiLine(s ProviderSettings) doctor.Line {
	const check = "openai api"
	if err := checkOpenAIAPI(s.API); err != nil {
		return doctor.Line{Status: doctor.Fail, Check: check, Text: err.Error()}
	}
	base := strings.TrimSuffix(s.BaseURL, "/")
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	why := "chosen by the base URL; " + openAIAPIEnv + "=responses|chat or openai_api: in .council.yaml overrides it"
	if s.API != "" {
		why = "set by " + openAIAPIEnv + " or openai_api: in .council.yaml"
	}
	what := "Chat Completions, POST " + base + "/chat/completions"
	if openai.ChooseAPI(openai.API(s.API), s.BaseURL) == openai.APIResponses {
		what = "the Responses API, POST " + base + "/responses"
	}
	return doctor.Line{Status: doctor.OK, Check: check, Text: what + " (" + why + ")"}
}

// keyHelp says, on one line, how to give council the provider's key.
func keyHelp(name string) string {
	if name == "openai" {
		return "no key: set OPENAI_API_KEY, or OPENAI_BASE_URL (or base_url: in .council.yaml) for Ollama, vLLM, llama.cpp"
	}
	return "no key: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a gateway); --provider openai for OpenAI-compatible servers"
}

func from(s ProviderSettings) string {
	switch {
	case s.APIKey != "" && s.KeyEnv != "":
		return " (" + s.KeyEnv + ")"
	case s.BaseURL != "":
		return " (base URL " + s.BaseURL + ", no key)"
	}
	return ""
}

// doctorGitHub checks the GitHub credentials council review --pr would use on the repository.
func doctorGitHub(ctx context.Context, f *Factory, o *DoctorOptions) []doctor.Line {
	check := "github " + o.Repo
	if o.Offline {
		return []doctor.Line{{Status: doctor.Warn, Check: check, Text: "not checked (--offline)"}}
	}
	gh, err := githubClient(ctx, f.Getenv, o.owner, o.repoName)
	if err != nil {
		return []doctor.Line{{Status: doctor.Fail, Check: check, Text: err.Error()}}
	}
	return doctor.GitHub(ctx, gh, o.owner, o.repoName)
}

// knownLimit is the model's output limit in council's table of the provider's models: 0 when
// the table has the model but no limit, -1 when it does not have the model.
func knownLimit(name, model string) int {
	if name == "openai" {
		if m, ok := openaiapi.KnownModels().Lookup(model); ok {
			return m.MaxOutput
		}
		return -1
	}
	if m, ok := anthropicapi.KnownModels().Lookup(model); ok {
		return m.MaxTokens
	}
	return -1
}

// official says whether the base URL is the provider's own API (or the default).
func official(name, base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := "api.anthropic.com"
	if name == "openai" {
		host = "api.openai.com"
	}
	return u.Hostname() == host
}
