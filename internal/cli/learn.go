package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/history"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
)

// LearnOptions are the flags of `council learn`.
type LearnOptions struct {
	Repo            string // owner/name: harvest from GitHub
	FromFile        string // a signals file instead of GitHub
	Since, Until    string // with Repo or Git: pull requests created, merges committed, in [Since, Until)
	Out             string // the learnings file
	SignalsOut      string // where the signals are saved (JSON lines); "" not saved
	CacheDir        string // with Repo: the harvest cache; "" the user cache directory
	MaxAge          time.Duration
	Refresh         bool
	Clone           string // with Repo: the clone commits are read from; "" a cached clone
	CouncilLogin    string // with Repo: council's login; "" the token's own
	DryRun          bool   // harvest and print the statistics; no model, no --out
	Provider, Model string
	RecordDir       string
	ReplayDir       string

	IgnoreUsers []string // with Repo or Git: logins that are bots without saying so
	// A harvest of a local clone's merge commits, as bench import --git walks them.
	Git    string   // the clone
	Name   string   // with Git: owner/repo the signals name; "" Repo, else the origin's
	Branch string   // with Git: the branch whose merges to walk; "" the default branch
	Paths  []string // with Git: asks only from these paths

	since, until time.Time
}

// NewCmdLearn declares `council learn` and `council learn show`.
func NewCmdLearn(f *Factory) *cobra.Command {
	cmd := NewCmdLearnBuild(f, nil)
	cmd.AddCommand(NewCmdLearnShow(f, nil))
	return cmd
}

// NewCmdLearnBuild declares `council learn` itself. runF replaces the behaviour in
// flag-parsing tests.
func NewCmdLearnBuild(f *Factory, runF func(context.Context, *LearnOptions) error) *cobra.Command {
	opts := &LearnOptions{}
	cmd := &cobra.Command{
		Use:   "learn (--repo OWNER/NAME | --git DIR | --from-file SIGNALS) --out PATH",
		Short: "Learn from what happened to council's past review comments and what reviewers asked for",
		Long: `Read what happened to council's own inline comments on a repository's pull requests (signals:
replies and whether their authors could push, reactions, resolved threads and by whom, whether the
commented lines changed before the merge) and what the repository's human reviewers asked for
(asks), print how often council's comments were accepted and where the asks are, and ask the model
for learnings: short statements of what this repository's maintainers reject, act on or ask for,
each with its evidence, written to PATH (.council/learnings.yaml) for the team to read, edit and
review.

With --repo, the pull requests created on or after --since and before --until are read from GitHub;
council's comments are those of --council-login (default: the login of GITHUB_TOKEN) that carry
council's marker. Every other thread-starting inline comment by a person (not the pull request's
author, not a bot: user type Bot, a [bot] login, or an --ignore-user login) is an ask, with the
same replies, reactions, thread state and changed-lines check. Each pull request is cached (--cache
DIR, default the user cache directory's council/learn): a closed or merged one is read once, an
open one again after --max-age, and so is the listing, so that a second run within --max-age sends
no request. An interrupted run, a rate limit included, resumes where it stopped. Whether the lines
changed is decided as council bench import does, from --clone DIR or a cached clone. GitHub
credentials are read as for council bench import: GITHUB_TOKEN or GH_TOKEN (or a GitHub App's,
with --council-login), GITHUB_API_URL for GitHub Enterprise Server.

With --git DIR, the asks come from a local clone alone, offline, as council bench import --git reads
them (the same walk, rules and flags): on each branch merged into --branch (default: origin/HEAD,
else HEAD) with a merge commit before --until and on or after --since, the commits that answer
review ("Address review comments", suggestions applied on GitHub, "fixup! ...") and the hunks they
changed, located at the commit the reviewers saw, each one ask, kept only under --paths. A date
alone is its first instant (UTC), for --repo and --git alike: --until 2026-07-01 reads merges made
before July 1, the bound council bench run --learnings compares with a dataset's first pull
request. --name names the repository (default: --repo, else the clone's origin). --git and --repo
may be given together: both harvests make one list of signals.

With --from-file, the signals come from a JSON-lines file that --signals-out wrote.

Exit status: 0 when the learnings were written (or, with --dry-run, the statistics printed); 2 for
a usage error (flags, files, credentials) or a GitHub failure; 3 when the model failed or gave an
answer that cannot be used (the signals are kept in --signals-out).`,
		Example: `  # learn from the pull requests of September, keeping the signals
  council learn --repo acme/api --since 2026-09-01 --until 2026-10-01 --out .council/learnings.yaml --signals-out signals.jsonl

  # learn what acme/api's reviewers ask for from its clone's history, offline, up to July
  council learn --git ~/src/api --name acme/api --until 2026-07-01 --out .council/learnings.yaml

  # what a clone's history holds, no model: merges, asks per directory, what was dropped
  council learn --git ~/src/api --since 2026-01-01 --dry-run --signals-out asks.jsonl

  # look at the acceptance rates only, no model
  council learn --repo acme/api --since 2026-09-01 --dry-run

  # distil again from saved signals, without GitHub
  council learn --from-file signals.jsonl --out .council/learnings.yaml

  # read a learnings file
  council learn show .council/learnings.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return learnRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", "", "harvest council's comments and reviewers' inline comments on the pull requests of `OWNER/NAME` from GitHub")
	fl.StringVar(&opts.FromFile, "from-file", "", "read the signals from the JSON-lines `FILE` (--signals-out writes one)")
	fl.StringVar(&opts.Since, "since", "", "only pull requests created (--repo), merges committed (--git), on or after `DATE` (2026-09-01 or RFC 3339)")
	fl.StringVar(&opts.Until, "until", "", "only pull requests created (--repo), merges committed (--git), before `DATE`")
	fl.StringVar(&opts.Out, "out", "", "write the learnings to `PATH`, a .yaml file (required without --dry-run)")
	fl.StringVar(&opts.SignalsOut, "signals-out", "", "also save the signals to the JSON-lines `FILE`")
	fl.StringVar(&opts.CacheDir, "cache", "", "with --repo: cache each pull request's signals under `DIR` (default: the user cache directory)")
	fl.DurationVar(&opts.MaxAge, "max-age", defaultMaxAge, "with --repo: use cached listings and open pull requests younger than `DURATION`")
	fl.BoolVar(&opts.Refresh, "refresh", false, "with --repo: list the pull requests and read the open ones from GitHub whatever the cache's age")
	fl.StringVar(&opts.Clone, "clone", "", "with --repo: local clone `DIR` to read and fetch commits into (default: a cached clone)")
	fl.StringVar(&opts.CouncilLogin, "council-login", "", "with --repo: the `LOGIN` council posts as, such as council[bot] (default: the token's own)")
	fl.StringSliceVar(&opts.IgnoreUsers, "ignore-user", nil, "with --repo or --git: `LOGIN`s that are bots without saying so: not reviewers (comma-separated)")
	fl.StringVar(&opts.Git, "git", "", "harvest what reviewers asked for from the merge commits of the local clone `DIR`: no GitHub, no network")
	fl.StringVar(&opts.Name, "name", "", "with --git: the repository's `OWNER/REPO`, for the signals and their links (default: --repo, else the clone's origin)")
	fl.StringVar(&opts.Branch, "branch", "", "with --git: the `BRANCH` whose merges to walk (default: origin/HEAD, else HEAD)")
	fl.StringArrayVar(&opts.Paths, "paths", nil, "with --git: asks only from files matching `GLOB` ('**' spans directories; '!GLOB' excludes; repeatable)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "harvest and print the statistics; ask no model and write no learnings")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: claude-sonnet-5-5 or gpt-6.2-sol)")
	fl.StringVar(&opts.RecordDir, "record", "", "save every model exchange under `DIR`")
	fl.StringVar(&opts.ReplayDir, "replay", "", "answer every model request from recordings in `DIR`, offline")
	return cmd
}

func (o *LearnOptions) validate() error {
	switch {
	case o.Repo == "" && o.Git == "" && o.FromFile == "":
		return errors.New("nothing to learn from: give --repo OWNER/NAME (with --since), --git DIR, or --from-file SIGNALS")
	case o.Repo != "" && o.FromFile != "":
		return errors.New("--repo and --from-file cannot be used together: give one source of signals")
	case o.Git != "" && o.FromFile != "":
		return errors.New("--git and --from-file cannot be used together: --from-file reads signals already harvested")
	case o.Repo == "" && o.Git == "" && (o.Since != "" || o.Until != "" || len(o.IgnoreUsers) > 0):
		return errors.New("--since, --until and --ignore-user select what a harvest reads: use them with --repo or --git")
	case o.Repo == "" && (o.CacheDir != "" || o.Refresh || o.Clone != "" || o.CouncilLogin != ""):
		return errors.New("--cache, --refresh, --clone and --council-login select and keep a GitHub harvest: use them with --repo")
	case o.Git == "" && (o.Name != "" || o.Branch != "" || len(o.Paths) > 0):
		return errors.New("--name, --branch and --paths select what a harvest of a clone reads: use them with --git DIR")
	case o.MaxAge < 0:
		return fmt.Errorf("--max-age %s: give a duration of 0 (always read GitHub) or more, such as 24h", o.MaxAge)
	case o.Out == "" && !o.DryRun:
		return errors.New("--out is required: where to write the learnings (.council/learnings.yaml), or give --dry-run")
	case o.Out != "" && !slices.Contains([]string{".yaml", ".yml"}, strings.ToLower(filepath.Ext(o.Out))):
		return fmt.Errorf("--out %q: a learnings file is a .yaml or .yml file", o.Out)
	case o.Provider != "" && !slices.Contains(providers, o.Provider):
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	case o.RecordDir != "" && o.ReplayDir != "":
		return errors.New("--record and --replay cannot be used together")
	}
	if o.Repo != "" {
		if _, _, err := splitRepo(o.Repo); err != nil {
			return fmt.Errorf("--repo: %w", err)
		}
	}
	if err := checkName(o.Name); err != nil {
		return err
	}
	if err := checkPathGlobs(o.Paths); err != nil {
		return err
	}
	var err error
	if o.Since != "" {
		if o.since, err = parseSince(o.Since); err != nil {
			return err
		}
	}
	if o.Until != "" {
		if o.until, err = parseSince(o.Until); err != nil {
			return errors.New(strings.Replace(err.Error(), "--since", "--until", 1))
		}
		if !o.since.IsZero() && !o.until.After(o.since) {
			return fmt.Errorf("--until %s is not after --since %s", o.Until, o.Since)
		}
	}
	return nil
}

func learnRun(ctx context.Context, f *Factory, o *LearnOptions) error {
	start := time.Now()
	cfg, _ := engine.Settle(config.Default(), engine.Options{Provider: o.Provider, DefaultProvider: envProvider(f.Getenv), Model: o.Model})
	s := settings(f.Getenv, cfg.Provider)
	if !o.DryRun && o.ReplayDir == "" && s.APIKey == "" && s.BaseURL == "" {
		return errors.New(keyHelp(cfg.Provider))
	}
	var (
		signals []learn.Signal
		prs     int
		repos   []string
		err     error
	)
	if o.Repo != "" || o.Git != "" {
		if o.Repo != "" {
			if signals, prs, err = learnHarvest(ctx, f, o, cfg); err != nil {
				return err
			}
			repos = append(repos, o.Repo)
		}
		if o.Git != "" {
			asks, merges, name, err := learnGit(ctx, f, o)
			if err != nil {
				return err
			}
			signals, prs = append(signals, asks...), prs+merges
			repos = append(repos, name)
		}
	} else {
		fmt.Fprintf(f.Err, "council: reading the signals in %s\n", o.FromFile)
		file, err := os.Open(o.FromFile)
		if err != nil {
			return fmt.Errorf("read signals: %w", err)
		}
		signals, err = learn.ReadSignals(file)
		file.Close()
		if err != nil {
			return fmt.Errorf("read signals from %s: %w", o.FromFile, err)
		}
		seen := map[string]bool{}
		for _, sg := range signals {
			seen[fmt.Sprintf("%s#%d", sg.Repo, sg.PR)] = true
		}
		prs = len(seen)
	}
	stats := learn.ComputeStats(signals)
	writeLearnStats(f.Err, stats)

	// The signals are saved before any model call, so that a failed call loses nothing.
	if o.SignalsOut != "" {
		var buf bytes.Buffer
		if err := learn.WriteSignals(&buf, signals); err != nil {
			return err
		}
		if err := writeFile(o.SignalsOut, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(f.Err, "council: saved %s to %s\n", plural(len(signals), "signal"), o.SignalsOut)
	}
	if o.DryRun {
		return nil
	}
	if len(signals) == 0 {
		return errors.New("no signals to learn from: no council comment with its marker, and no reviewer's ask (check --since, --until, --council-login, --paths and --ignore-user)")
	}

	client, err := modelClient(f, cfg.Provider, s, o.ReplayDir, o.RecordDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "council: asking %s (%s) for learnings from %s\n", cfg.Provider, cfg.Model, plural(len(signals), "signal"))
	file, usage, err := learn.Distill(ctx, client, signals, stats, learn.DistillOptions{
		Model:     cfg.Model,
		OnProblem: func(msg string) { fmt.Fprintf(f.Err, "council: %s\n", msg) },
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		kept := "they are not saved: give --signals-out FILE to keep them"
		if o.SignalsOut != "" {
			kept = "the signals are in " + o.SignalsOut + ": council learn --from-file " + o.SignalsOut + " tries again without GitHub"
		} else if o.FromFile != "" {
			kept = "the signals stay in " + o.FromFile
		}
		return &exitError{code: ExitIncomplete, msg: fmt.Sprintf("%v (%s)", err, kept)}
	}
	if cost, ok := provider.DefaultPrices().Cost(cfg.Model, usage); ok {
		usage.CostUSD = cost
	}
	file.Source = learnSource(o, repos, signals, prs, cfg.Model)
	data, err := file.Marshal()
	if err != nil {
		return err
	}
	if _, err := learn.Parse(o.Out, data); err != nil {
		return fmt.Errorf("the learnings do not load (a bug): %w", err)
	}
	if err := writeFile(o.Out, data); err != nil {
		return err
	}
	var sup int
	for _, l := range file.Learnings {
		if l.Kind == learn.Suppress {
			sup++
		}
	}
	fmt.Fprintf(f.Err, "council: wrote %s to %s (%d suppress, %d emphasise), from %s on %s\n",
		plural(len(file.Learnings), "learning"), o.Out, sup, len(file.Learnings)-sup, plural(len(signals), "signal"), plural(prs, "pull request"))
	fmt.Fprintf(f.Err, "council: %s\n", markdown.Ledger(report.Usage{Usage: usage, WallSeconds: time.Since(start).Seconds()}))
	return nil
}

// learnSource is what the learnings were built from: repos are the repositories harvested
// (none for --from-file), prs the pull requests read and the merges that gave asks.
func learnSource(o *LearnOptions, repos []string, signals []learn.Signal, prs int, model string) *learn.Source {
	src := &learn.Source{Since: o.since, Until: o.until, PRs: prs, Signals: len(signals), Model: model, Built: time.Now().UTC().Truncate(time.Second)}
	for _, r := range repos {
		if !slices.Contains(src.Repos, r) {
			src.Repos = append(src.Repos, r)
		}
	}
	for _, s := range signals {
		if s.Repo != "" && !slices.Contains(src.Repos, s.Repo) {
			src.Repos = append(src.Repos, s.Repo)
		}
	}
	if src.Repos == nil {
		src.Repos = []string{}
	}
	return src
}

// learnHarvest says what it reads and where, then harvests the signals of o.Repo.
func learnHarvest(ctx context.Context, f *Factory, o *LearnOptions, cfg config.Config) ([]learn.Signal, int, error) {
	owner, name, _ := splitRepo(o.Repo) // checked by validate
	client, err := githubClient(ctx, f.Getenv, owner, name)
	if err != nil {
		return nil, 0, err
	}
	login := o.CouncilLogin
	if login == "" {
		if login, err = client.Login(ctx); err != nil {
			return nil, 0, fmt.Errorf("find council's login (give --council-login LOGIN, such as your app's name[bot]): %w", err)
		}
	}
	cacheDir := o.CacheDir
	if cacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, 0, fmt.Errorf("find the user cache directory (give --cache DIR): %w", err)
		}
		cacheDir = filepath.Join(dir, "council", "learn")
	}
	window := "every pull request"
	switch {
	case o.Since != "" && o.Until != "":
		window = "created from " + o.Since + " to before " + o.Until
	case o.Since != "":
		window = "created since " + o.Since
	case o.Until != "":
		window = "created before " + o.Until
	}
	then := fmt.Sprintf("sent to %s (%s) to distill learnings, and written to %s", cfg.Provider, cfg.Model, o.Out)
	if o.DryRun {
		then = "counted (--dry-run: no model)"
	}
	fmt.Fprintf(f.Err, "council: reading what happened to the comments of %s on the pull requests of %s (%s) from GitHub (%s); they are cached in %s, %s\n",
		login, o.Repo, window, apiHost(client.BaseURL()), cacheDir, then)

	clone := &lazyClone{open: func(ctx context.Context) (*cloneRepo, error) {
		c, _, err := openRepoClone(ctx, f, client, owner, name, o.Clone)
		return c, err
	}}
	defer clone.close()
	changes := map[string]*bench.Changes{} // by merged head
	var read, cached, prs int
	before := client.Requests()
	signals, err := learn.Harvest(ctx, client, learn.HarvestOptions{
		Repo: owner + "/" + name, Since: o.since, Until: o.until,
		Trusted: func(l string) bool { return strings.EqualFold(l, login) },
		Ignore:  o.IgnoreUsers,
		Addressed: func(ctx context.Context, pr learn.PRInfo, c learn.Comment) (bool, error) {
			if pr.HeadSHA == "" {
				return false, errors.New("GitHub gave no merged head")
			}
			if c.CommitID == "" {
				return false, fmt.Errorf("comment %d: GitHub gave no commit", c.ID)
			}
			ch := changes[pr.HeadSHA]
			if ch == nil {
				ch = &bench.Changes{Git: clone, Merge: pr.HeadSHA}
				changes[pr.HeadSHA] = ch
			}
			from, to := bench.CommentRange(c.Line, c.StartLine, c.Side, c.StartSide)
			return ch.Addressed(ctx, c.CommitID, c.Path, c.Side, from, to)
		},
		CacheDir: filepath.Join(cacheDir, strings.ToLower(login)), MaxAge: o.MaxAge, Refresh: o.Refresh,
		Log: f.Err,
		OnPR: func(_, _ int, c bool) {
			prs++
			if c {
				cached++
			} else {
				read++
			}
		},
	})
	if err != nil {
		if github.IsNotFound(err) {
			return nil, 0, fmt.Errorf("no repository %s, or the token cannot see it: check the name, and that GITHUB_TOKEN (or GH_TOKEN) can read it: %w", o.Repo, err)
		}
		return nil, 0, err
	}
	asks := 0
	for _, s := range signals {
		if s.IsAsk() {
			asks++
		}
	}
	fmt.Fprintf(f.Err, "council: %s: %s (%d read from GitHub, %d from the cache): %s by %s, %s by reviewers; %s\n",
		o.Repo, plural(prs, "pull request"), read, cached, plural(len(signals)-asks, "council comment"), login,
		plural(asks, "inline comment"), plural(client.Requests()-before, "GitHub request"))
	return signals, prs, nil
}

// learnGit harvests what reviewers asked for from the merge commits of the clone o.Git, as
// bench import --git walks them, and says what it walked and left out. merges is how many
// merges gave asks; name the repository the signals name.
func learnGit(ctx context.Context, f *Factory, o *LearnOptions) (signals []learn.Signal, merges int, name string, err error) {
	c, err := openMergeClone(ctx, f, o.Git, o.Branch, cmp.Or(o.Name, o.Repo))
	if err != nil {
		return nil, 0, "", err
	}
	defer c.git.Close()
	graph, mbs, err := c.merges(ctx, o.since, o.until, o.IgnoreUsers, window(o.Since, o.Until))
	if err != nil {
		return nil, 0, "", err
	}
	fmt.Fprintf(f.Err, "council: reading what the reviewers of %s asked for from the merges of %s in %s (%d merges%s, %d commits read), offline\n",
		c.name, c.branch, c.git.Dir(), len(mbs), window(o.Since, o.Until), graph.Commits())
	signals, rep, err := learn.HarvestGit(ctx, history.Reader{Git: c.git, Ignore: o.IgnoreUsers, Paths: o.Paths}, c.name, mbs)
	if err != nil {
		return nil, 0, "", err
	}
	fmt.Fprintf(f.Err, "council: %s: %s walked, %d with feedback: %s\n", c.name, plural(rep.Merges, "merge"), rep.Answered, plural(len(signals), "ask"))
	for _, k := range rep.Skipped {
		fmt.Fprintf(f.Err, "  skipped: %d %s\n", k.N, k.Reason)
	}
	for _, k := range rep.Dropped {
		fmt.Fprintf(f.Err, "  dropped: %s: %s\n", plural(k.N, "feedback hunk"), k.Reason)
	}
	return signals, rep.Answered, c.name, nil
}

// writeLearnStats prints the acceptance of council's comments, overall and by reviewer and
// category, then the reviewers' asks by source and top directory, apart: what the model is
// shown, computed without it.
func writeLearnStats(w io.Writer, st learn.Stats) {
	table := func(title string, bs []learn.Bucket) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tcomments\taccepted\trejected\tignored\trate\t\n", title)
		for _, b := range bs {
			key := b.Key
			if key == "" {
				key = "(none)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t\n", key, b.Total, b.Accepted, b.Rejected, b.Ignored, percent(b.Rate))
		}
		_ = tw.Flush()
	}
	if st.Overall.Total > 0 || st.Asks.Total == 0 {
		fmt.Fprintf(w, "council: %s: %d accepted, %d rejected, %d ignored (%s accepted)\n",
			plural(st.Overall.Total, "comment"), st.Overall.Accepted, st.Overall.Rejected, st.Overall.Ignored, percent(st.Overall.Rate))
	}
	if st.Overall.Total > 0 {
		table("reviewer", st.ByReviewer)
		table("category", st.ByCategory)
	}
	if st.Asks.Total == 0 {
		return
	}
	var parts []string
	for _, b := range st.AsksBySource {
		parts = append(parts, fmt.Sprintf("%d from %s", b.Total, askSources[b.Key]))
	}
	fmt.Fprintf(w, "council: %s by reviewers (%s), counted apart from council's comments\n", plural(st.Asks.Total, "ask"), strings.Join(parts, ", "))
	shown := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "top directory\tasks\t\n")
	for i, b := range st.AsksByDir {
		if i == maxAskDirs {
			fmt.Fprintf(tw, "%d more\t%d\t\n", len(st.AsksByDir)-i, st.Asks.Total-shown)
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t\n", b.Key, b.Total)
		shown += b.Total
	}
	_ = tw.Flush()
}

// maxAskDirs is how many top directories the asks' table shows, most asks first.
const maxAskDirs = 20

// askSources say where an ask came from, for the statistics.
var askSources = map[string]string{
	learn.SourceReview:   "inline comments on GitHub",
	learn.SourceFeedback: "changes made in answer to review, in git",
}

func percent(r float64) string { return fmt.Sprintf("%.0f%%", r*100) }

// LearnShowOptions are the arguments of `council learn show`.
type LearnShowOptions struct {
	Path string
}

// NewCmdLearnShow declares `council learn show`.
func NewCmdLearnShow(f *Factory, runF func(context.Context, *LearnShowOptions) error) *cobra.Command {
	opts := &LearnShowOptions{}
	return &cobra.Command{
		Use:   "show PATH",
		Short: "Print a learnings file: each learning, its scope and evidence, and what it was built from",
		Long: `Print a learnings file (.council/learnings.yaml) for a person: each learning's kind, id and scope,
what it tells the reviewers, the signals behind it with links, and what the file was built from.

Exit status: 0, or 2 when PATH cannot be read or is not a learnings file.`,
		Example: `  council learn show .council/learnings.yaml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return learnShowRun(f, opts)
		},
	}
}

func learnShowRun(f *Factory, o *LearnShowOptions) error {
	data, err := os.ReadFile(o.Path)
	if err != nil {
		return fmt.Errorf("read learnings: %w", err)
	}
	file, err := learn.Parse(o.Path, data)
	if err != nil {
		return err
	}
	return learn.Render(f.Out, file)
}
