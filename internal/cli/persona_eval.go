package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
)

// PersonaEvalOptions are the flags of `council persona eval`.
type PersonaEvalOptions struct {
	Repos           []string // owner/name
	Login           string
	Anonymize       bool
	Holdout         int
	Out             string
	Name            string
	Since           string
	CacheDir        string
	MaxAge          time.Duration
	Refresh         bool
	Clone           string
	Provider, Model string
	RecordDir       string
	ReplayDir       string
	Judge           string // provider:model: add tier L3, as bench score --judge

	judge scoreJudge // replaces newJudge's in tests
}

// NewCmdPersonaEval declares `council persona eval`. runF replaces the behaviour in
// flag-parsing tests.
func NewCmdPersonaEval(f *Factory, runF func(context.Context, *PersonaEvalOptions) error) *cobra.Command {
	opts := &PersonaEvalOptions{}
	cmd := &cobra.Command{
		Use:   "eval --repo OWNER/NAME... --login LOGIN --holdout N --out DIR",
		Short: "Measure how well a persona built from a maintainer's history finds what they would",
		Long: `Harvest LOGIN's review comments in each OWNER/NAME (--repo is repeatable; as persona build --repo
does, with its cache, --max-age and --refresh), order the pull requests LOGIN reviewed, across the
repositories, by the time of LOGIN's first comment on each, and hold out the N most recent: no
comment on those reaches the persona. Then:

  1. build the persona from the rest: DIR/persona.yaml and DIR/persona.comments.jsonl;
  2. import the held-out pull requests as a benchmark dataset, DIR/dataset, whose truth is
     LOGIN's first-round comments only (the others are dropped: "not by the evaluated author");
     commits come from --clone as for council bench import (give --clone with one --repo only:
     with several, each repository gets its own cached clone);
  3. review the dataset twice, as council bench run does: DIR/runs/lenses (the default lenses)
     and DIR/runs/with-persona (the default lenses and the persona);
  4. score both against LOGIN's comments and write DIR/report.md and DIR/report.json: the
     persona's recall of LOGIN's comments (its own findings alone), the lenses' recall of the
     same comments, what the persona found that the lenses missed, the persona's precision,
     and its voice (the share of its findings that use one of its voice markers; the median
     length of its findings against LOGIN's comments). With --judge provider:model, both runs are
     also scored at tier L3 as council bench score --judge does. The headline goes to stdout.

--anonymize puts the persona's --name in place of LOGIN in persona.yaml, its comments file and
the report (the dataset's truth still names LOGIN: it is what the import read).

--record DIR and --replay DIR keep or answer the model exchanges of each step under
DIR/build, DIR/lenses and DIR/with-persona.

Exit status: 0 when the report was written; 2 for a usage error; 3 when the model failed or a
sample could not be reviewed.`,
		Example: `  council persona eval --repo acme/api --login alice --holdout 20 --out runs/alice-eval
  council persona eval --repo acme/api --login alice --holdout 5 --clone ~/src/api --out runs/alice-eval --record rec/alice
  council persona eval --repo acme/api --login alice --holdout 5 --clone ~/src/api --out runs/alice-replayed --replay rec/alice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return personaEvalRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Repos, "repo", nil, "a repository `OWNER/NAME` whose review history to use (required; repeatable)")
	fl.StringVar(&opts.Login, "login", "", "the maintainer whose comments to learn from and to score against (required)")
	fl.IntVar(&opts.Holdout, "holdout", 0, "hold out the `N` most recently reviewed pull requests (required, at least 1)")
	fl.StringVar(&opts.Out, "out", "", "evaluation `DIR` (required)")
	fl.StringVar(&opts.Name, "name", "", "the persona's `NAME` (default: the login, lower case)")
	fl.BoolVar(&opts.Anonymize, "anonymize", false, "put the persona's --name in place of the login in the persona and the report")
	fl.StringVar(&opts.Since, "since", "", "only pull requests created on or after `DATE` (2026-01-31 or RFC 3339)")
	fl.StringVar(&opts.CacheDir, "cache", "", "cache each pull request's harvest under `DIR` (default: the user cache directory)")
	fl.DurationVar(&opts.MaxAge, "max-age", defaultMaxAge, "use a cached listing of the pull requests younger than `DURATION`")
	fl.BoolVar(&opts.Refresh, "refresh", false, "list the pull requests from GitHub whatever the cached listing's age")
	fl.StringVar(&opts.Clone, "clone", "", "local clone `DIR` to read and fetch commits into (default: a cached clone)")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: claude-sonnet-5-5 or gpt-6.2-sol)")
	fl.StringVar(&opts.Judge, "judge", "", "add tier L3: ask `provider:model` whether each same-file pair is the same issue (as bench score --judge)")
	fl.StringVar(&opts.RecordDir, "record", "", "save every model exchange under `DIR`/{build,lenses,with-persona}")
	fl.StringVar(&opts.ReplayDir, "replay", "", "answer every model request from the recordings under `DIR`, offline")
	return cmd
}

func (o *PersonaEvalOptions) validate() error {
	if o.Name == "" {
		o.Name = strings.ToLower(o.Login)
	}
	switch {
	case len(o.Repos) == 0:
		return errors.New("--repo OWNER/NAME is required: the repository whose review history to use")
	case o.Login == "":
		return errors.New("--login is required: whose review comments to learn from and score against")
	case persona.IsBot(o.Login):
		return fmt.Errorf("--login %q is a bot: a persona imitates a person", o.Login)
	case o.Holdout < 1:
		return fmt.Errorf("--holdout %d: give the number of most recent reviewed pull requests to hold out, at least 1", o.Holdout)
	case o.Out == "":
		return errors.New("--out DIR is required: the persona, dataset, runs and report go there")
	case !config.ValidName(o.Name):
		return fmt.Errorf("--name %q: use %s", o.Name, config.NameRule)
	case o.Provider != "" && !slices.Contains(providers, o.Provider):
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	case o.RecordDir != "" && o.ReplayDir != "":
		return errors.New("--record and --replay cannot be used together")
	case o.MaxAge < 0:
		return fmt.Errorf("--max-age %s: give a duration of 0 (always list from GitHub) or more, such as 24h", o.MaxAge)
	case o.Anonymize && strings.EqualFold(o.Name, o.Login):
		return errors.New("--anonymize needs --name: the name to put in place of the login")
	case o.Clone != "" && len(o.Repos) > 1:
		return errors.New("--clone is one repository's clone: with several --repo, leave it out (each gets a cached clone)")
	}
	for _, r := range o.Repos {
		if _, _, err := splitRepo(r); err != nil {
			return fmt.Errorf("--repo: %w", err)
		}
	}
	if o.Judge != "" {
		if _, _, err := parseJudge(o.Judge); err != nil {
			return err
		}
	}
	if o.Since != "" {
		if _, err := parseSince(o.Since); err != nil {
			return err
		}
	}
	return nil
}

// evalReport is report.json.
type evalReport struct {
	Repos    []string          `json:"repos"`
	Login    string            `json:"login"`
	Holdout  int               `json:"holdout"`
	TrainPRs []persona.PRRef   `json:"train_prs"`
	HeldPRs  []persona.PRRef   `json:"held_out_prs"`
	Persona  string            `json:"persona_file"`
	Dataset  string            `json:"dataset"`
	Runs     map[string]string `json:"runs"`
	Eval     bench.PersonaEval `json:"eval"`
}

// sub is DIR/name, or empty when dir is.
func sub(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

func personaEvalRun(ctx context.Context, f *Factory, o *PersonaEvalOptions) error {
	var repos []string
	for _, r := range o.Repos {
		owner, name, _ := splitRepo(r) // checked by validate
		repos = append(repos, owner+"/"+name)
	}
	personaPath := filepath.Join(o.Out, "persona.yaml")
	dataset := filepath.Join(o.Out, "dataset")
	runs := map[string]string{"lenses": filepath.Join(o.Out, "runs", "lenses"), "with-persona": filepath.Join(o.Out, "runs", "with-persona")}

	// 1. Harvest, and split.
	build := &PersonaBuildOptions{
		Repos: repos, Login: o.Login, Anonymize: o.Anonymize, Since: o.Since, CacheDir: o.CacheDir, MaxAge: o.MaxAge, Refresh: o.Refresh, Clone: o.Clone,
		Name: o.Name, Out: personaPath, Provider: o.Provider, Model: o.Model,
		RecordDir: sub(o.RecordDir, "build"), ReplayDir: sub(o.ReplayDir, "build"),
	}
	if err := build.validate(); err != nil {
		return err
	}
	cfg, _ := engine.Settle(config.Default(), engine.Options{Provider: o.Provider, DefaultProvider: envProvider(f.Getenv), Model: o.Model})
	if s := settings(f.Getenv, cfg.Provider); o.ReplayDir == "" && s.APIKey == "" && s.BaseURL == "" {
		return errors.New(keyHelp(cfg.Provider))
	}
	h, err := harvestCmd(ctx, f, build, cfg)
	if err != nil {
		return err
	}
	split := persona.HoldOut(h.comments, o.Holdout)
	if len(split.TrainPRs) == 0 {
		return fmt.Errorf("%s reviewed %s in %s: holding out %d leaves nothing to build the persona from; give a smaller --holdout",
			o.Login, plural(len(split.HeldPRs), "pull request"), strings.Join(repos, ", "), o.Holdout)
	}
	if len(split.HeldPRs) < o.Holdout {
		return fmt.Errorf("%s reviewed only %s in %s: cannot hold out %d", o.Login, plural(len(split.HeldPRs)+len(split.TrainPRs), "pull request"), strings.Join(repos, ", "), o.Holdout)
	}
	var held []string
	for _, p := range split.HeldPRs {
		if len(repos) > 1 {
			held = append(held, fmt.Sprintf("%s#%d", p.Repo, p.Number))
		} else {
			held = append(held, fmt.Sprintf("#%d", p.Number))
		}
	}
	fmt.Fprintf(f.Err, "council: persona eval: building from %s on %s; holding out %s on %s (%s)\n",
		plural(len(split.Train), "comment"), plural(len(split.TrainPRs), "pull request"),
		plural(len(split.Held), "comment"), plural(len(split.HeldPRs), "pull request"), strings.Join(held, ", "))

	// 2. Build from the rest. The build's statistics go to stderr: stdout is the headline's.
	build.harvest = &harvested{comments: split.Train, excluded: h.excluded, repos: h.repos}
	quiet := *f
	quiet.Out = f.Err
	if err := personaBuildRun(ctx, &quiet, build); err != nil {
		return err
	}

	// 3. The held-out pull requests as a dataset whose truth is the maintainer's.
	if err := evalImport(ctx, f, o, split.HeldPRs, dataset); err != nil {
		return err
	}

	// 4. The council without and with the persona.
	for _, run := range []struct {
		key      string
		personas []string
	}{{"lenses", nil}, {"with-persona", []string{personaPath}}} {
		fmt.Fprintf(f.Err, "council: persona eval: reviewing the dataset into %s\n", runs[run.key])
		if err := benchRun(ctx, f, &BenchRunOptions{
			Dataset: dataset, Out: runs[run.key], Concurrency: 2, Provider: o.Provider, Model: o.Model,
			Personas: run.personas, RecordDir: sub(o.RecordDir, run.key), ReplayDir: sub(o.ReplayDir, run.key),
		}); err != nil {
			return err
		}
	}

	// 5. Score both and report.
	return evalScore(ctx, f, o, repos, personaPath, dataset, runs, split)
}

// evalImport imports the held-out pull requests into dataset with the bench importer, keeping
// only the maintainer's truth items.
// Each pull request is imported from its own repository.
func evalImport(ctx context.Context, f *Factory, o *PersonaEvalOptions, prs []persona.PRRef, dataset string) error {
	bcfg, err := benchConfig("")
	if err != nil {
		return err
	}
	owner, repo := "", ""
	if len(prs) > 0 {
		owner, repo, _ = splitRepo(prs[0].Repo)
	}
	client, err := githubClient(ctx, f.Getenv, owner, repo)
	if err != nil {
		return err
	}
	bo := &BenchImportOptions{Out: dataset, Clone: o.Clone, PRs: importSpecs(prs)}
	r := &importRun{f: f, o: bo, gh: client, ignore: bcfg.Bench.AIReviewers, authors: []string{o.Login}}
	if r.log, err = bench.ReadImportLog(dataset); err != nil {
		return err
	}
	defer func() {
		for _, g := range r.clones {
			_ = g.Close()
		}
	}()
	if err := r.pulls(ctx); err != nil {
		return err
	}
	if r.imported == 0 && !anyLogged(r.log) {
		return fmt.Errorf("none of the held-out pull requests gave a sample (%s lists why): hold out more", filepath.Join(dataset, bench.ImportManifest))
	}
	return nil
}

// importSpecs are the --pr arguments of bench import for prs: each names its own repository.
func importSpecs(prs []persona.PRRef) []string {
	out := make([]string, 0, len(prs))
	for _, p := range prs {
		out = append(out, fmt.Sprintf("%s#%d", p.Repo, p.Number))
	}
	return out
}

func anyLogged(l bench.ImportLog) bool {
	return slices.ContainsFunc(l.PRs, func(e bench.ImportEntry) bool { return e.ID != "" })
}

func evalScore(ctx context.Context, f *Factory, o *PersonaEvalOptions, repos []string, personaPath, dataset string, runs map[string]string, split persona.Split) error {
	bcfg, err := benchConfig("")
	if err != nil {
		return err
	}
	opts := bench.ScoreOptions{LineWindow: bcfg.Bench.LineWindow, Threshold: bcfg.Bench.SimilarityThreshold, Seed: 1, Judge: o.Judge}
	data, err := os.ReadFile(personaPath)
	if err != nil {
		return fmt.Errorf("read persona: %w", err)
	}
	doc, err := review.ParseDocument(personaPath, data)
	if err != nil {
		return err
	}
	in := bench.PersonaEvalInput{Persona: doc.Name, Voice: doc.Voice}
	for _, run := range []struct {
		key      string
		dst      *bench.ScoreInput
		verdicts **bench.Verdicts
	}{{"lenses", &in.Lenses, &in.LensesVerdicts}, {"with-persona", &in.WithPersona, &in.WithPersonaVerdicts}} {
		key := run.key
		if *run.dst, err = loadScoreInput(runs[key], dataset); err != nil {
			return err
		}
		if o.Judge != "" {
			so := &BenchScoreOptions{RunDir: runs[key], Judge: o.Judge, judge: o.judge}
			if *run.verdicts, err = judgeRun(ctx, f, so, *run.dst, opts, provider.DefaultPrices().Merge(configPrices(bcfg.Prices))); err != nil {
				return err
			}
		}
		sc := bench.ScoreRun(*run.dst, opts, *run.verdicts)
		js, err := marshalIndent(sc)
		if err != nil {
			return fmt.Errorf("encode the score: %w", err)
		}
		if err := writeFile(filepath.Join(runs[key], "score.json"), js); err != nil {
			return err
		}
	}
	for _, s := range in.Lenses.Samples {
		for _, t := range s.Truth {
			in.AuthorBodies = append(in.AuthorBodies, t.Body)
		}
	}
	rep := evalReport{
		Repos: repos, Login: o.Login, Holdout: o.Holdout, TrainPRs: split.TrainPRs, HeldPRs: split.HeldPRs,
		Persona: personaPath, Dataset: dataset, Runs: runs, Eval: bench.EvalPersona(in, opts),
	}
	if o.Anonymize {
		rep = anonymizeReport(rep, o.Login, o.Name)
	}
	js, err := marshalIndent(rep)
	if err != nil {
		return fmt.Errorf("encode the report: %w", err)
	}
	if err := writeFile(filepath.Join(o.Out, "report.json"), js); err != nil {
		return err
	}
	var md strings.Builder
	writeEvalMarkdown(&md, rep)
	if err := writeFile(filepath.Join(o.Out, "report.md"), []byte(md.String())); err != nil {
		return err
	}
	fmt.Fprintln(f.Out, evalHeadline(rep))
	fmt.Fprintf(f.Err, "council: wrote %s and %s\n", filepath.Join(o.Out, "report.md"), filepath.Join(o.Out, "report.json"))
	return nil
}

// headlineTier is the tier the headline speaks of: the strictest without a judge.
const headlineTier = bench.TierL2

func tierOf(ev bench.PersonaEval, tier string) bench.PersonaTier {
	for _, t := range ev.Tiers {
		if t.Tier == tier {
			return t
		}
	}
	return bench.PersonaTier{Tier: tier}
}

func evalHeadline(r evalReport) string {
	ev := r.Eval
	t := tierOf(ev, headlineTier)
	return fmt.Sprintf("persona %s (%s): recall %.2f of %s's %s on %s held out (lenses %.2f); %d the lenses missed; precision %.2f over %s; voice %.0f%%, median %d chars vs %s's %d",
		ev.Persona, t.Tier, t.PersonaRecall, r.Login, plural(ev.TruthItems, "comment"), plural(ev.Samples, "pull request"), t.LensesRecall,
		t.Adds, t.PersonaPrecision, plural(t.PersonaFindings, "finding"), 100*ev.Voice.Share, ev.Voice.PersonaMedian, r.Login, ev.Voice.AuthorMedian)
}

func writeEvalMarkdown(w io.Writer, r evalReport) {
	ev := r.Eval
	fmt.Fprintf(w, "# Persona %s: evaluation against %s's held-out comments\n\n", ev.Persona, r.Login)
	what := "Repository"
	if len(r.Repos) > 1 {
		what = "Repositories"
	}
	fmt.Fprintf(w, "%s %s. Built from %s; held out the %s most recently reviewed by %s: %s first-round comments of theirs on %s scored.\n\n",
		what, strings.Join(r.Repos, ", "), plural(len(r.TrainPRs), "pull request"), plural(len(r.HeldPRs), "pull request"), r.Login, plural(ev.TruthItems, "comment"), plural(ev.Samples, "sample"))
	fmt.Fprintf(w, "**%s**\n\n", evalHeadline(r))
	fmt.Fprintln(w, "| tier | persona recall | persona precision | lenses recall | council with persona recall | persona adds |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, t := range ev.Tiers {
		fmt.Fprintf(w, "| %s | %.2f (%d) | %.2f (%d findings) | %.2f (%d) | %.2f | %d |\n", t.Tier, t.PersonaRecall, t.PersonaHits,
			t.PersonaPrecision, t.PersonaFindings, t.LensesRecall, t.LensesHits, t.WithPersonaRecall, t.Adds)
	}
	legend := "L0: same file; L1: within the line window; L2: L1 and similar text"
	if len(ev.Tiers) > 3 {
		legend += "; L3: the judge said the same issue"
	}
	fmt.Fprintf(w, "\n%s. The persona's numbers count its own findings alone.\n", legend)
	fmt.Fprintf(w, "\n## Voice\n\n%d of %s use a voice marker (%.0f%%); markers: %s.\nMedian length: the persona's findings %d characters, %s's comments %d.\n",
		ev.Voice.WithMarker, plural(ev.Voice.Findings, "finding"), 100*ev.Voice.Share, strings.Join(quoteAll(ev.Voice.Markers), ", "),
		ev.Voice.PersonaMedian, r.Login, ev.Voice.AuthorMedian)
	fmt.Fprintf(w, "\n## What the persona found that the lenses missed (%s)\n\n", headlineTier)
	if len(ev.Adds) == 0 {
		fmt.Fprintln(w, "Nothing.")
	}
	for _, t := range ev.Adds {
		fmt.Fprintf(w, "- %s:%d: %s\n", t.Path, t.Line, firstLine(t.Body))
	}
}

// anonymizeReport puts name in place of login everywhere in the report: the login field, the
// repositories (a personal one carries the login) and the held-out comments quoted.
func anonymizeReport(r evalReport, login, name string) evalReport {
	fix := func(s string) string { return persona.ReplaceLogin(s, login, name) }
	r.Login = name
	r.Repos = slices.Clone(r.Repos)
	for i := range r.Repos {
		r.Repos[i] = fix(r.Repos[i])
	}
	for _, prs := range []*[]persona.PRRef{&r.TrainPRs, &r.HeldPRs} {
		*prs = slices.Clone(*prs)
		for i := range *prs {
			(*prs)[i].Repo = fix((*prs)[i].Repo)
		}
	}
	r.Eval.Adds = slices.Clone(r.Eval.Adds)
	for i := range r.Eval.Adds {
		r.Eval.Adds[i].Author = fix(r.Eval.Adds[i].Author)
		r.Eval.Adds[i].Body = fix(r.Eval.Adds[i].Body)
	}
	return r
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
