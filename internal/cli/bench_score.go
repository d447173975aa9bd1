package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/bench/benchreport"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
)

// BenchScoreOptions are the flags of `council bench score`.
type BenchScoreOptions struct {
	RunDir     string
	Truth      string
	Out        string
	Threshold  float64
	LineWindow int
	Bootstrap  int
	Seed       int64
	Judge      string // provider:model
	// JudgeConcurrency is how many judge questions are in flight at once.
	JudgeConcurrency int
	ConfigPath       string
	ByAuthor         bool   // print recall per truth author
	Signals          string // a signals JSONL file (council learn --signals-out): adds acceptance
	Labels           string // blind judges' labels of the run's findings (JSON Lines): adds judged figures

	thresholdSet bool       // --threshold was given (else the config's)
	windowSet    bool       // --line-window was given
	judge        scoreJudge // replaces newJudge's in tests
}

// NewCmdBenchScore declares `council bench score`. runF replaces the behaviour in flag-parsing
// tests.
func NewCmdBenchScore(f *Factory, runF func(context.Context, *BenchScoreOptions) error) *cobra.Command {
	opts := &BenchScoreOptions{}
	cmd := &cobra.Command{
		Use:   "score RUN_DIR --truth DATASET",
		Short: "Score a run's findings against the human comments of its dataset",
		Long: `Match the findings of each review in RUN_DIR (written by council bench run) to the human
comments of the same sample in DATASET, one to one, and report precision, recall and F1 with 95%
bootstrap confidence intervals at each tier:

  L0  same file
  L1  same file, within --line-window lines
  L2  L1, and text similarity >= --threshold
  L3  the judge said: the same issue (only with --judge)

Every tier is scored three times: for the findings shown up front (inline comments and other
notes: what a reader is asked to look at), for the collapsed list of minor notes, and for all
shown (both), each placement's findings matched alone; with the share of PRs with at least one
human comment caught. Findings that were filtered are not counted; samples the run did not
finish are listed, not counted as misses. The score is written as JSON to --out (default
RUN_DIR/score.json) and summed up on stdout, up front first, as a Markdown table to paste into
a note, with the cost per PR split into reviewers, validator and cache warm-up. The threshold
and window default to .council.yaml's bench section (see council bench calibrate to measure
the threshold on hand labels).

--labels FILE adds what blind judges said of the run's findings, one JSON object per line:

  {"sample":"owner-repo-12","finding":"58dd402eb15c85eb","label":"valid","truth":["1234567"],"why":"..."}

label is valid, minor or wrong; truth lists the sample's human comments (truth ids) the finding
asks for. Per placement: judged valid (labelled valid), useful (valid, or asking for a truth
item) and asks caught (the truth items some finding asks for). Shown findings without a label
are listed and left out; labels of other runs' findings are skipped. (council bench calibrate
--labels takes another file: labelled pairs of a human comment and a finding.)

--signals FILE (written by council learn --signals-out) adds acceptance: the share of council's
posted comments that were addressed or drew a positive reaction, overall and per reviewer.`,
		Example: `  council bench score runs/sonnet --truth bench/mine
  council bench score runs/sonnet --truth bench/mine --threshold 0.3 --bootstrap 5000 --out sonnet.json
  council bench score runs/sonnet --truth bench/mine --judge anthropic:claude-haiku-4-5
  council bench score runs/sonnet --truth bench/mine --by-author
  council bench score runs/sonnet --truth bench/mine --signals signals.jsonl
  council bench score runs/sonnet --truth bench/mine --labels judged.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDir = args[0]
			opts.thresholdSet = cmd.Flags().Changed("threshold")
			opts.windowSet = cmd.Flags().Changed("line-window")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchScoreRun(cmd.Context(), f, opts)
		},
	}
	def := bench.DefaultScoreOptions()
	fl := cmd.Flags()
	fl.StringVar(&opts.Truth, "truth", "", "the dataset `DIR` the run reviewed (required)")
	fl.StringVar(&opts.Out, "out", "", "write the score to `FILE` (default RUN_DIR/score.json)")
	fl.Float64Var(&opts.Threshold, "threshold", 0, fmt.Sprintf("L2's smallest text similarity, 0..1 (default: config, else %.2f)", def.Threshold))
	fl.IntVar(&opts.LineWindow, "line-window", 0, fmt.Sprintf("L1's largest line distance (default: config, else %d)", def.LineWindow))
	fl.IntVar(&opts.Bootstrap, "bootstrap", def.Bootstrap, "resamples for the confidence intervals (0: none)")
	fl.Int64Var(&opts.Seed, "seed", def.Seed, "seed of the resampling: the same seed gives the same intervals")
	fl.StringVar(&opts.Judge, "judge", "", "add tier L3: ask `provider:model` whether each same-file pair is the same issue")
	fl.IntVar(&opts.JudgeConcurrency, "judge-concurrency", bench.DefaultJudgeConcurrency, "with --judge: how many questions to ask at once")
	fl.StringVar(&opts.ConfigPath, "config", "", "config `FILE` for the defaults (default ./.council.yaml when present)")
	fl.BoolVar(&opts.ByAuthor, "by-author", false, "also print the recall of each truth author's comments, per tier")
	fl.StringVar(&opts.Signals, "signals", "", "add the acceptance of council's posted comments, from the signals JSONL `FILE` of council learn --signals-out")
	fl.StringVar(&opts.Labels, "labels", "", "add judged valid, useful and asks caught, from blind judges' labels of the run's findings:\na JSON Lines `FILE` of {sample, finding, label, truth} (not bench calibrate's pair labels)")
	return cmd
}

// maxBootstrap bounds --bootstrap: beyond it the intervals stop moving and memory grows.
const maxBootstrap = 100000

func (o *BenchScoreOptions) validate() error {
	switch {
	case o.Truth == "":
		return errors.New("--truth DATASET is required: the dataset directory the run reviewed")
	case o.thresholdSet && (o.Threshold < 0 || o.Threshold > 1):
		return fmt.Errorf("--threshold %v: must be between 0 and 1", o.Threshold)
	case o.windowSet && (o.LineWindow < 0 || o.LineWindow > 1000):
		return fmt.Errorf("--line-window %d: must be between 0 and 1000", o.LineWindow)
	case o.Bootstrap < 0 || o.Bootstrap > maxBootstrap:
		return fmt.Errorf("--bootstrap %d: must be between 0 and %d", o.Bootstrap, maxBootstrap)
	case o.JudgeConcurrency < 1 || o.JudgeConcurrency > 64:
		return fmt.Errorf("--judge-concurrency %d: must be between 1 and 64", o.JudgeConcurrency)
	}
	if o.Judge != "" {
		if _, _, err := parseJudge(o.Judge); err != nil {
			return err
		}
	}
	return nil
}

// parseJudge splits --judge provider:model.
func parseJudge(s string) (name, model string, err error) {
	name, model, ok := strings.Cut(s, ":")
	if !ok || model == "" || !slices.Contains(providers, name) {
		return "", "", fmt.Errorf("--judge %q: must be provider:model, the provider one of %s (e.g. anthropic:claude-haiku-4-5)",
			s, strings.Join(providers, ", "))
	}
	return name, model, nil
}

// scoreJudge is what bench score needs of the LLM judge.
type scoreJudge interface {
	Same(ctx context.Context, pairs []bench.JudgePair) (map[bench.PairKey]bool, error)
	Plausible(ctx context.Context, findings []bench.JudgeFinding) (map[bench.FindingKey]bool, error)
	Summary() bench.JudgeSummary
}

// judgeFailures is the judge's optional account of the questions it failed on.
type judgeFailures interface{ Failures() []string }

var (
	_ scoreJudge    = (*bench.Judge)(nil)
	_ judgeFailures = (*bench.Judge)(nil)
)

// judgeSpec is what --judge asks for.
type judgeSpec struct {
	Provider, Model string
	CacheDir        string          // answers kept between runs of the same questions
	Prices          provider.Prices // the built-in table, with the config's prices over it
	Concurrency     int             // questions in flight at once
}

// newJudge makes the judge of --judge on the provider's real client.
var newJudge = func(f *Factory, spec judgeSpec) (scoreJudge, error) {
	s := settings(f.Getenv, spec.Provider)
	if s.APIKey == "" && s.BaseURL == "" {
		return nil, fmt.Errorf("--judge %s:%s: %s", spec.Provider, spec.Model, credentialsHelp)
	}
	client, err := modelClient(f, spec.Provider, s, "", "")
	if err != nil {
		return nil, err
	}
	return bench.NewJudge(bench.JudgeOptions{
		Client: client, Model: spec.Model, CacheDir: spec.CacheDir, Prices: spec.Prices, Concurrency: spec.Concurrency,
	}), nil
}

func benchScoreRun(ctx context.Context, f *Factory, o *BenchScoreOptions) error {
	cfg, err := benchConfig(o.ConfigPath)
	if err != nil {
		return err
	}
	opts := bench.ScoreOptions{
		LineWindow: cfg.Bench.LineWindow, Threshold: cfg.Bench.SimilarityThreshold,
		Bootstrap: o.Bootstrap, Seed: o.Seed, Judge: o.Judge,
	}
	if o.thresholdSet {
		opts.Threshold = o.Threshold
	}
	if o.windowSet {
		opts.LineWindow = o.LineWindow
	}
	in, err := loadScoreInput(o.RunDir, o.Truth)
	if err != nil {
		return err
	}
	// The labels are read first: a bad file should not wait for, or pay for, the judge.
	var labels *bench.LabelScore
	if o.Labels != "" {
		if labels, err = readFindingLabels(o.Labels, in); err != nil {
			return err
		}
	}

	var verdicts *bench.Verdicts
	if o.Judge != "" {
		if verdicts, err = judgeRun(ctx, f, o, in, opts, provider.DefaultPrices().Merge(configPrices(cfg.Prices))); err != nil {
			return err
		}
	}
	var acc *bench.Acceptance
	if o.Signals != "" {
		if acc, err = readAcceptance(o.Signals); err != nil {
			return err
		}
	}
	sc := bench.ScoreRun(in, opts, verdicts)
	sc.Acceptance = acc
	sc.Labels = labels

	out := o.Out
	if out == "" {
		out = filepath.Join(o.RunDir, "score.json")
	}
	data, err := marshalIndent(sc)
	if err != nil {
		return fmt.Errorf("encode the score: %w", err)
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return fmt.Errorf("write the score: %w", err)
	}
	if err := printScore(f.Out, sc); err != nil {
		return err
	}
	if o.ByAuthor {
		printByAuthor(f.Out, sc)
	}
	if labels != nil {
		warnLabels(f.Err, *labels)
	}
	fmt.Fprintf(f.Err, "council: wrote %s\n", out)
	return nil
}

// readFindingLabels reads --labels and counts the labels of the run's shown findings.
func readFindingLabels(path string, in bench.ScoreInput) (*bench.LabelScore, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the labels: %w", err)
	}
	labels, err := bench.ParseFindingLabels(path, data)
	if err != nil {
		return nil, err
	}
	ls, err := bench.ScoreLabels(in, path, labels)
	if err != nil {
		return nil, err
	}
	return &ls, nil
}

// warnLabels says which shown findings have no label (left out, not guessed) and how many
// labels were of other runs' findings.
func warnLabels(w io.Writer, l bench.LabelScore) {
	if l.NotInRun > 0 {
		fmt.Fprintf(w, "council: --labels %s: %s of findings this run does not show (another run's, or filtered): not counted\n",
			l.File, plural(l.NotInRun, "label"))
	}
	if len(l.Unlabelled) == 0 {
		return
	}
	fmt.Fprintf(w, "council: --labels %s: %s without a label, left out of the judged figures:\n", l.File, plural(len(l.Unlabelled), "shown finding"))
	for _, u := range l.Unlabelled {
		fmt.Fprintf(w, "  %s %s (%s)\n", u.Sample, u.Finding, strings.ReplaceAll(u.Placement, "_", " "))
	}
}

// judgeRun asks the judge about every candidate pair, then about the findings its answers
// leave unmatched, so that scoring itself stays pure.
func judgeRun(ctx context.Context, f *Factory, o *BenchScoreOptions, in bench.ScoreInput, opts bench.ScoreOptions, prices provider.Prices) (*bench.Verdicts, error) {
	j := o.judge
	if j == nil {
		name, model, err := parseJudge(o.Judge)
		if err != nil {
			return nil, err
		}
		if j, err = newJudge(f, judgeSpec{Provider: name, Model: model, CacheDir: filepath.Join(o.RunDir, "judge-cache"), Prices: prices,
			Concurrency: o.JudgeConcurrency}); err != nil {
			return nil, err
		}
	}
	pairs := bench.JudgeCandidates(in)
	fmt.Fprintf(f.Err, "council: judge %s: %d candidate pairs\n", o.Judge, len(pairs))
	same, err := j.Same(ctx, pairs)
	if err != nil {
		return nil, fmt.Errorf("judge the pairs: %w", err)
	}
	unmatched := bench.UnmatchedAtL3(in, opts, same)
	fmt.Fprintf(f.Err, "council: judge %s: %d findings matched no human comment\n", o.Judge, len(unmatched))
	plausible, err := j.Plausible(ctx, unmatched)
	if err != nil {
		return nil, fmt.Errorf("judge the unmatched findings: %w", err)
	}
	sum := j.Summary()
	if jf, ok := j.(judgeFailures); ok && sum.Errors > 0 {
		fails := jf.Failures()
		fmt.Fprintf(f.Err, "council: the judge failed on %d questions (neither hits nor misses), e.g. %s\n", sum.Errors, fails[0])
	}
	return &bench.Verdicts{Same: same, Plausible: plausible, Summary: sum}, nil
}

// benchConfig is the configuration whose bench section gives the score's defaults: --config,
// else ./.council.yaml when there is one, else the defaults.
func benchConfig(path string) (config.Config, error) {
	source := path
	if source == "" {
		source = ".council.yaml"
	}
	data, err := os.ReadFile(source)
	switch {
	case path == "" && errors.Is(err, fs.ErrNotExist):
		return config.Default(), nil
	case err != nil:
		return config.Config{}, fmt.Errorf("read config: %w", err)
	}
	return config.Parse(source, data)
}

// loadScoreInput reads the dataset, the run's run.json and the review of every sample the run
// finished. A missing review file is left for scoring to list; an unreadable one is an error.
func loadScoreInput(runDir, dataset string) (bench.ScoreInput, error) {
	samples, err := bench.LoadDataset(dataset)
	if err != nil {
		return bench.ScoreInput{}, err
	}
	manifest := filepath.Join(runDir, "run.json")
	data, err := os.ReadFile(manifest)
	if errors.Is(err, fs.ErrNotExist) {
		return bench.ScoreInput{}, fmt.Errorf("%s has no run.json: give the directory council bench run --out wrote", runDir)
	}
	if err != nil {
		return bench.ScoreInput{}, fmt.Errorf("read the run: %w", err)
	}
	var run bench.RunManifest
	if err := json.Unmarshal(data, &run); err != nil {
		return bench.ScoreInput{}, fmt.Errorf("read %s: %w", manifest, err)
	}
	if run.RunVersion != bench.RunVersion {
		return bench.ScoreInput{}, fmt.Errorf("%s has run_version %q; this council reads %s", manifest, run.RunVersion, bench.RunVersion)
	}
	if run.Name == "" {
		run.Name = filepath.Base(filepath.Clean(runDir))
	}
	in := bench.ScoreInput{Dataset: dataset, Samples: samples, Run: run, Reviews: map[string]report.Report{}}
	for _, rs := range run.Samples {
		if rs.Status != bench.StatusDone {
			continue
		}
		rel := rs.Review
		if rel == "" {
			rel = filepath.Join("reviews", rs.ID+".json")
		}
		if !filepath.IsLocal(rel) {
			return bench.ScoreInput{}, fmt.Errorf("%s: sample %s: review %q is outside the run directory", manifest, rs.ID, rel)
		}
		path := filepath.Join(runDir, rel)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return bench.ScoreInput{}, fmt.Errorf("read the review of %s: %w", rs.ID, err)
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return bench.ScoreInput{}, fmt.Errorf("read %s: %w (re-run the sample with council bench run --only %s)", path, err, rs.ID)
		}
		in.Reviews[rs.ID] = rep
	}
	return in, nil
}

// marshalIndent is v as indented JSON with a final newline; Markdown bodies keep their < and >.
func marshalIndent(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// printScore sums a score up for a person: the placement table (up front, collapsed, all
// shown) to paste into a note, every tier of each placement with its intervals, each
// reviewer up front and in all, then volume, redundancy, cost (by part) and time per PR, and
// what was left out.
func printScore(w io.Writer, sc bench.Score) error {
	fmt.Fprintf(w, "run %s: %s scored, %s, %s", sc.Run, plural(sc.Samples, "sample"), plural(sc.TruthItems, "truth item"), plural(sc.Findings, "finding"))
	if len(sc.Placements) > 1 {
		fmt.Fprintf(w, " (%d up front, %d collapsed)", sc.Placements[0].Findings, sc.Placements[1].Findings)
	}
	if len(sc.NotScored) > 0 {
		fmt.Fprintf(w, "; %d not scored", len(sc.NotScored))
	}
	fmt.Fprint(w, "\n\n")
	runs := []benchreport.Run{{Name: sc.Run, Score: sc}}
	if err := benchreport.HeadlineMarkdown(w, runs); err != nil {
		return err
	}

	fmt.Fprintf(w, "\n%-9s  %-4s  %-32s  %-18s  %-18s  %-18s  %5s  %5s  %5s  %s\n", "placement", "tier", "hit when", "precision", "recall", "F1", "TP", "FP", "FN", "PRs caught")
	// Without resamples there is no interval: [0.00, 0.00] would read as one.
	withCI := func(v float64, ci [2]float64) string {
		if sc.Options.Bootstrap <= 0 {
			return fmt.Sprintf("%.2f", v)
		}
		return fmt.Sprintf("%.2f [%.2f, %.2f]", v, ci[0], ci[1])
	}
	for _, p := range sc.Placements {
		for _, t := range p.Tiers {
			fmt.Fprintf(w, "%-9s  %-4s  %-32s  %-18s  %-18s  %-18s  %5d  %5d  %5d  %s\n", strings.ReplaceAll(p.Placement, "_", " "), t.Tier, t.Description,
				withCI(t.Micro.Precision, t.Micro.PrecisionCI), withCI(t.Micro.Recall, t.Micro.RecallCI),
				withCI(t.Micro.F1, t.Micro.F1CI), t.TP, t.FP, t.FN, fmt.Sprintf("%d/%d", t.PRsCaught.N, t.PRsCaught.Of))
		}
	}
	if sc.Options.Bootstrap > 0 {
		fmt.Fprintf(w, "micro-averaged; [95%% bootstrap interval over %d resamples of the samples]\n", sc.Options.Bootstrap)
	} else {
		fmt.Fprintln(w, "micro-averaged; no intervals (--bootstrap 0)")
	}
	if len(sc.ByReviewer) > 0 {
		fmt.Fprintln(w, "\nby reviewer, up front / all shown (each one's findings matched alone):")
		if err := benchreport.ReviewersMarkdown(w, runs); err != nil {
			return err
		}
	}

	fmt.Fprintf(w, "\nfindings per PR %.1f, redundancy %.1f%% (%d duplicates)\n", sc.FindingsPerPR, 100*sc.Redundancy, sc.Duplicates)
	fmt.Fprintf(w, "cost per PR $%.4f mean, $%.4f median, $%.2f in all; %.0fs mean, %.0fs max\n",
		sc.Cost.Mean, sc.Cost.Median, sc.Cost.Total, sc.Time.Mean, sc.Time.Max)
	if j := sc.Judge; j != nil {
		fmt.Fprintf(w, "judge %s: %d pairs (%d cached, %d failed), %d plausible and %d fabricated unmatched findings, $%.4f\n",
			j.Model, j.Pairs, j.Cached, j.Errors, j.Plausible, j.Fabricated, j.CostUSD)
	}
	if a := sc.Acceptance; a != nil {
		printAcceptance(w, *a)
	}
	var parts bytes.Buffer
	if err := benchreport.CostMarkdown(&parts, runs); err != nil {
		return err
	}
	if parts.Len() > 0 {
		fmt.Fprintf(w, "\ncost per PR by part:\n%s", parts.String())
	}
	if len(sc.NotScored) > 0 {
		fmt.Fprintln(w, "\nnot scored:")
		for _, n := range sc.NotScored {
			fmt.Fprintf(w, "  %s: %s\n", n.ID, n.Reason)
		}
	}
	return nil
}

// printByAuthor is score.json's recall_by_author as a table: one row per truth author, one
// column per tier, each "recall (hits/total)".
func printByAuthor(w io.Writer, sc bench.Score) {
	var tiers []string
	rows := map[string]map[string]bench.Rate{}
	var authors []string
	for _, t := range sc.Tiers {
		tiers = append(tiers, t.Tier)
		for _, r := range sc.ByAuthor[t.Tier] {
			if rows[r.Group] == nil {
				rows[r.Group] = map[string]bench.Rate{}
				authors = append(authors, r.Group)
			}
			rows[r.Group][t.Tier] = r
		}
	}
	slices.Sort(authors)
	fmt.Fprintf(w, "\nrecall by truth author:\n%-20s", "author")
	for _, t := range tiers {
		fmt.Fprintf(w, "  %-16s", t)
	}
	fmt.Fprintln(w)
	for _, a := range authors {
		fmt.Fprintf(w, "%-20s", a)
		for _, t := range tiers {
			r := rows[a][t]
			fmt.Fprintf(w, "  %-16s", fmt.Sprintf("%.2f (%d/%d)", r.Recall, r.Hits, r.Total))
		}
		fmt.Fprintln(w)
	}
}

// readAcceptance reads a signals file and counts what happened to council's posted comments.
func readAcceptance(path string) (*bench.Acceptance, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--signals: %w", err)
	}
	defer fh.Close()
	signals, err := learn.ReadSignals(fh)
	if err != nil {
		return nil, fmt.Errorf("--signals %s: %w", path, err)
	}
	st := learn.ComputeStats(signals)
	count := func(b learn.Bucket, reviewer string) bench.AcceptanceCount {
		return bench.AcceptanceCount{Reviewer: reviewer, Accepted: b.Accepted, Rejected: b.Rejected, Ignored: b.Ignored, Total: b.Total, Rate: b.Rate}
	}
	acc := &bench.Acceptance{Signals: path, Overall: count(st.Overall, ""), ByReviewer: []bench.AcceptanceCount{}}
	for _, b := range st.ByReviewer {
		acc.ByReviewer = append(acc.ByReviewer, count(b, b.Key))
	}
	return acc, nil
}

// printAcceptance is the acceptance lines of the score: overall, then per reviewer.
func printAcceptance(w io.Writer, a bench.Acceptance) {
	line := func(c bench.AcceptanceCount) string {
		return fmt.Sprintf("%.2f (%d of %d accepted; %d rejected, %d ignored)", c.Rate, c.Accepted, c.Total, c.Rejected, c.Ignored)
	}
	fmt.Fprintf(w, "acceptance of posted comments %s, from %s\n", line(a.Overall), a.Signals)
	for _, c := range a.ByReviewer {
		name := c.Reviewer
		if name == "" {
			name = "(unknown)"
		}
		fmt.Fprintf(w, "  %-22s %s\n", name, line(c))
	}
}
