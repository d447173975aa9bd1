package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/github"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/source"
)

// BenchMirrorOptions are the flags of `council bench mirror`.
type BenchMirrorOptions struct {
	Sample   string // the sample file, <id>.json
	To       string // owner/repo of the sandbox repository
	Clone    string
	PushURL  string
	NoReview bool
	// Passed through to council review.
	Provider, Model      string
	Lenses, Personas     []string
	RecordDir, ReplayDir string
	Layout               string
	Overview             bool
}

// NewCmdBenchMirror declares `council bench mirror`. runF replaces the behaviour in
// flag-parsing tests.
func NewCmdBenchMirror(f *Factory, runF func(context.Context, *BenchMirrorOptions) error) *cobra.Command {
	opts := &BenchMirrorOptions{}
	cmd := &cobra.Command{
		Use:   "mirror SAMPLE --to OWNER/REPO",
		Short: "Open a sample as a pull request on a sandbox repository and post the council's review on it",
		Long: `Publish a sample (a dataset's <id>.json) where people can read the council's review next to
the original pull request's: push the sample's base and head commits as the branches
council-bench/<id>/base and council-bench/<id>/head of the sandbox repository --to, open a pull
request from head into base that names the original (link, title, author, the two commits, and
how many top-level comments the humans made), then run council review --post on it.

The commits are pushed from --clone, a local repository that holds them (default: the sample's
repo.path). The push goes to the sandbox on the GitHub of GITHUB_API_URL, sending GITHUB_TOKEN
(or GH_TOKEN) to that host only, in a header of this push; --push-url pushes elsewhere. Running
it again reuses the pull request already open for the sample's branches, and council review
posts nothing on a head it has already reviewed.`,
		Example: `  council bench mirror bench/calico/projectcalico-calico-10736.json --to me/council-sandbox
  council bench mirror bench/mine/acme-svc-7.json --to me/sandbox --clone ~/src/svc --lenses correctness,security
  council bench mirror bench/mine/acme-svc-7.json --to me/sandbox --no-review`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sample = args[0]
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchMirror(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.To, "to", "", "sandbox repository `OWNER/REPO` to open the pull request on (required)")
	fl.StringVar(&opts.Clone, "clone", "", "local repository `DIR` holding the sample's commits (default: the sample's repo.path)")
	fl.StringVar(&opts.PushURL, "push-url", "", "git remote `URL` to push the branches to (default: the sandbox on GitHub)")
	fl.BoolVar(&opts.NoReview, "no-review", false, "only push the branches and open the pull request")
	fl.StringVar(&opts.Provider, "provider", "", "model provider: "+strings.Join(providers, "|"))
	fl.StringVar(&opts.Model, "model", "", "model name (default: config, else the provider's default)")
	fl.StringSliceVar(&opts.Lenses, "lenses", nil, "lenses to run, comma-separated")
	fl.StringSliceVar(&opts.Personas, "personas", nil, "persona `FILE`s to add, comma-separated")
	fl.StringVar(&opts.RecordDir, "record", "", "save every model exchange under `DIR`")
	fl.StringVar(&opts.ReplayDir, "replay", "", "answer every model request from recordings in `DIR`, offline")
	fl.StringVar(&opts.Layout, "layout", "per-reviewer", "GitHub review layout: per-reviewer|consolidated")
	fl.BoolVar(&opts.Overview, "overview", false, "post a 'Pull request overview' review first")
	return cmd
}

func (o *BenchMirrorOptions) validate() error {
	if o.To == "" {
		return errors.New("--to OWNER/REPO is required: the sandbox repository to open the pull request on")
	}
	if _, _, err := splitRepo(o.To); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	if o.Provider != "" && !slices.Contains(providers, o.Provider) {
		return fmt.Errorf("--provider %q: must be one of %s", o.Provider, strings.Join(providers, ", "))
	}
	if o.RecordDir != "" && o.ReplayDir != "" {
		return errors.New("--record and --replay cannot be used together")
	}
	if _, err := ghreview.ParseLayout(o.Layout); err != nil {
		return fmt.Errorf("--layout: %w", err)
	}
	if o.NoReview && o.Overview {
		return errors.New("--overview is part of the review: drop --no-review or --overview")
	}
	return nil
}

// splitRepo reads "owner/repo" (a trailing .git allowed) with the characters GitHub allows in
// owner and repository names.
func splitRepo(s string) (owner, repo string, err error) {
	m := repoRE.FindStringSubmatch(strings.TrimSuffix(strings.TrimSpace(s), ".git"))
	if m == nil {
		return "", "", fmt.Errorf("%q is not a repository: want OWNER/REPO", s)
	}
	return m[1], m[2], nil
}

var repoRE = regexp.MustCompile(`^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)$`)

// mirrorBranches are the sandbox branches of a sample.
func mirrorBranches(id string) (base, head string) {
	return "council-bench/" + id + "/base", "council-bench/" + id + "/head"
}

func benchMirror(ctx context.Context, f *Factory, o *BenchMirrorOptions) error {
	s, err := bench.ReadSample(o.Sample)
	if err != nil {
		return err
	}
	owner, sandbox, _ := splitRepo(o.To)
	clone := o.Clone
	if clone == "" {
		clone = s.LocalPath(filepath.Dir(o.Sample))
	}
	if clone == "" {
		return fmt.Errorf("sample %s has no repo.path: pass --clone DIR, a clone of %s holding commits %s and %s",
			s.ID, orUnknown(s.Repo.URL), short(s.Base), short(s.Head))
	}
	from := "--clone"
	if o.Clone == "" {
		from = "the sample's repo.path"
	}
	if err := hasCommits(ctx, clone, from, s); err != nil {
		return err
	}
	gh, err := githubClient(ctx, f.Getenv, owner, sandbox)
	if err != nil {
		return err
	}

	web, err := webRoot(gh.BaseURL())
	if err != nil {
		return err
	}
	remote := o.PushURL
	if remote == "" {
		remote = fmt.Sprintf("%s/%s/%s.git", web, owner, sandbox)
	}
	baseBranch, headBranch := mirrorBranches(s.ID)
	cred, err := gitCredentialFor(ctx, gh)
	if err != nil {
		return err
	}
	if err := pushCommits(ctx, clone, remote, cred,
		"+"+s.Base+":refs/heads/"+baseBranch, "+"+s.Head+":refs/heads/"+headBranch); err != nil {
		return fmt.Errorf("push sample %s to %s: %w", s.ID, shownURL(remote), err)
	}
	fmt.Fprintf(f.Err, "council: pushed %s (%s) and %s (%s) to %s\n", baseBranch, short(s.Base), headBranch, short(s.Head), shownURL(remote))

	pr, found, err := gh.FindPullRequest(ctx, owner, sandbox, headBranch, baseBranch)
	if err != nil {
		return err
	}
	verb := "reusing the open"
	if !found {
		pr, err = gh.CreatePullRequest(ctx, owner, sandbox, github.NewPullRequest{
			Title: mirrorTitle(s), Body: mirrorBody(s, councilName(ctx, clone, s.Base)), Head: headBranch, Base: baseBranch,
		})
		// Another run may have opened it since we looked: GitHub refuses a second one.
		if github.IsUnprocessable(err) {
			if again, ok, ferr := gh.FindPullRequest(ctx, owner, sandbox, headBranch, baseBranch); ferr == nil && ok {
				pr, err = again, nil
			}
		}
		if err != nil {
			return err
		}
		verb = "opened"
	}
	fmt.Fprintf(f.Err, "council: %s pull request %s/%s#%d: %s\n", verb, owner, sandbox, pr.Number, pr.HTMLURL)
	if o.NoReview {
		fmt.Fprintln(f.Out, pr.HTMLURL)
		return nil
	}
	ro := &ReviewOptions{
		PR: fmt.Sprintf("%s/%s#%d", owner, sandbox, pr.Number), Post: true,
		Repo: clone, repoSet: true, Head: "HEAD", Formats: []string{"markdown"},
		Provider: o.Provider, Model: o.Model, Lenses: o.Lenses, Personas: o.Personas,
		RecordDir: o.RecordDir, ReplayDir: o.ReplayDir, Layout: o.Layout, Overview: o.Overview,
	}
	if err := ro.validate(); err != nil {
		return err
	}
	return reviewRun(ctx, f, ro)
}

// hasCommits checks that the clone holds the sample's commits before anything is pushed; from
// says where dir came from.
func hasCommits(ctx context.Context, dir, from string, s bench.Sample) error {
	g, err := source.OpenGit(ctx, dir)
	if err != nil {
		// source's error speaks of review's --repo; say what to do here instead.
		cause := err
		if u := errors.Unwrap(err); u != nil {
			cause = u
		}
		return fmt.Errorf("%s (%s) is not a git repository: pass --clone DIR, a clone holding commits %s and %s of %s: %w",
			dir, from, short(s.Base), short(s.Head), orUnknown(s.Repo.URL), cause)
	}
	defer g.Close()
	for _, c := range []struct{ name, sha string }{{"base", s.Base}, {"head", s.Head}} {
		if !g.Has(ctx, c.sha) {
			return fmt.Errorf("%s does not hold the %s commit %s of sample %s: fetch it (git -C %s fetch %s %s), or pass --clone DIR",
				dir, c.name, c.sha, s.ID, dir, orUnknown(s.Repo.URL), c.sha)
		}
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "<its repository>"
	}
	return s
}

// shownURL is a remote as it may be printed: without the password of a URL that carries one.
func shownURL(remote string) string {
	if u, err := url.Parse(remote); err == nil && u.User != nil {
		return u.Redacted()
	}
	return remote
}

// pushCommits pushes refspecs from the repository at dir to remote, with the credential
// for the URLs it applies to.
func pushCommits(ctx context.Context, dir, remote string, cred source.Credential, refspecs ...string) error {
	g, err := source.OpenGit(ctx, dir)
	if err != nil {
		return err
	}
	defer g.Close()
	return g.Push(ctx, remote, cred, refspecs...)
}

// mirrorTitle is the sandbox pull request's title: "[sample #N] original title".
func mirrorTitle(s bench.Sample) string {
	return fmt.Sprintf("[sample #%d] %s", s.PR.Number, s.PR.Title)
}

// mirrorBody says what the sandbox pull request is, in the words of the samples published so
// far: the original pull request, the two commits, and how many top-level comments the humans
// made (the ground truth).
func mirrorBody(s bench.Sample, council string) string {
	name := originalRepo(s)
	link := s.PR.URL
	if link == "" && name != "" {
		link = fmt.Sprintf("https://github.com/%s/pull/%d", name, s.PR.Number)
	}
	// owner/repo#N links back to the original; a bare #N would link to the sandbox's own
	// pull request of that number.
	orig := fmt.Sprintf("%s#%d", name, s.PR.Number)
	if name == "" {
		orig = fmt.Sprintf("pull request %d", s.PR.Number)
	}
	ref := orig
	if link != "" {
		ref = fmt.Sprintf("[%s](%s)", orig, link)
	}
	by := ""
	if s.PR.Author != "" {
		by = " by @" + s.PR.Author
	}
	comments := fmt.Sprintf("%d human top-level review comments", len(s.Truth))
	if len(s.Truth) == 1 {
		comments = "1 human top-level review comment"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Mirrors the diff the human reviewers first saw on %s ('%s'%s) for the %s benchmark. base(fork)=%s head(as-reviewed)=%s\n\n",
		orig, s.PR.Title, by, council, s.Base, s.Head)
	fmt.Fprintf(&b, "Benchmark sample reproducing the as-first-reviewed state of %s", ref)
	if s.PR.Author != "" {
		fmt.Fprintf(&b, " (by @%s)", s.PR.Author)
	}
	b.WriteString(".\n")
	fmt.Fprintf(&b, "This PR's diff equals what the human reviewers first saw: fork point `%s` → earliest human-reviewed commit `%s`. The original PR drew %s — the ground truth to compare the %s's feedback against.\n\n",
		short(s.Base), short(s.Head), comments, council)
	fmt.Fprintf(&b, "🤖 Generated for the %s benchmark.\n", council)
	return b.String()
}

// councilName is the council_name of the .council.yaml at the sample's base, which the review
// posted on the mirror will use too; the default name when there is none or it does not parse
// (the review then says what is wrong with it).
func councilName(ctx context.Context, clone, base string) string {
	name := config.Default().CouncilName
	g, err := source.OpenGit(ctx, clone)
	if err != nil {
		return name
	}
	defer g.Close()
	data, err := g.ReadFile(ctx, base, engine.ConfigFile)
	if err != nil {
		return name
	}
	if cfg, err := config.Parse(engine.ConfigFile, data); err == nil {
		return cfg.CouncilName
	}
	return name
}

// originalRepo is the sample's "owner/repo" on GitHub: repo.name, else read from the pull
// request's URL or the clone URL; "" when none says.
func originalRepo(s bench.Sample) string {
	if s.Repo.Name != "" {
		return s.Repo.Name
	}
	if owner, repo, _, err := github.ParsePRRef(s.PR.URL); err == nil {
		return owner + "/" + repo
	}
	if u, err := url.Parse(s.Repo.URL); err == nil && u.Host != "" {
		if owner, repo, err := splitRepo(strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")); err == nil {
			return owner + "/" + repo
		}
	}
	return ""
}
