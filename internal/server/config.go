package server

import (
	"fmt"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/config"
)

// Config is the server's configuration. Every setting has one name, used as the key in the
// --config file and as the environment variable (a contract: docs/server.md lists them); the
// environment wins over the file, and a flag over both.
type Config struct {
	AppID          int64  `yaml:"GITHUB_APP_ID"`
	PrivateKey     string `yaml:"GITHUB_APP_PRIVATE_KEY"`      // PEM, or PEM base64-encoded
	PrivateKeyFile string `yaml:"GITHUB_APP_PRIVATE_KEY_FILE"` // read when PrivateKey is empty
	WebhookSecret  string `yaml:"GITHUB_WEBHOOK_SECRET"`
	APIURL         string `yaml:"GITHUB_API_URL"` // GitHub Enterprise Server: https://HOST/api/v3

	// The model provider, as `council review` reads it.
	AnthropicAPIKey  string `yaml:"ANTHROPIC_API_KEY"`
	AnthropicBaseURL string `yaml:"ANTHROPIC_BASE_URL"`
	OpenAIAPIKey     string `yaml:"OPENAI_API_KEY"`
	OpenAIBaseURL    string `yaml:"OPENAI_BASE_URL"`
	OpenAIAPI        string `yaml:"COUNCIL_OPENAI_API"` // responses or chat; else by the base URL
	Provider         string `yaml:"COUNCIL_PROVIDER"`   // anthropic or openai; else whichever key is set
	Model            string `yaml:"COUNCIL_MODEL"`      // else the repository's .council.yaml, else the default

	Addr        string `yaml:"COUNCIL_ADDR"`         // --addr
	DatabaseURL string `yaml:"COUNCIL_DATABASE_URL"` // --database-url
	Role        string `yaml:"COUNCIL_ROLE"`         // --role: all, web or worker
	// DataDir holds the clones of reviewed repositories.
	DataDir string `yaml:"COUNCIL_DATA_DIR"`

	Workers                 int     `yaml:"COUNCIL_WORKERS"`                  // review jobs one process runs at once
	InstallationConcurrency int     `yaml:"COUNCIL_INSTALLATION_CONCURRENCY"` // of them, at most this many for one installation
	MaxModelCalls           int     `yaml:"COUNCIL_MAX_MODEL_CALLS"`          // model requests in flight in one process, all jobs together
	MonthlyBudgetUSD        float64 `yaml:"COUNCIL_MONTHLY_BUDGET_USD"`       // per installation, unless its settings say otherwise; 0: none
	ReviewDrafts            bool    `yaml:"COUNCIL_REVIEW_DRAFTS"`            // review draft pull requests too
	CheckRun                bool    `yaml:"COUNCIL_CHECK_RUN"`                // also report each review as a check run
	Layout                  string  `yaml:"COUNCIL_LAYOUT"`                   // per-reviewer or consolidated
	ShutdownTimeout         string  `yaml:"COUNCIL_SHUTDOWN_TIMEOUT"`         // how long a stop waits for running jobs
	JobTimeout              string  `yaml:"COUNCIL_JOB_TIMEOUT"`              // one review's limit
	RescueAfter             string  `yaml:"COUNCIL_RESCUE_AFTER"`             // a job running this long on a dead worker runs again
	HeartbeatInterval       string  `yaml:"COUNCIL_HEARTBEAT_INTERVAL"`       // how often a worker records that it is alive
	HeartbeatTimeout        string  `yaml:"COUNCIL_HEARTBEAT_TIMEOUT"`        // a worker silent this long is dead: its jobs run again
	MaxAttempts             int     `yaml:"COUNCIL_MAX_ATTEMPTS"`             // tries of one review job
	WebhookMaxBody          int64   `yaml:"COUNCIL_WEBHOOK_MAX_BODY"`         // bytes
	LogLevel                string  `yaml:"COUNCIL_LOG_LEVEL"`                // debug, info, warn, error
	FetchPollInterval       string  `yaml:"COUNCIL_POLL_INTERVAL"`            // how often a worker looks for jobs without a notification
	InstallationClientTTL   string  `yaml:"COUNCIL_INSTALLATION_CLIENT_TTL"`  // how long one installation's client (and token cache) is kept
	ReplayDir               string  `yaml:"COUNCIL_REPLAY"`                   // answer model requests from recordings (tests, demos)
	// DownloadModules lets read_dependency download a Go module version the worker's module
	// cache lacks; off, the reviewers read only what the cache holds.
	DownloadModules bool `yaml:"COUNCIL_DOWNLOAD_MODULES"`

	durations map[string]time.Duration
}

// Defaults of the settings that have one.
const (
	DefaultAddr        = ":8080"
	DefaultDatabaseURL = "sqlite://./council.db"
)

// Roles a process can take.
var Roles = []string{"all", "web", "worker"}

// LoadConfig reads the file at path (none when ""), then the environment over it.
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	c := Config{}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("read the server config: %w", err)
		}
		doc, err := config.ParseYAML(path, data)
		if err != nil {
			return c, err
		}
		if err := doc.Decode(&c); err != nil {
			return c, err
		}
	}
	if err := c.fromEnv(getenv); err != nil {
		return c, err
	}
	return c, nil
}

// fromEnv sets every field whose variable is set, parsing it as the field's type.
func (c *Config) fromEnv(getenv func(string) string) error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("yaml")
		if name == "" || name == "-" {
			continue
		}
		s, ok := strings.TrimSpace(getenv(name)), getenv(name) != ""
		if !ok {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(getenv(name)) // a key keeps its exact bytes
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("%s %q is not a whole number", name, s)
			}
			f.SetInt(n)
		case reflect.Float64:
			n, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("%s %q is not a number", name, s)
			}
			f.SetFloat(n)
		case reflect.Bool:
			b, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("%s %q is not true or false", name, s)
			}
			f.SetBool(b)
		}
	}
	return nil
}

// Finish fills in defaults and checks the config for role.
func (c *Config) Finish() error {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = DefaultDatabaseURL
	}
	if c.Role == "" {
		c.Role = "all"
	}
	if !contains(Roles, c.Role) {
		return fmt.Errorf("COUNCIL_ROLE (--role) %q: must be one of %s", c.Role, strings.Join(Roles, ", "))
	}
	if c.DataDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("find a directory for clones: set COUNCIL_DATA_DIR: %w", err)
		}
		c.DataDir = dir + "/council/server"
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.InstallationConcurrency == 0 {
		c.InstallationConcurrency = 2
	}
	if c.MaxModelCalls == 0 {
		c.MaxModelCalls = 16
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 5
	}
	if c.Layout == "" {
		c.Layout = "per-reviewer"
	}
	if c.Layout != "per-reviewer" && c.Layout != "consolidated" {
		return fmt.Errorf("COUNCIL_LAYOUT %q: must be per-reviewer or consolidated", c.Layout)
	}
	if c.OpenAIAPI != "" && !slices.Contains(config.OpenAIAPIs, c.OpenAIAPI) {
		return fmt.Errorf("COUNCIL_OPENAI_API %q: must be one of %s, or unset to choose by the base URL", c.OpenAIAPI, strings.Join(config.OpenAIAPIs, ", "))
	}
	for name, n := range map[string]int{"COUNCIL_WORKERS": c.Workers, "COUNCIL_INSTALLATION_CONCURRENCY": c.InstallationConcurrency,
		"COUNCIL_MAX_MODEL_CALLS": c.MaxModelCalls, "COUNCIL_MAX_ATTEMPTS": c.MaxAttempts} {
		if n < 1 {
			return fmt.Errorf("%s %d: must be at least 1", name, n)
		}
	}
	if c.MonthlyBudgetUSD < 0 {
		return fmt.Errorf("COUNCIL_MONTHLY_BUDGET_USD %v: must be 0 (no budget) or more", c.MonthlyBudgetUSD)
	}
	c.durations = map[string]time.Duration{}
	for name, d := range map[string]struct {
		val string
		def time.Duration
	}{
		"COUNCIL_SHUTDOWN_TIMEOUT":        {c.ShutdownTimeout, 5 * time.Minute},
		"COUNCIL_JOB_TIMEOUT":             {c.JobTimeout, 30 * time.Minute},
		"COUNCIL_RESCUE_AFTER":            {c.RescueAfter, 0},
		"COUNCIL_HEARTBEAT_INTERVAL":      {c.HeartbeatInterval, 10 * time.Second},
		"COUNCIL_HEARTBEAT_TIMEOUT":       {c.HeartbeatTimeout, time.Minute},
		"COUNCIL_POLL_INTERVAL":           {c.FetchPollInterval, time.Second},
		"COUNCIL_INSTALLATION_CLIENT_TTL": {c.InstallationClientTTL, 30 * time.Minute},
	} {
		v := d.def
		if d.val != "" {
			p, err := time.ParseDuration(d.val)
			if err != nil || p < 0 {
				return fmt.Errorf("%s %q: not a duration such as 90s or 5m", name, d.val)
			}
			v = p
		}
		c.durations[name] = v
	}
	if c.durations["COUNCIL_RESCUE_AFTER"] == 0 {
		c.durations["COUNCIL_RESCUE_AFTER"] = c.durations["COUNCIL_JOB_TIMEOUT"] + 5*time.Minute
	}
	if c.durations["COUNCIL_RESCUE_AFTER"] <= c.durations["COUNCIL_JOB_TIMEOUT"] {
		return fmt.Errorf("COUNCIL_RESCUE_AFTER must be longer than COUNCIL_JOB_TIMEOUT: a job still running would run twice")
	}
	// A worker stops by itself two intervals before others may take it for dead (pulse.stopBy):
	// with four, it stops only after two heartbeats in a row could not be recorded.
	if beat := c.durations["COUNCIL_HEARTBEAT_INTERVAL"]; beat <= 0 || c.durations["COUNCIL_HEARTBEAT_TIMEOUT"] < 4*beat {
		return fmt.Errorf("COUNCIL_HEARTBEAT_TIMEOUT must be at least four COUNCIL_HEARTBEAT_INTERVALs, and the interval above 0: " +
			"a live worker that misses a heartbeat must be neither taken for dead nor stop")
	}
	if c.Role == "web" {
		return c.needWebhook()
	}
	if err := c.needApp(); err != nil {
		return err
	}
	if c.Role == "all" {
		if err := c.needWebhook(); err != nil {
			return err
		}
	}
	if c.ReplayDir == "" && c.AnthropicAPIKey == "" && c.AnthropicBaseURL == "" && c.OpenAIAPIKey == "" && c.OpenAIBaseURL == "" {
		return fmt.Errorf("no model provider: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL), or OPENAI_API_KEY (or OPENAI_BASE_URL)")
	}
	if c.Provider != "" && c.Provider != "anthropic" && c.Provider != "openai" {
		return fmt.Errorf("COUNCIL_PROVIDER %q: must be anthropic or openai", c.Provider)
	}
	return nil
}

func (c *Config) needWebhook() error {
	if c.WebhookSecret == "" {
		return fmt.Errorf("GITHUB_WEBHOOK_SECRET is not set: the server refuses unsigned webhooks; set it to the App's webhook secret")
	}
	return nil
}

func (c *Config) needApp() error {
	if c.AppID <= 0 {
		return fmt.Errorf("GITHUB_APP_ID is not set: a worker acts as the GitHub App (docs/server.md creates one)")
	}
	if c.PrivateKey == "" && c.PrivateKeyFile == "" {
		return fmt.Errorf("the GitHub App's key is not set: set GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY)")
	}
	if c.PrivateKey == "" {
		data, err := os.ReadFile(c.PrivateKeyFile)
		if err != nil {
			return fmt.Errorf("read GITHUB_APP_PRIVATE_KEY_FILE: %w", err)
		}
		c.PrivateKey = string(data)
	}
	if c.APIURL != "" {
		if u, err := url.Parse(c.APIURL); err != nil || u.Host == "" {
			return fmt.Errorf("GITHUB_API_URL %q is not a URL such as https://ghe.example.com/api/v3", c.APIURL)
		}
	}
	return nil
}

// Duration is a duration setting after Finish.
func (c *Config) Duration(name string) time.Duration { return c.durations[name] }

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
