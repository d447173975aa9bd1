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
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/review"
)

// NewCmdPersona declares `council persona` and its subcommands.
func NewCmdPersona(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "persona",
		Short: "Build, inspect and evaluate personas: reviewers that imitate a real maintainer",
		Long: `Build a persona from one maintainer's past review comments, inspect a persona document, and
measure how well a persona finds what its maintainer raised on pull requests it never saw.
docs/personas.md describes the comments file, what is computed and what the model is asked.`,
	}
	cmd.AddCommand(NewCmdPersonaBuild(f, nil))
	cmd.AddCommand(NewCmdPersonaShow(f, nil))
	cmd.AddCommand(NewCmdPersonaEval(f, nil))
	return cmd
}

// PersonaBuildOptions are the flags of `council persona build`.
type PersonaBuildOptions struct {
	FromFile        string
	Repos           []string      // owner/name: harvest from GitHub instead of FromFile
	Since           string        // with Repos: pull requests created on or after this date
	CacheDir        string        // with Repos: the harvest cache; empty for the user cache directory
	MaxAge          time.Duration // with Repos: a cached listing younger than this is used
	Refresh         bool          // with Repos: list from GitHub whatever the cached listing's age
	Clone           string        // with one of Repos: the clone commits are read from; empty for the cached clone
	Name, Title     string
	Out             string
	Login           string
	Anonymize       bool
	Provider, Model string
	RecordDir       string
	ReplayDir       string

	since time.Time
	// harvest, when set, is the comments to build from, already harvested (persona eval
	// gives the part of a harvest it does not hold out).
	harvest *harvested
}

// NewCmdPersonaBuild declares `council persona build`. runF replaces the behaviour in
// flag-parsing tests.
func NewCmdPersonaBuild(f *Factory, runF func(context.Context, *PersonaBuildOptions) error) *cobra.Command {
	opts := &PersonaBuildOptions{}
	cmd := &cobra.Command{
		Use:   "build (--from-file FILE | --repo OWNER/NAME... --login LOGIN) --name NAME --out PATH",
		Short: "Build a persona document from a maintainer's review comments",
		Long: `Build a persona from review comments in a JSON-lines file (one comment per line; the fields are
in docs/personas.md), or harvested from GitHub: with --repo (repeatable) and --login, the inline
review comments and review bodies of LOGIN on the pull requests of each repository, newest first,
back to --since. Pull requests LOGIN opened are not read. Each pull request's harvest is cached
(--cache DIR, default the user cache directory's council/persona) and read again only when its
updated_at moved, and so is the listing of each repository's pull requests: a run within --max-age
(default 24h) of the last complete listing, back to the same --since or earlier, sends no request
to GitHub at all. --refresh lists again (one request per 100 pull requests) and reads only the pull
requests that changed. An interrupted run resumes where it stopped. On a merged pull request, a comment of LOGIN that
starts a thread counts as addressed when its thread was resolved or when the lines it is about
changed before the merge, as council bench import decides: the commits come from --clone DIR
(one --repo only) as for council bench import, else from a cached clone per repository. GitHub credentials are read as for council bench import:
GITHUB_TOKEN or GH_TOKEN (or a GitHub App's), GITHUB_API_URL for GitHub Enterprise Server.

It says whose comments it reads before reading them, leaves out bots and
replies that only acknowledge, prints statistics computed without a model, saves the selected
comments next to the document (PATH without its extension + .comments.jsonl), then asks the
model for themes, voice and exemplars and writes the persona document to PATH. Exemplars are
real comments, quoted verbatim; the model only chooses them.

Exit status: 0 when the document was written; 2 for a usage error (flags, the comments file,
credentials); 3 when the model failed or gave an answer that cannot be used.`,
		Example: `  # alice's review comments on two repositories since 2025, from GitHub
  council persona build --repo acme/api --repo acme/web --login alice --since 2025-01-01 --name alice --out .council/personas/alice.yaml

  # alice's comments, from a file a harvester or a script wrote
  council persona build --from-file alice.jsonl --login alice --name alice --out .council/personas/alice.yaml

  # a persona that never names whose comments it learned from
  council persona build --from-file alice.jsonl --login alice --name sage --anonymize --out sage.yaml

  # record the model exchanges, then rebuild offline
  council persona build --from-file alice.jsonl --name alice --out alice.yaml --record rec/
  council persona build --from-file alice.jsonl --name alice --out alice.yaml --replay rec/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return personaBuildRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.FromFile, "from-file", "", "read review comments from the JSON-lines `FILE`")
	fl.StringArrayVar(&opts.Repos, "repo", nil, "harvest the review comments of --login in `OWNER/NAME` from GitHub (repeatable)")
	fl.StringVar(&opts.Since, "since", "", "with --repo: only pull requests created on or after `DATE` (2026-01-31 or RFC 3339)")
	fl.StringVar(&opts.CacheDir, "cache", "", "with --repo: cache each pull request's harvest under `DIR` (default: the user cache directory)")
	fl.DurationVar(&opts.MaxAge, "max-age", defaultMaxAge, "with --repo: use a cached listing of the pull requests younger than `DURATION`")
	fl.StringVar(&opts.Clone, "clone", "", "with one --repo: local clone `DIR` to read and fetch commits into (default: a cached clone)")
	fl.BoolVar(&opts.Refresh, "refresh", false, "with --repo: list the pull requests from GitHub whatever the cached listing's age")
	fl.StringVar(&opts.Name, "name", "", "the persona's `NAME`, its reviewer id: "+config.NameRule+" (required)")
	fl.StringVar(&opts.Out, "out", "", "write the persona document to `PATH`, a .yaml file (required)")
	fl.StringVar(&opts.Login, "login", "", "keep only the comments of `LOGIN` (case-insensitive; required with --repo)")
	fl.StringVar(&opts.Title, "title", "", "the persona's display name (default: NAME capitalized)")
	fl.BoolVar(&opts.Anonymize, "anonymize", false, "store the persona's name instead of the login, everywhere in the document")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: claude-sonnet-5-5 or gpt-6.2-sol)")
	fl.StringVar(&opts.RecordDir, "record", "", "save every model exchange under `DIR`")
	fl.StringVar(&opts.ReplayDir, "replay", "", "answer every model request from recordings in `DIR`, offline")
	return cmd
}

func (o *PersonaBuildOptions) validate() error {
	switch {
	case o.FromFile == "" && len(o.Repos) == 0:
		return errors.New("no comments to learn from: give --from-file FILE (JSON lines, see docs/personas.md) or --repo OWNER/NAME with --login")
	case o.FromFile != "" && len(o.Repos) > 0:
		return errors.New("--from-file and --repo cannot be used together: give one source of comments")
	case len(o.Repos) > 0 && o.Login == "":
		return errors.New("--repo needs --login: whose review comments to harvest")
	case len(o.Repos) > 0 && persona.IsBot(o.Login):
		return fmt.Errorf("--login %q is a bot: a persona imitates a person", o.Login)
	case len(o.Repos) == 0 && (o.Since != "" || o.CacheDir != "" || o.Refresh || o.Clone != ""):
		return errors.New("--since, --cache, --refresh and --clone select and keep a GitHub harvest: use them with --repo")
	case o.Clone != "" && len(o.Repos) > 1:
		return errors.New("--clone is one repository's clone: with several --repo, leave it out (each gets a cached clone)")
	case o.MaxAge < 0:
		return fmt.Errorf("--max-age %s: give a duration of 0 (always list from GitHub) or more, such as 24h", o.MaxAge)
	case o.Name == "":
		return errors.New("--name is required: the persona's id, " + config.NameRule)
	case !config.ValidName(o.Name):
		return fmt.Errorf("--name %q: use %s", o.Name, config.NameRule)
	case o.Out == "":
		return errors.New("--out is required: where to write the persona document (.yaml)")
	case !slices.Contains([]string{".yaml", ".yml"}, strings.ToLower(filepath.Ext(o.Out))):
		return fmt.Errorf("--out %q: a persona document is a .yaml or .yml file", o.Out)
	case o.Provider != "" && !slices.Contains(providers, o.Provider):
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	case o.RecordDir != "" && o.ReplayDir != "":
		return errors.New("--record and --replay cannot be used together")
	case o.Anonymize && o.Login == "":
		return errors.New("--anonymize needs --login: the login to keep out of the document")
	}
	for _, r := range o.Repos {
		if _, _, err := splitRepo(r); err != nil {
			return fmt.Errorf("--repo: %w", err)
		}
	}
	if o.Since != "" {
		t, err := parseSince(o.Since)
		if err != nil {
			return err
		}
		o.since = t
	}
	return nil
}

// commentsPath is where build saves the selected comments: next to the document.
func commentsPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".comments.jsonl"
}

func personaBuildRun(ctx context.Context, f *Factory, o *PersonaBuildOptions) error {
	start := time.Now()
	cfg, _ := engine.Settle(config.Default(), engine.Options{Provider: o.Provider, DefaultProvider: envProvider(f.Getenv), Model: o.Model})
	s := settings(f.Getenv, cfg.Provider)
	if o.ReplayDir == "" && s.APIKey == "" && s.BaseURL == "" {
		return errors.New(keyHelp(cfg.Provider))
	}

	var (
		all      []persona.Comment
		excluded []review.Count // left out before Select
		repos    []string
		from     = o.FromFile
	)
	if o.harvest != nil {
		all, excluded, repos = o.harvest.comments, o.harvest.excluded, o.harvest.repos
		from = strings.Join(repos, ", ")
	} else if len(o.Repos) > 0 {
		h, err := harvestCmd(ctx, f, o, cfg)
		if err != nil {
			return err
		}
		all, excluded, repos = h.comments, h.excluded, h.repos
		from = strings.Join(repos, ", ")
	} else {
		who := "every author in it (add --login to choose one)"
		if o.Login != "" {
			who = o.Login
		}
		fmt.Fprintf(f.Err, "council: reading the review comments of %s from %s; they are sent to %s (%s) to distill persona %q, and saved to %s\n",
			who, o.FromFile, cfg.Provider, cfg.Model, o.Name, commentsPath(o.Out))
		file, err := os.Open(o.FromFile)
		if err != nil {
			return fmt.Errorf("read comments: %w", err)
		}
		all, err = persona.ReadJSONL(file, o.FromFile)
		file.Close()
		if err != nil {
			return err
		}
	}
	sel := persona.Select(all, o.Login)
	sel.Excluded = mergeCounts(excluded, sel.Excluded)
	if line := persona.ExclusionLine(sel.Excluded); line != "" {
		fmt.Fprintf(f.Err, "council: read %s; %s\n", plural(len(all)+countAll(excluded), "comment"), line)
	}
	switch {
	case len(sel.Kept) == 0:
		return fmt.Errorf("%s: no comments left to learn from (%s)", from, persona.ExclusionLine(sel.Excluded))
	case o.Login == "" && len(sel.Authors) > 1:
		return fmt.Errorf("%s has comments by %d authors (%s): a persona imitates one; choose with --login", o.FromFile, len(sel.Authors), strings.Join(sel.Authors, ", "))
	}
	login := o.Login
	if login == "" {
		login = sel.Authors[0]
	}
	stats := persona.ComputeStats(sel.Kept)
	fmt.Fprint(f.Out, persona.RenderStats(stats))

	// The selected comments are saved before any model call, so that a failed call loses nothing.
	kept := sel.Kept
	if o.Anonymize {
		kept = slices.Clone(kept)
		for i := range kept {
			kept[i].Author = o.Name
		}
	}
	var buf bytes.Buffer
	if err := persona.WriteJSONL(&buf, kept); err != nil {
		return err
	}
	if err := writeFile(commentsPath(o.Out), buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "council: saved the %s to %s\n", plural(len(kept), "selected comment"), commentsPath(o.Out))

	client, err := modelClient(f, cfg.Provider, s, o.ReplayDir, o.RecordDir)
	if err != nil {
		return err
	}
	res, err := persona.Distill(ctx, client, sel.Kept, persona.Options{
		Model: cfg.Model,
		OnRequest: func(p persona.Progress) {
			fmt.Fprintf(f.Err, "council: request %d of %d (%s): %s, ~%s tokens\n", p.N, p.Of, p.What, plural(p.Comments, "comment"), thousands(p.EstimatedTokens))
		},
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return &exitError{code: ExitIncomplete, msg: fmt.Sprintf("%v (the selected comments are in %s)", err, commentsPath(o.Out))}
	}
	if res.Sampled {
		fmt.Fprintf(f.Err, "council: the history is larger than %d requests hold: the model saw an even sample of %d of the %s\n", persona.DefaultMaxRequests, res.Shown, plural(len(sel.Kept), "comment"))
	}
	if cost, ok := provider.DefaultPrices().Cost(cfg.Model, res.Usage); ok {
		res.Usage.CostUSD = cost
	}

	doc := persona.Document(sel.Kept, res, persona.DocumentOptions{
		Name: o.Name, Title: o.Title, Login: login, Anonymize: o.Anonymize,
		CouncilVersion: Version, Model: cfg.Model, BuiltAt: time.Now(), Excluded: sel.Excluded, Stats: stats,
		Repositories: repos,
	})
	data, err := persona.Marshal(doc)
	if err != nil {
		return err
	}
	if _, err := review.ParseDocument(o.Out, data); err != nil {
		return fmt.Errorf("the built persona does not load (a bug): %w", err)
	}
	if err := writeFile(o.Out, data); err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "council: wrote persona %s to %s: %s, %s; %s, ~%s tokens estimated\n", o.Name, o.Out,
		plural(len(res.Notes.Themes), "theme"), plural(len(doc.Exemplars), "exemplar"), plural(res.Requests, "request"), thousands(res.EstimatedTokens))
	fmt.Fprintf(f.Err, "council: %s\n", markdown.Ledger(report.Usage{Usage: res.Usage, WallSeconds: time.Since(start).Seconds()}))
	return nil
}

// thousands writes n with thin separators: 61234 → "61,234".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// PersonaShowOptions are the arguments of `council persona show`.
type PersonaShowOptions struct {
	Path string
}

// NewCmdPersonaShow declares `council persona show`.
func NewCmdPersonaShow(f *Factory, runF func(context.Context, *PersonaShowOptions) error) *cobra.Command {
	opts := &PersonaShowOptions{}
	return &cobra.Command{
		Use:   "show PATH",
		Short: "Print a persona document: where it came from, its themes, voice, exemplars and statistics",
		Long: `Print a persona document as council review reads it: its source (whose comments, from where,
when, built by which model), its priorities and what it pushes back on, its voice, the first line
of each exemplar, and the statistics of the comments it was built from.

Exit status: 0, or 2 when PATH cannot be read or is not a persona.`,
		Example: `  council persona show .council/personas/alice.yaml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return personaShowRun(f, opts)
		},
	}
}

func personaShowRun(f *Factory, o *PersonaShowOptions) error {
	data, err := os.ReadFile(o.Path)
	if err != nil {
		return fmt.Errorf("read persona: %w", err)
	}
	r, err := review.ParseDocument(o.Path, data)
	if err != nil {
		return err
	}
	if r.Kind != review.Persona {
		return fmt.Errorf("%s is a %s, not a persona (kind: %s)", o.Path, r.Kind, r.Kind)
	}
	w := f.Out
	fmt.Fprintf(w, "%s %s (%s), persona\n", r.Emoji, r.Title, r.Name)
	src := r.Source
	if src.IsZero() {
		fmt.Fprintln(w, "source: none (written by hand)")
	} else {
		who := src.Login
		if src.Anonymized {
			who += " (anonymized)"
		}
		fmt.Fprintf(w, "source: %s by %s in %s, %s to %s\n", plural(src.Comments, "comment"), who, strings.Join(src.Repositories, ", "), src.From, src.To)
		if src.Sampled > 0 {
			fmt.Fprintf(w, "  the model saw a sample of %d of them\n", src.Sampled)
		}
		fmt.Fprintf(w, "  built %s by council %s with %s\n", src.BuiltAt, src.Council, src.Model)
		if line := persona.ExclusionLine(src.Excluded); line != "" {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		for i, it := range items {
			fmt.Fprintf(w, "  %d. %s\n", i+1, it)
		}
	}
	var themes []string
	for _, t := range src.Themes {
		themes = append(themes, fmt.Sprintf("%s (%s)", t.Name, plural(t.Comments, "comment")))
	}
	if len(themes) > 0 {
		section("Themes", themes)
	} else {
		section("Priorities", r.Priorities)
	}
	section("Pushes back on", r.PushesBackOn)
	if len(r.Voice) > 0 {
		fmt.Fprintf(w, "\nVoice: %s\n", strings.Join(quoteAll(r.Voice), ", "))
	}
	var firsts []string
	for _, ex := range r.Exemplars {
		firsts = append(firsts, firstProse(ex))
	}
	section("Exemplars", firsts)
	if src.Stats.Comments > 0 {
		fmt.Fprintf(w, "\nStatistics:\n")
		for line := range strings.Lines(persona.RenderStats(src.Stats)) {
			fmt.Fprintf(w, "  %s", line)
		}
	}
	return nil
}

func quoteAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// firstProse is an exemplar's first line of text after its hunk, cut to 100 characters.
func firstProse(ex string) string {
	inFence := false
	for line := range strings.Lines(ex) {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "```"):
			inFence = !inFence
		case !inFence && l != "":
			if r := []rune(l); len(r) > 100 {
				return string(r[:99]) + "…"
			}
			return l
		}
	}
	return ""
}
