package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/server"
	"github.com/council-dev/council/internal/store"
)

// ServeOptions are the flags of `council serve`.
type ServeOptions struct {
	ConfigPath  string
	Addr        string
	DatabaseURL string
	Role        string
}

// NewCmdServe declares `council serve`.
func NewCmdServe(f *Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	o := &ServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run council as a GitHub App: webhooks in, reviews out, through a durable job queue",
		Long: `Serve GitHub App webhooks and review every pull request of every repository the App is
installed on. Each review is a job in a queue (River) in the same database as the server's
records: SQLite in ./council.db by default, or Postgres with --database-url, where several
processes share the work (--role web takes webhooks, --role worker runs reviews).

Settings come from --config FILE and the environment, under the same names either way
(GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY_FILE, GITHUB_WEBHOOK_SECRET, ANTHROPIC_API_KEY, ...;
docs/server.md lists them all); the environment wins over the file, and flags over both.

Reviewers read Go dependencies from the worker's module cache; COUNCIL_DOWNLOAD_MODULES=true
lets them have the go command download a version the cache lacks (off by default: a shared
server's egress and module credentials, and pull requests naming modules, are yours to
allow).

A worker records a heartbeat in the database every COUNCIL_HEARTBEAT_INTERVAL (10s); the jobs of
a worker whose last heartbeat is older than COUNCIL_HEARTBEAT_TIMEOUT (1m), killed or its machine
lost, start again on another worker. A worker that could not record a heartbeat for that long less
two intervals, or finds it was taken for dead, exits with an error at once.`,
		Example: `  # one machine: SQLite store and queue in ./council.db, port 8080
  council serve

  # several machines on one Postgres
  council serve --database-url postgres://council@db/council --role web
  council serve --database-url postgres://council@db/council --role worker

  # let reviewers download Go modules the workers' module cache lacks
  COUNCIL_DOWNLOAD_MODULES=true GOPROXY=https://proxy.golang.org council serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Role != "" && !slices.Contains(server.Roles, o.Role) {
				return fmt.Errorf("--role %q: must be one of %s", o.Role, strings.Join(server.Roles, ", "))
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return serveRun(cmd.Context(), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.ConfigPath, "config", "", "server config `FILE` (YAML; keys are the environment variables' names)")
	fl.StringVar(&o.Addr, "addr", "", "address to listen on (default :8080; COUNCIL_ADDR)")
	fl.StringVar(&o.DatabaseURL, "database-url", "", "store and queue: sqlite://PATH or postgres://... (default sqlite://./council.db; COUNCIL_DATABASE_URL)")
	fl.StringVar(&o.Role, "role", "", "what this process does: all (default), web (webhooks and API) or worker (reviews); COUNCIL_ROLE")
	return cmd
}

func serveRun(ctx context.Context, f *Factory, o *ServeOptions) error {
	cfg, err := server.LoadConfig(o.ConfigPath, f.Getenv)
	if err != nil {
		return err
	}
	if o.Addr != "" {
		cfg.Addr = o.Addr
	}
	if o.DatabaseURL != "" {
		cfg.DatabaseURL = o.DatabaseURL
	}
	if o.Role != "" {
		cfg.Role = o.Role
	}
	if err := cfg.Finish(); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(f.Err, &slog.HandlerOptions{Level: logLevel(cfg.LogLevel)}))
	err = server.Run(ctx, server.Options{
		Config: cfg, Log: log, Version: Version,
		NewClient: func(name string) (provider.Client, error) {
			s := ProviderSettings{APIKey: cfg.AnthropicAPIKey, BaseURL: cfg.AnthropicBaseURL, KeyEnv: "ANTHROPIC_API_KEY"}
			if name == "openai" {
				s = ProviderSettings{APIKey: cfg.OpenAIAPIKey, BaseURL: cfg.OpenAIBaseURL, KeyEnv: "OPENAI_API_KEY", API: cfg.OpenAIAPI}
			}
			if s.APIKey == "" && s.BaseURL == "" {
				return nil, fmt.Errorf("the repository's config asks for %s, and the server has no %s: set it, or COUNCIL_PROVIDER to the provider it has", name, s.KeyEnv)
			}
			return f.NewClient(name, s)
		},
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func logLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

// RunsOptions are the flags of `council runs list`.
type RunsOptions struct {
	DatabaseURL string
	Repo        string
	Number      int
	Status      string
	Limit       int
	Format      string
}

// NewCmdRuns declares `council runs`.
func NewCmdRuns(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "What council serve reviewed: runs, their status, findings and cost",
	}
	o := &RunsOptions{}
	list := &cobra.Command{
		Use:   "list",
		Short: "List recent review runs of the server, newest first",
		Example: `  council runs list --repo owner/name
  council runs list --database-url postgres://council@db/council --status failed --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Format != "table" && o.Format != "json" {
				return fmt.Errorf("--format %q: must be table or json", o.Format)
			}
			if o.Limit < 1 {
				return fmt.Errorf("--limit %d: must be at least 1", o.Limit)
			}
			return runsList(cmd.Context(), f, o)
		},
	}
	fl := list.Flags()
	fl.StringVar(&o.DatabaseURL, "database-url", "", "the server's database (default COUNCIL_DATABASE_URL, else sqlite://./council.db)")
	fl.StringVar(&o.Repo, "repo", "", "only this repository, `owner/name`")
	fl.IntVar(&o.Number, "pr", 0, "only this pull request `NUMBER` (with --repo)")
	fl.StringVar(&o.Status, "status", "", "only runs with this status: running|succeeded|skipped|failed")
	fl.IntVar(&o.Limit, "limit", 20, "at most this many runs")
	fl.StringVar(&o.Format, "format", "table", "table|json")
	cmd.AddCommand(list)
	return cmd
}

func runsList(ctx context.Context, f *Factory, o *RunsOptions) error {
	return withStore(ctx, f, o.DatabaseURL, func(db *store.DB) error {
		runs, err := db.Runs(ctx, store.RunFilter{Repo: o.Repo, Number: o.Number, Status: o.Status, Limit: o.Limit})
		if err != nil {
			return err
		}
		if o.Format == "json" {
			enc := json.NewEncoder(f.Out)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"runs": server.RunsJSON(runs)})
		}
		if len(runs) == 0 {
			fmt.Fprintln(f.Err, "council: no runs match")
			return nil
		}
		tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "RUN\tPR\tHEAD\tSTATUS\tFINDINGS\tPOSTED\tCOST\tSTARTED\tTOOK\tREASON")
		for _, r := range runs {
			took := "-"
			if !r.Finished.IsZero() {
				took = r.Finished.Sub(r.Started).Round(time.Second).String()
			}
			fmt.Fprintf(tw, "%d\t%s#%d\t%s\t%s\t%d\t%d\t$%.4f\t%s\t%s\t%s\n", r.ID, r.Repo, r.Number, orDash(short(r.Head)), r.Status,
				r.Findings, r.Posted, r.CostUSD, r.Started.Local().Format("2006-01-02 15:04:05"), took, r.Error)
		}
		return tw.Flush()
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
