package doctor

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/provider"
)

// Setup is what a review in the repository would run with.
type Setup struct {
	Config config.Config
	// Models are the models the run would call: every reviewer's, then the validator's.
	Models []string
}

// Load reads the config and reviewer documents as `council review` does, from the base
// revision of the repository at o.Repo (or --config), and says how that went: a line for the
// repository and one for the config and reviewers. When they cannot be read, the setup is the
// defaults with o's overrides, so that the provider can still be checked.
func Load(ctx context.Context, o engine.Options) (Setup, []Line) {
	var lines []Line
	sess, err := engine.Open(ctx, o)
	if err != nil && o.Base == "" {
		// A repository without a default branch to compare with: read the config at HEAD.
		first := err
		o.Base = "HEAD"
		if sess, err = engine.Open(ctx, o); err == nil {
			lines = append(lines, Line{Warn, "repository", fmt.Sprintf("%v; the config below is read at HEAD instead", first)})
		} else {
			err = first
		}
	}
	if err != nil {
		lines = append(lines, Line{Fail, "repository and config", fmt.Sprintf("%v (council doctor reads them where council review would: run it in the repository, or give --dir or --config)", err)})
		cfg := config.Default()
		if o.ConfigPath != "" {
			data, rerr := os.ReadFile(o.ConfigPath)
			if rerr == nil {
				cfg, rerr = config.Parse(o.ConfigPath, data)
			}
			if rerr != nil {
				lines = append(lines, Line{Fail, "config", rerr.Error()})
				cfg = config.Default()
			}
		}
		cfg, _ = engine.Settle(cfg, o)
		return Setup{Config: cfg, Models: []string{cfg.Model}}, lines
	}
	defer sess.Close()
	if len(lines) == 0 { // else the warning about HEAD is the repository's line
		lines = append(lines, Line{OK, "repository", fmt.Sprintf("%s, git works", sess.Change.Repo)})
	}
	cfg := sess.Config
	src := sess.ConfigSource
	if src == "defaults" {
		src = "defaults (no " + engine.ConfigFile + " at the base revision)"
	}
	names := make([]string, len(sess.Reviewers))
	for i, r := range sess.Reviewers {
		names[i] = r.Name
	}
	lines = append(lines, Line{OK, "config", fmt.Sprintf("%s: provider %s, model %s, %d reviewers (%s)", src, cfg.Provider, cfg.Model, len(names), strings.Join(names, ", "))})
	models := sess.Models()
	if !slices.Contains(models, cfg.Model) && !o.NoValidate && cfg.Validate.Enabled {
		models = append(models, cfg.Model)
	}
	return Setup{Config: cfg, Models: models}, lines
}

// Offline sends every sample through c, a client whose transport holds each body the SDK
// writes to the service's rules without a network, and says which kinds of request would be
// refused. api names the rules ("the Messages API's").
func Offline(ctx context.Context, c provider.Client, model string, samples []Sample, api string) []Line {
	check := "requests for " + model
	failed := map[string]bool{}
	// One line per distinct refusal, naming the kinds it refused: a model that refuses every
	// request with tools says so once.
	var reasons []string
	kinds := map[string][]string{}
	for _, s := range samples {
		if failed[s.Kind] {
			continue
		}
		if _, err := c.Complete(ctx, s.Request); err != nil {
			failed[s.Kind] = true
			why := err.Error()
			if kinds[why] == nil {
				reasons = append(reasons, why)
			}
			kinds[why] = append(kinds[why], s.Kind)
		}
	}
	if len(reasons) == 0 {
		return []Line{{OK, check, fmt.Sprintf("all %d requests of the %d kinds council sends pass %s rules", len(samples), len(Kinds()), api)}}
	}
	lines := make([]Line, 0, len(reasons))
	for _, why := range reasons {
		ks := kinds[why]
		what := ks[0]
		if len(ks) > 1 {
			what = fmt.Sprintf("%d kinds (%s)", len(ks), strings.Join(ks, ", "))
		}
		lines = append(lines, Line{Fail, check, fmt.Sprintf("%s refused: %s", what, why)})
	}
	return lines
}
