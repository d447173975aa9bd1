// Package engine runs the review pipeline on one change: source -> plan -> reviewers -> anchor ->
// consolidate -> report. It wires the stages together and owns their effects (git, the model
// client, the clock); the stages themselves stay pure. It must never import a provider SDK: the
// caller hands it a function that makes the client.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/council-dev/council/internal/anchor"
	"github.com/council-dev/council/internal/codecontext"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/consolidate"
	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/instructions"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/ledger"
	"github.com/council-dev/council/internal/plan"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/review"
	"github.com/council-dev/council/internal/rules"
	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/tools"
	"github.com/council-dev/council/internal/validate"
)

// ConfigFile is the repository's config, read from the base revision.
const ConfigFile = ".council.yaml"

// PersonaDir and LensDir hold the repository's reviewer documents, read from the base revision.
const (
	PersonaDir = ".council/personas"
	LensDir    = ".council/lenses"
)

// Options say what to review and how. Zero values mean "from config, else the default".
type Options struct {
	Repo       string
	Base, Head string
	ConfigPath string // a local file that replaces the base revision's .council.yaml

	// Overrides from the command line, applied over the config.
	Provider        string
	DefaultProvider string // when neither the flag nor the config names one
	Model           string
	Lenses          []string
	PersonaFiles    []string // local files, added to the repository's personas
	Concurrency     int
	MaxUSD          float64
	// Title and Body replace the commit messages as the change's description (a pull
	// request's); untrusted like them.
	Title, Body string
	// Since, when set, limits the review to the files changed between it and head (a re-run
	// after a push reviews what the push changed); the other files are skipped, saying why.
	Since string

	NoTools    bool // reviewers see only the prompt, no repository tools
	NoValidate bool // findings are not checked by the validator
	RulesOnly  bool // only the deterministic rules run: no model at all

	// NoDownload, when set, keeps read_dependency from downloading a module version the
	// module cache lacks, whatever tools.download_modules says, and is what the model is told
	// why (council serve without COUNCIL_DOWNLOAD_MODULES).
	NoDownload string
	// Env is the environment the go command gets to find the module cache and download
	// modules into it (GOMODCACHE, GOPROXY, GOPRIVATE, ...); nil: the process's.
	Env []string

	// LearningsFile is a learnings file on disk used instead of the base revision's
	// .council/learnings.yaml (council bench run --learnings): the caller vouches for it, so
	// unlike the base revision's, one that cannot be read or parsed is an error.
	LearningsFile string
	NoLearnings   bool // no learnings at all, wherever they are

	Version string
	Now     func() time.Time // time.Now when nil
}

// Session is a change loaded with its config and reviewers, ready to plan and run.
type Session struct {
	Change       source.Change
	Config       config.Config
	Reviewers    []review.Reviewer
	Instructions []instructions.Instruction // from the base revision
	// Learnings are the learnings of the base revision (or Options.LearningsFile) that apply
	// to the changed files: given to the reviewers, and the suppress ones applied to their
	// findings after validation.
	Learnings []learn.Learning
	// ConfigSource says where Config came from: the --config file, .council.yaml@<base>, or
	// "defaults" when the base revision has none.
	ConfigSource string

	input   review.Input    // what the reviewers were shown, once planned
	context report.Context  // what the context engine added, for the report
	since   map[string]bool // files changed since Options.Since; nil reviews every file
	notes   []string        // degraded notes from Open, for the report
	git     *source.Git
	opts    Options
	// switched is set when --provider replaced the config's provider: the config's models,
	// per reviewer ones included, name another provider's models then.
	switched bool
	stages   *ledger.Stages
	heads    sync.Map // path -> []string, file content at head
	// toolLimits are made once, so that the conversations of the run share one module cache
	// and its downloads.
	toolLimits func() tools.Limits
}

// Open loads the change and the config that applies to it (from the base revision).
func Open(ctx context.Context, o Options) (_ *Session, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Session{opts: o, stages: ledger.NewStages(o.Now)}
	s.toolLimits = sync.OnceValue(s.newToolLimits)
	defer func() {
		if err != nil && s.git != nil {
			_ = s.git.Close()
		}
	}()
	stop := s.stages.Start("source")
	defer stop()

	repo := o.Repo
	if repo == "" {
		repo = "."
	}
	g, err := source.OpenGit(ctx, repo)
	if err != nil {
		return nil, err
	}
	s.git = g
	base := o.Base
	if base == "" {
		if base, err = g.DefaultBase(ctx); err != nil {
			return nil, err
		}
	}
	head := o.Head
	if head == "" {
		head = "HEAD"
	}
	if s.Change, err = g.Load(ctx, base, head); err != nil {
		return nil, err
	}
	if o.Title != "" || o.Body != "" {
		s.Change.Title, s.Change.Body = o.Title, o.Body
	}
	if o.Since != "" {
		if s.since, err = g.ChangedFiles(ctx, o.Since, s.Change.HeadSHA); err != nil {
			return nil, fmt.Errorf("find what changed since the last reviewed head: %w", err)
		}
	}
	if s.Config, err = s.loadConfig(ctx); err != nil {
		return nil, err
	}
	s.applyOverrides()
	if o.RulesOnly {
		return s, nil
	}
	if s.Reviewers, err = s.loadReviewers(ctx); err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range s.Change.Files {
		changed = append(changed, f.Path())
	}
	// From the base branch, like the config: the change cannot instruct its own reviewers.
	if s.Instructions, err = instructions.Load(ctx, s.git, s.Change.BaseTip, changed, s.Config.Instructions); err != nil {
		return nil, fmt.Errorf("read repository instructions at base: %w", err)
	}
	if err := s.loadLearnings(ctx, changed); err != nil {
		return nil, err
	}
	return s, nil
}

// loadLearnings reads .council/learnings.yaml from the base revision, like the config: a pull
// request that adds or edits learnings cannot teach council to overlook its own problems. It
// is never read from the head or the work tree. A file that is missing holds no learnings; one
// that cannot be read or parsed costs only the learnings: the review goes on and says so.
func (s *Session) loadLearnings(ctx context.Context, changed []string) error {
	if s.opts.NoLearnings {
		return nil
	}
	var f learn.File
	if name := s.opts.LearningsFile; name != "" {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("read learnings: %w", err)
		}
		if f, err = learn.Parse(name, data); err != nil {
			return fmt.Errorf("read learnings: %w", err)
		}
	} else {
		source := learn.Path + "@" + short(s.Change.BaseTip)
		data, err := s.git.ReadFile(ctx, s.Change.BaseTip, learn.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			s.notes = append(s.notes, fmt.Sprintf("learnings not used: read %s: %v", source, err))
			return nil
		}
		if f, err = learn.Parse(source, data); err != nil {
			// The error names the file, line and column.
			s.notes = append(s.notes, "learnings not used: "+err.Error())
			return nil
		}
	}
	s.Learnings = f.For(changed)
	return nil
}

// Close stops what the session keeps running to read the repository fast.
func (s *Session) Close() error { return s.git.Close() }

// loadConfig reads .council.yaml from the base revision (the commit --base names, as a pull
// request's base branch): the change under review must not be able to rewrite its own
// reviewer's configuration.
func (s *Session) loadConfig(ctx context.Context) (config.Config, error) {
	if s.opts.ConfigPath != "" {
		data, err := os.ReadFile(s.opts.ConfigPath)
		if err != nil {
			return config.Config{}, fmt.Errorf("read config: %w", err)
		}
		s.ConfigSource = s.opts.ConfigPath
		return config.Parse(s.opts.ConfigPath, data)
	}
	data, err := s.git.ReadFile(ctx, s.Change.BaseTip, ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		s.ConfigSource = "defaults"
		return config.Default(), nil
	}
	if err != nil {
		return config.Config{}, fmt.Errorf("read %s at base: %w", ConfigFile, err)
	}
	s.ConfigSource = ConfigFile + "@" + short(s.Change.BaseTip)
	return config.Parse(s.ConfigSource, data)
}

func (s *Session) applyOverrides() {
	s.Config, s.switched = Settle(s.Config, s.opts)
}

// Settle applies the command line's overrides (provider, model, lenses, concurrency, budget)
// to a config, as Open does: the provider from the flag, else the config, else the default
// one; the model from the flag, else the config (unless the flag switched providers), else
// the provider's default. switched says the flag replaced the config's provider.
func Settle(c config.Config, o Options) (_ config.Config, switched bool) {
	if c.Provider == "" {
		c.Provider = o.DefaultProvider
	}
	if c.Provider == "" {
		c.Provider = "anthropic"
	}
	if o.Provider != "" && o.Provider != c.Provider {
		c.Provider = o.Provider
		switched = true
		if o.Model == "" {
			c.Model = "" // the config's model belongs to the config's provider
		}
	}
	if o.Model != "" {
		c.Model = o.Model
	}
	if c.Model == "" {
		c.Model = config.DefaultModel(c.Provider)
	}
	if len(o.Lenses) > 0 {
		c.Lenses = o.Lenses
	}
	if o.Concurrency > 0 {
		c.Concurrency = o.Concurrency
	}
	if o.MaxUSD > 0 {
		c.Budget.MaxUSD = o.MaxUSD
	}
	return c, switched
}

// loadReviewers selects the lenses (built in, or overridden by .council/lenses at base) and the
// personas (.council/personas at base, or as the config lists them, plus --personas files).
func (s *Session) loadReviewers(ctx context.Context) ([]review.Reviewer, error) {
	lenses := review.Builtin()
	overrides, err := s.readDocs(ctx, LensDir, nil, review.Lens)
	if err != nil {
		return nil, err
	}
	for _, o := range overrides {
		replaced := false
		for i := range lenses {
			if lenses[i].Name == o.Name {
				lenses[i], replaced = o, true
			}
		}
		if !replaced {
			lenses = append(lenses, o)
		}
	}
	// config.Default lists the three built-in lenses; an explicit "lenses: []" runs personas only.
	selected, err := review.Lookup(lenses, s.Config.Lenses)
	if err != nil {
		return nil, fmt.Errorf("select lenses: %w", err)
	}

	personas, err := s.readDocs(ctx, PersonaDir, s.Config.Personas, review.Persona)
	if err != nil {
		return nil, err
	}
	local := map[string][]byte{}
	for _, p := range s.opts.PersonaFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read persona: %w", err)
		}
		local[p] = data
	}
	if len(local) > 0 {
		more, err := review.LoadDir(local)
		if err != nil {
			return nil, err
		}
		if err := checkKind(more, review.Persona); err != nil {
			return nil, err
		}
		personas = append(personas, more...)
	}
	all := append(selected, personas...)
	seen := map[string]string{rules.Reviewer: "the rules of .council.yaml"}
	for _, r := range all {
		if prev, ok := seen[r.Name]; ok {
			return nil, fmt.Errorf("reviewer %q is defined twice (%s and %s): rename one", r.Name, prev, r.Location)
		}
		seen[r.Name] = r.Location
	}
	if len(all) == 0 {
		return nil, errors.New("no reviewers to run: lenses is empty and there are no personas (list lenses in .council.yaml or --lenses, or add personas)")
	}
	known := map[string]bool{}
	for _, r := range append(lenses, personas...) {
		known[r.Name] = true
	}
	for name := range s.Config.Reviewers {
		if !known[name] {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("config: reviewers.%s names no lens or persona (known: %s)", name, strings.Join(names, ", "))
		}
	}
	return all, nil
}

func checkKind(rs []review.Reviewer, want review.Kind) error {
	for _, r := range rs {
		if r.Kind != want {
			return fmt.Errorf("%s: kind is %q, but it is loaded as a %s: set kind: %s, or move it", r.Location, r.Kind, want, want)
		}
	}
	return nil
}

// readDocs reads reviewer documents of one kind at the base revision: the listed files, or
// every .yaml, .yml and .md file under dir when none are listed.
func (s *Session) readDocs(ctx context.Context, dir string, listed []string, kind review.Kind) ([]review.Reviewer, error) {
	files := listed
	if len(files) == 0 {
		all, err := s.git.ListFiles(ctx, s.Change.BaseTip, dir)
		if err != nil {
			return nil, err
		}
		for _, f := range all {
			switch path.Ext(f) {
			case ".yaml", ".yml", ".md":
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	docs := map[string][]byte{}
	for _, f := range files {
		data, err := s.git.ReadFile(ctx, s.Change.BaseTip, f)
		if err != nil {
			return nil, fmt.Errorf("read reviewer document %s at base %s: %w", f, short(s.Change.BaseTip), err)
		}
		docs[f] = data
	}
	rs, err := review.LoadDir(docs)
	if err != nil {
		return nil, err
	}
	return rs, checkKind(rs, kind)
}

// ModelFor is the model a reviewer runs on: --model for every reviewer when given; else the
// config's per-reviewer override, then the reviewer document's model, then the config's
// model. After --provider switched providers, only --model or the new provider's default apply.
func (s *Session) ModelFor(r review.Reviewer) string {
	if s.opts.Model != "" || s.switched {
		return s.Config.Model
	}
	if o, ok := s.Config.Reviewers[r.Name]; ok && o.Model != "" {
		return o.Model
	}
	if r.Model != "" {
		return r.Model
	}
	return s.Config.Model
}

// Plan decides what is reviewed, in which units.
func (s *Session) Plan(ctx context.Context) (plan.Plan, review.Input) {
	stop := s.stages.Start("plan")
	head := func(p string) []string { return s.headLines(ctx, p) }
	files, unchanged := s.Change.Files, []plan.Skip(nil)
	if s.since != nil {
		files = nil
		for _, f := range s.Change.Files {
			if s.since[f.Path()] || s.since[f.OldPath] {
				files = append(files, f)
			} else {
				unchanged = append(unchanged, plan.Skip{Path: f.Path(), Reason: "unchanged since the last reviewed head " + short(s.opts.Since) + " (--full reviews it again)"})
			}
		}
	}
	p := plan.Make(files, plan.Options{
		BudgetTokens: s.Config.Budget.TokensPerRequest,
		Include:      s.Config.Paths.Include,
		Exclude:      s.Config.Paths.Exclude,
		Head:         head,
		ExtraContext: s.Config.ContextLines,
	})
	p.Skipped = append(p.Skipped, unchanged...)
	stop()
	in := review.Input{
		// The directory's name, not its path: the prompt must not change with where the checkout
		// lives, or neither the provider's cache nor --replay would recognise it elsewhere.
		Repo: filepath.Base(s.Change.Repo), Base: s.Change.Base, Head: s.Change.Head,
		BaseSHA: s.Change.BaseSHA, HeadSHA: s.Change.HeadSHA,
		Title: s.Change.Title, Body: s.Change.Body, Files: s.Change.Files,
	}
	if s.validates() && !s.opts.RulesOnly {
		// The validator's checks share the reviewers' prefix, tools included.
		in.AnswerTools = []provider.Tool{validate.Tool()}
	}
	for _, sk := range p.Skipped {
		in.Skipped = append(in.Skipped, sk.Path+" ("+sk.Reason+")")
	}
	for _, u := range p.Units {
		ru := review.Unit{Diff: diff.RenderAll(u.Files, head, s.Config.ContextLines)}
		for _, f := range u.Files {
			ru.Files = append(ru.Files, f.Path())
		}
		ru.Instructions = instructions.Render(scope(s.Instructions, ru.Files))
		if len(s.Learnings) > 0 {
			ru.Learnings = learn.Prompt(learn.File{Learnings: s.Learnings}.For(ru.Files))
		}
		ru.Context = s.codeContext(ctx, u.Files, u.Tokens)
		in.Units = append(in.Units, ru)
	}
	s.input = in
	return p, in
}

// codeContext is what a unit's reviewers see beyond its hunks: the declarations that enclose
// them and the definitions the changed lines use, within a budget that grows with the unit. A
// failure only costs the context: the review goes on, and says so.
func (s *Session) codeContext(ctx context.Context, files []diff.File, unitTokens int) string {
	if s.opts.RulesOnly {
		return ""
	}
	stop := s.stages.Start("context")
	defer stop()
	res, err := codecontext.Build(ctx, s.git, files, s.Change.BaseSHA, s.Change.HeadSHA, codecontext.Options{BudgetTokens: codecontext.Budget(unitTokens)})
	if err != nil {
		s.context.Omitted = append(s.context.Omitted, "context engine failed: "+err.Error())
		return ""
	}
	for _, sn := range res.Snippets {
		s.context.Snippets = append(s.context.Snippets, report.ContextSnippet{
			Path: sn.Path, Side: sn.Side, StartLine: sn.StartLine, EndLine: sn.EndLine, Kind: sn.Kind, Symbol: sn.Symbol,
		})
	}
	s.context.Omitted = append(s.context.Omitted, res.Omitted...)
	return codecontext.Render(res)
}

// scope keeps the instructions that apply to files, each narrowed to those files.
func scope(is []instructions.Instruction, files []string) []instructions.Instruction {
	var out []instructions.Instruction
	for _, in := range is {
		var applies []string
		for _, f := range in.AppliesTo {
			if slices.Contains(files, f) {
				applies = append(applies, f)
			}
		}
		if len(applies) > 0 {
			in.AppliesTo = applies
			out = append(out, in)
		}
	}
	return out
}

// Input is what the reviewers were shown (empty before Run or DryRun).
func (s *Session) Input() review.Input { return s.input }

// HeadText is a file at head with numbered lines ("  12 | code"), at most maxLines of them,
// for a model that must judge the code as it is now.
func (s *Session) HeadText(ctx context.Context, path string, maxLines int) (string, error) {
	data, err := s.git.ReadFile(ctx, s.Change.HeadSHA, path)
	if err != nil {
		return "", err
	}
	if isBinary(data) {
		return "", fmt.Errorf("%s is a binary file", path)
	}
	var b strings.Builder
	for i, l := range diff.SplitLines(data) {
		if i == maxLines {
			fmt.Fprintf(&b, "[%s continues: only the first %d lines are shown]\n", path, maxLines)
			break
		}
		fmt.Fprintf(&b, "%5d | %s\n", i+1, l)
	}
	return b.String(), nil
}

// headLines returns a file's lines at head, read once; nil when unreadable (deleted, binary,
// too large), in which case the renderer shows only the hunks.
func (s *Session) headLines(ctx context.Context, p string) []string {
	if v, ok := s.heads.Load(p); ok {
		return v.([]string)
	}
	data, err := s.git.ReadFile(ctx, s.Change.HeadSHA, p)
	var lines []string
	if err == nil && !isBinary(data) {
		lines = diff.SplitLines(data)
	}
	s.heads.Store(p, lines)
	return lines
}

func isBinary(b []byte) bool {
	n := len(b)
	if n > 8000 {
		n = 8000
	}
	for _, c := range b[:n] {
		if c == 0 {
			return true
		}
	}
	return false
}

// Requests are the first requests a run would send, per reviewer and unit, for --dry-run.
func (s *Session) Requests(in review.Input) [][]provider.Request {
	o := s.reviewOptions(nil)
	out := make([][]provider.Request, len(s.Reviewers))
	for i, r := range s.Reviewers {
		for u := range in.Units {
			out[i] = append(out[i], o.FirstTurn(review.Request(in, u, r, s.ModelFor(r), s.Config.Budget.MaxOutputTokens)))
		}
	}
	return out
}

// Run reviews the planned change with the client and builds the report. With RulesOnly the
// client is not used and may be nil.
func (s *Session) Run(ctx context.Context, client review.Completer, prices provider.Prices) report.Report {
	p, in := s.Plan(ctx)
	rep := s.baseReport(p)
	rep.Instructions = instructionUses(s.Instructions)
	rep.Context = s.context
	var raw []finding.Finding
	var total, warmup provider.Usage
	given := givenFiles(p.Units)

	var guard *ledger.Guard
	if !s.opts.RulesOnly {
		guard = ledger.NewGuard(client, ledger.Budget{MaxUSD: s.Config.Budget.MaxUSD, MaxTokens: s.Config.Budget.MaxTokens}, prices)
		stop := s.stages.Start("review")
		results, warm := review.Run(ctx, guard, in, s.Reviewers, s.reviewOptions(prices))
		stop()
		for _, r := range results {
			raw = append(raw, r.Findings...)
			examined, calls := audit(r.Boxes)
			var missed []string
			for _, u := range r.FailedUnits {
				missed = append(missed, in.Units[u].Files...)
			}
			rep.Reviewers = append(rep.Reviewers, reviewerEntry(r.Reviewer, r.Model, report.Reviewer{
				Summary: r.Summary, Errors: r.Errors, Warnings: r.Warnings, Units: r.Units, Raised: len(r.Findings),
				Usage: r.Usage, WallSecs: r.Wall.Seconds(), Succeeded: r.Succeeded, Given: given,
				Examined: examined, ToolCalls: calls, Missed: missed,
			}))
			total = total.Add(r.Usage)
		}
		warmup = warm.Usage
		total = total.Add(warmup)
		for _, e := range warm.Errors {
			rep.Degraded = append(rep.Degraded, "prompt cache warm-up failed, so reviewers may have paid for the whole prompt: "+e)
		}

		for _, m := range s.unpriced(prices) {
			rep.Degraded = append(rep.Degraded, fmt.Sprintf("model %s has no price: its cost shows as $0 (add it under prices: in .council.yaml)", m))
		}
	}

	// The repository's own rules need no model and are never sent to the validator.
	if len(s.Config.Rules) > 0 {
		found := rules.Check(s.Config.Rules, s.Change.Files)
		raw = append(raw, found...)
		rep.Reviewers = append(rep.Reviewers, rulesReviewer(s.Config.Rules, len(found), given))
	}

	stop := s.stages.Start("anchor")
	anchored, _ := anchor.Anchor(s.Change.Files, raw)
	stop()
	// Merge first, then validate each merged issue once, seeing every reviewer's version of
	// it; caps and floors apply to what the validator kept.
	stop = s.stages.Start("consolidate")
	merged, _ := consolidate.Consolidate(anchored, consolidate.Options{})
	stop()
	if guard != nil {
		merged = s.validate(ctx, guard, in, merged, prices, &rep)
		total = total.Add(rep.Validation.Usage)
		if n := guard.Refused(); n > 0 {
			rep.Degraded = append(rep.Degraded, fmt.Sprintf("the budget stopped the run: %d model request(s) not sent (budget.max_usd %.2f, budget.max_tokens %d)", n, s.Config.Budget.MaxUSD, s.Config.Budget.MaxTokens))
		}
	}
	consolidate.Filter(merged, consolidate.Options{
		MaxPerReviewer: s.Config.Comments.MaxPerReviewer,
		SeverityFloor:  s.Config.Comments.SeverityFloor,
		MinConfidence:  s.Config.Comments.MinConfidence,
	})
	// Last, so that what a learning suppresses is what would otherwise have been shown; and a
	// suppressed finding is never put up front.
	rep.Learnings = s.suppress(merged)
	s.promote(merged, rep.Learnings)
	rep.Findings = merged

	rep.Usage = s.usage(total)
	rep.Usage.CacheWarmup = warmup
	return rep
}

// validate has each finding checked by a second model call, unless validation is off; what it
// rejects stays in the report as filtered, with the reason.
func (s *Session) validate(ctx context.Context, c review.Completer, in review.Input, fs []finding.Finding, prices provider.Prices, rep *report.Report) []finding.Finding {
	if !s.validates() {
		rep.Degraded = append(rep.Degraded, "validation is off (--no-validate or validate.enabled: false): findings were not checked by a second model call")
		return fs
	}
	if len(fs) == 0 {
		rep.Validation.Enabled = true
		return fs
	}
	o := s.reviewOptions(prices)
	stop := s.stages.Start("validate")
	res := validate.Run(ctx, c, in, fs, validate.Options{
		Model: s.Config.Model, Concurrency: o.Concurrency, Cost: o.Cost,
		NewToolbox: o.NewToolbox, Limits: o.Limits,
		Unchecked: []string{rules.Reviewer},
	})
	stop()
	rep.Validation = report.Validation{
		Enabled: true, Checked: res.Checked, Rejected: res.Rejected, Lowered: res.Lowered, Narrowed: res.Narrowed,
		Minor: res.Minor, Merged: res.Merged, Requests: res.Requests, Errors: res.Errors, Usage: res.Usage,
	}
	if len(res.Errors) > 0 {
		rep.Degraded = append(rep.Degraded, fmt.Sprintf("validation failed for %d of %d findings: they are shown unchecked", len(res.Errors), len(fs)))
	}
	return res.Findings
}

// rulesReviewer is the report entry of the deterministic rules.
func rulesReviewer(rs []config.Rule, found int, given []report.GivenFile) report.Reviewer {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return report.Reviewer{
		Name: rules.Reviewer, Title: "Rules", Emoji: "📏", Kind: "rules", Alert: "IMPORTANT",
		Focus: names, Noun: "rule violation", Model: "none", Raised: found, Succeeded: true, Given: given,
	}
}

// givenFiles lists the files and hunks of the units, as every reviewer is given them.
func givenFiles(units []plan.Unit) []report.GivenFile {
	var out []report.GivenFile
	for _, u := range units {
		for _, f := range u.Files {
			g := report.GivenFile{Path: f.Path()}
			for _, h := range f.Hunks {
				g.Hunks = append(g.Hunks, fmt.Sprintf("-%d,%d +%d,%d", h.OldStart, h.OldLines, h.NewStart, h.NewLines))
			}
			out = append(out, g)
		}
	}
	return out
}

// suppress applies the suppress learnings to the findings (consolidate.Suppress: filtered with
// "learning <id>: <text>", never dropped, never a critical one) and returns every learning
// used, with how many findings each suppressed.
func (s *Session) suppress(found []finding.Finding) []report.LearningUse {
	uses := learningUses(s.Learnings)
	var ss []consolidate.Suppression
	var at []int
	for i, l := range s.Learnings {
		if l.Kind != learn.Suppress {
			continue
		}
		ss = append(ss, consolidate.Suppression{
			Reason: "learning " + l.ID + ": " + strings.Join(strings.Fields(l.Text), " "),
			Match:  l.Suppresses,
		})
		at = append(at, i)
	}
	for k, n := range consolidate.Suppress(found, ss) {
		uses[at[k]].Suppressed = n
	}
	return uses
}

// promote puts up front, as nits, the minor findings that an ask learning promotes (the
// validator named the ask, and its scope matches), at most comments.max_ask_nits of them: the
// learnings with the most evidence first, then the findings most severe and most confident.
// Each says which learning put it there; uses counts them. Nothing else changes: a finding
// the validator kept for attention is never touched, and no severity is lowered.
func (s *Session) promote(found []finding.Finding, uses []report.LearningUse) {
	type candidate struct{ finding, learning int }
	var cs []candidate
	for i, fd := range found {
		for k, l := range s.Learnings {
			if l.Promotes(fd) {
				cs = append(cs, candidate{i, k})
				break
			}
		}
	}
	weight := func(l learn.Learning) int { return max(len(l.Evidence), l.Counts[string(learn.Accepted)]) }
	sort.SliceStable(cs, func(a, b int) bool {
		la, lb := s.Learnings[cs[a].learning], s.Learnings[cs[b].learning]
		fa, fb := found[cs[a].finding], found[cs[b].finding]
		switch {
		case weight(la) != weight(lb):
			return weight(la) > weight(lb)
		case fa.Severity.Rank() != fb.Severity.Rank():
			return fa.Severity.Rank() > fb.Severity.Rank()
		default:
			return fa.Confidence > fb.Confidence
		}
	})
	for _, c := range cs[:min(len(cs), s.Config.Comments.MaxAskNits)] {
		fd, l := &found[c.finding], s.Learnings[c.learning]
		fd.Status = finding.OtherNote
		if fd.Anchored {
			fd.Status = finding.Reported
		}
		ref := &finding.LearningRef{ID: l.ID, Text: strings.Join(strings.Fields(l.Text), " ")}
		for _, e := range l.Evidence {
			ref.Evidence = append(ref.Evidence, e.URL)
		}
		fd.Learning = ref
		uses[c.learning].Promoted++
	}
}

func learningUses(ls []learn.Learning) []report.LearningUse {
	if len(ls) == 0 {
		return nil
	}
	out := make([]report.LearningUse, len(ls))
	for i, l := range ls {
		out[i] = report.LearningUse{ID: l.ID, Kind: l.Kind, Text: l.Text}
	}
	return out
}

func instructionUses(is []instructions.Instruction) []report.Instruction {
	out := make([]report.Instruction, len(is))
	for i, in := range is {
		out[i] = report.Instruction{Source: in.Source, AppliesTo: in.AppliesTo}
	}
	return out
}

// DryRun builds the report of a run that stops before the model: the plan, and what each
// request would cost. The requests themselves are returned for --record.
func (s *Session) DryRun(ctx context.Context, prices provider.Prices) (report.Report, [][]provider.Request) {
	p, in := s.Plan(ctx)
	reqs := s.Requests(in)
	rep := s.baseReport(p)
	rep.DryRun = true
	rep.Instructions = instructionUses(s.Instructions)
	rep.Learnings = learningUses(s.Learnings)
	rep.Context = s.context
	per, warm := review.Estimate(in, s.Reviewers, s.reviewOptions(prices), estimatedOutputTokens)
	est := report.Estimate{OutputTokensPerRequest: estimatedOutputTokens}
	for i, r := range s.Reviewers {
		rep.Reviewers = append(rep.Reviewers, reviewerEntry(r, s.ModelFor(r), report.Reviewer{Units: len(in.Units), Usage: per[i]}))
		est.Usage = est.Usage.Add(per[i])
	}
	est.Usage = est.Usage.Add(warm)
	rep.Estimate = &est
	rep.Usage = s.usage(provider.Usage{})
	return rep, reqs
}

// unpriced lists the run's models that the price table does not know.
func (s *Session) unpriced(prices provider.Prices) []string {
	var out []string
	for _, m := range s.Models() {
		if _, ok := prices.Lookup(m); !ok {
			out = append(out, m)
		}
	}
	return out
}

// Models lists the models the run will call: the reviewers', and the validator's when it runs.
func (s *Session) Models() []string {
	var out []string
	for _, r := range s.Reviewers {
		if m := s.ModelFor(r); !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if s.validates() && len(s.Reviewers) > 0 && !slices.Contains(out, s.Config.Model) {
		out = append(out, s.Config.Model)
	}
	return out
}

func (s *Session) validates() bool { return !s.opts.NoValidate && s.Config.Validate.Enabled }

// reviewOptions are the options of the review stage, from the config.
func (s *Session) reviewOptions(prices provider.Prices) review.Options {
	return review.Options{
		Model:           s.ModelFor,
		MaxOutputTokens: s.Config.Budget.MaxOutputTokens,
		Concurrency:     s.Config.Concurrency,
		Cost: func(model string, u provider.Usage) float64 {
			c, _ := prices.Cost(model, u)
			return c
		},
		WarmCache:  true,
		Clock:      s.opts.Now,
		NewToolbox: s.toolbox(),
		Limits:     review.Limits{MaxTurns: s.Config.Tools.MaxTurns, MaxTokens: int64(s.Config.Tools.MaxTokens)},
	}
}

// toolbox makes each conversation's repository tools, reading the diff's two revisions; nil
// when tools are off.
func (s *Session) toolbox() func() review.Toolbox {
	if s.opts.NoTools || !s.Config.Tools.Enabled {
		return nil
	}
	l := s.toolLimits()
	return func() review.Toolbox { return tools.New(s.git, s.Change.BaseSHA, s.Change.HeadSHA, l) }
}

// newToolLimits are the tools' limits from the config, with the module cache read_dependency
// reads and, when allowed, what the go command needs to download into it.
func (s *Session) newToolLimits() tools.Limits {
	env := s.opts.Env
	if env == nil {
		env = os.Environ()
	}
	t := s.Config.Tools
	l := tools.Limits{MaxCalls: t.MaxCalls, MaxBytes: t.MaxBytes, MaxTotalBytes: t.MaxTotalBytes, ModuleCache: goModCache(env)}
	switch {
	case s.opts.NoDownload != "":
		l.NoDownload = s.opts.NoDownload
	case !t.DownloadModules:
		l.NoDownload = "tools.download_modules is false in " + s.ConfigSource
	default:
		l.Download = &tools.Download{Env: slices.DeleteFunc(slices.Clone(env), councilSecret)}
	}
	return l
}

// councilSecret reports whether an environment entry is one of council's own settings, which
// hold its model keys, its GitHub App's key and its database's password: the go command that
// downloads modules has no use for them.
func councilSecret(kv string) bool {
	for _, prefix := range []string{"ANTHROPIC_", "OPENAI_", "COUNCIL_", "GITHUB_APP_", "GITHUB_WEBHOOK_"} {
		if strings.HasPrefix(kv, prefix) {
			return true
		}
	}
	return false
}

// goModCache is the Go module cache the read_dependency tool reads: GOMODCACHE in env, else
// what `go env GOMODCACHE` says with env; "" without a go command (the tool then says the
// module is not on this machine). It runs outside the repository with GOTOOLCHAIN=local, so
// that no go.mod or go.work of the change can make it download a toolchain.
func goModCache(env []string) string {
	for _, kv := range slices.Backward(env) {
		if d, ok := strings.CutPrefix(kv, "GOMODCACHE="); ok && d != "" {
			return d
		}
	}
	cmd := exec.Command("go", "env", "GOMODCACHE")
	cmd.Dir = os.TempDir()
	cmd.Env = append(slices.Clone(env), "GOTOOLCHAIN=local", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// audit is a reviewer's trail through the repository tools: what it read, and every call.
func audit(boxes []review.Toolbox) (examined []string, calls []report.ToolCall) {
	seen := map[string]bool{}
	for _, b := range boxes {
		box, ok := b.(interface{ Calls() []tools.Call })
		if !ok {
			continue
		}
		for _, c := range box.Calls() {
			calls = append(calls, report.ToolCall{Tool: c.Tool, Input: c.Input, Bytes: c.Bytes, Truncated: c.Truncated, Error: c.Error,
				Download: c.Download, DownloadMS: c.DownloadMS})
			if c.Tool != tools.ReadFile || c.Error != "" {
				continue
			}
			e := fmt.Sprintf("%s@%s", c.Path, c.Rev)
			if c.Start > 0 {
				e += fmt.Sprintf(":%d-%d", c.Start, c.End)
			}
			if !seen[e] {
				seen[e] = true
				examined = append(examined, e)
			}
		}
	}
	return examined, calls
}

// estimatedOutputTokens is what a dry run assumes each review answers with.
const estimatedOutputTokens = 1500

func reviewerEntry(r review.Reviewer, model string, e report.Reviewer) report.Reviewer {
	e.Name, e.Title, e.Emoji, e.Kind, e.Alert = r.Name, r.Title, r.Emoji, string(r.Kind), r.Alert
	e.Focus, e.Noun, e.Model = r.Focus, r.Noun, model
	return e
}

func (s *Session) baseReport(p plan.Plan) report.Report {
	c := s.Change
	rep := report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "council", Version: s.opts.Version, Council: s.Config.CouncilName},
		Change: report.Change{
			Repo: c.Repo, Base: c.Base, Head: c.Head, BaseSHA: c.BaseSHA, HeadSHA: c.HeadSHA, Title: c.Title,
		},
		Coverage: report.Coverage{Reviewed: p.Reviewed},
		Degraded: slices.Clone(s.notes),
	}
	for _, f := range c.Files {
		cf := report.ChangeFile{Path: f.Path(), Status: string(f.Status), Binary: f.Binary, Added: f.Added, Deleted: f.Deleted}
		if f.Status == diff.Renamed || f.Status == diff.Copied {
			cf.OldPath = f.OldPath
		}
		rep.Change.Files = append(rep.Change.Files, cf)
	}
	for _, sk := range p.Skipped {
		rep.Coverage.Skipped = append(rep.Coverage.Skipped, report.Skipped{Path: sk.Path, Reason: sk.Reason})
	}
	for _, u := range p.Units {
		ru := report.Unit{EstimatedTokens: u.Tokens}
		for _, f := range u.Files {
			ru.Files = append(ru.Files, f.Path())
		}
		rep.Coverage.Units = append(rep.Coverage.Units, ru)
	}
	return rep
}

func (s *Session) usage(total provider.Usage) report.Usage {
	stages, wall := s.stages.Seconds()
	return report.Usage{Usage: total, WallSeconds: wall, Stages: stages}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
