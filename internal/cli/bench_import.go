package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/prflow"
	"github.com/council-dev/council/internal/source"
)

// BenchImportOptions are the flags of `council bench import`.
type BenchImportOptions struct {
	PRs         []string // owner/repo#123 or pull request URLs
	Repo        string   // owner/repo: import its pull requests
	Since       string   // with Repo: pull requests created on or after this date
	Limit       int      // with Repo: stop after this many samples (0: no limit)
	Out         string
	Clone       string
	Force       bool
	IgnoreUsers []string
	ConfigPath  string

	// An import from a local clone's merge commits (bench_import_git.go).
	Git    string   // the clone
	Until  string   // merges committed before this date
	Max    int      // stop once the dataset holds this many of the clone's samples (0: no limit)
	Paths  []string // globs: truth only from these paths
	Name   string   // owner/repo the samples name
	Branch string   // the branch whose merges to walk (default: the clone's default branch)

	since, until time.Time
}

// NewCmdBenchImport declares `council bench import`.
func NewCmdBenchImport(f *Factory, runF func(context.Context, *BenchImportOptions) error) *cobra.Command {
	opts := &BenchImportOptions{}
	cmd := &cobra.Command{
		Use:   "import (--pr REF... | --repo OWNER/REPO | --git DIR) --out DIR",
		Short: "Turn human-reviewed pull requests into benchmark samples, from GitHub or from git alone",
		Long: `Import GitHub pull requests as samples of a dataset: one DIR/<owner>-<repo>-<number>.json per pull
request, and DIR/import.json listing every pull request considered, imported or skipped with why.

A sample is the pull request as its first human reviewer saw it. Its head is the commit of the
first submitted review (or inline comment) by a person other than the author: bots (logins
ending in [bot], GitHub Apps) and the AI reviewers of the config's bench.ai_reviewers and
--ignore-user do not count. Its base is the merge-base of that commit with the base branch; merge
is the merged head, or null. The truth is what the humans said about that commit: the
thread-starting inline comments and the review bodies, less praise and comments under 10 words
without code (listed in the sample's dropped, with the reason), each with its kind, whether it
asks a question, its thread's replies, and whether it was addressed (its thread resolved, or its
lines changed before the merge).

Commits come from --clone DIR, a clone (fetched from its origin when missing, then from GitHub; a
new or empty DIR becomes one), else from a cached clone under the user cache directory. A commit
force-pushed away is fetched by its SHA; a pull request whose first reviewed commit cannot be
fetched is skipped. Samples already in DIR are kept unless --force. With --repo, pull requests are
read newest first and drafts are skipped; --limit counts the samples the listing leaves in DIR,
those imported before included, and skipped pull requests not at all.

GitHub credentials are read as for council review --pr: GITHUB_TOKEN or GH_TOKEN (or a GitHub
App's GITHUB_APP_ID, GITHUB_APP_INSTALLATION_ID, GITHUB_APP_PRIVATE_KEY), GITHUB_API_URL for
GitHub Enterprise Server. The token is only sent to that GitHub.

--git DIR imports from a local clone alone, offline, where pull requests are merged with merge
commits: the commits pushed after the first review ("Address review comments", "Apply
suggestions from code review", "fixup! ...") record what the reviewers made the author change.
It walks the merges of the default branch (--branch, else origin/HEAD, else HEAD), newest
first, within --since and --until (the merge's commit date). For each merged branch, the first
commit whose subject says it answers review starts the feedback; head is the commit before it,
base the merge-base of head with the merge's first parent, merge the merge commit, and the
truth one item per hunk that the feedback commits (up to the next other commit) changed, at
head's lines. Branches with no such commit are skipped and counted; hunks in generated,
vendored or lock files, in test data, outside --paths, and hunks that only change whitespace or
imports are dropped with the reason. docs/bench.md lists the patterns.`,
		Example: `  council bench import --pr projectcalico/calico#10736 --out bench/calico
  council bench import --repo owner/repo --since 2026-01-01 --limit 50 --out bench/mine
  council bench import --pr https://github.com/owner/repo/pull/12 --clone ~/src/repo --out bench/mine --force
  council bench import --git ~/src/etcd --since 2025-01-01 --max 50 --out bench/etcd
  council bench import --git ~/src/calico --paths 'felix/**' --paths '!**/*_test.go' --out bench/felix`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Git != "" {
				return benchGitImportRun(cmd.Context(), f, opts)
			}
			return benchImportRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.PRs, "pr", nil, "pull request to import: `owner/repo#123` or its URL (repeatable)")
	fl.StringVar(&opts.Repo, "repo", "", "import the pull requests of `owner/repo`, newest first")
	fl.StringVar(&opts.Since, "since", "", "with --repo: only pull requests created on or after `DATE` (2026-01-31 or RFC 3339); with --git: merges committed then or later")
	fl.IntVar(&opts.Limit, "limit", 0, "with --repo: stop once the dataset holds this many of its samples (0: no limit)")
	fl.StringVar(&opts.Out, "out", "", "dataset `DIR` to write the samples and import.json to (required)")
	fl.StringVar(&opts.Clone, "clone", "", "local clone `DIR` to read and fetch commits into (default: a cached clone)")
	fl.BoolVar(&opts.Force, "force", false, "import pull requests whose sample is already in the dataset again")
	fl.StringSliceVar(&opts.IgnoreUsers, "ignore-user", nil, "`LOGIN`s that are bots without saying so, besides bench.ai_reviewers (comma-separated)")
	fl.StringVar(&opts.ConfigPath, "config", "", "config `FILE` whose bench.ai_reviewers to use (default ./.council.yaml when present)")
	fl.StringVar(&opts.Git, "git", "", "import from the merge commits of the local clone `DIR`: no GitHub, no network")
	fl.StringVar(&opts.Until, "until", "", "with --git: only merges committed before `DATE` (a date counts whole: 2026-06-30 includes that day)")
	fl.IntVar(&opts.Max, "max", 0, "with --git: stop once the dataset holds this many of the clone's samples (0: no limit)")
	fl.StringArrayVar(&opts.Paths, "paths", nil, "with --git: truth only from files matching `GLOB` ('**' spans directories; '!GLOB' excludes; repeatable)")
	fl.StringVar(&opts.Name, "name", "", "with --git: the repository's `OWNER/REPO`, for sample ids and links (default: from the clone's origin)")
	fl.StringVar(&opts.Branch, "branch", "", "with --git: the `BRANCH` whose merges to walk (default: origin/HEAD, else HEAD)")
	return cmd
}

func (o *BenchImportOptions) validate() error {
	if o.Git != "" {
		return o.validateGit()
	}
	switch {
	case len(o.PRs) == 0 && o.Repo == "":
		return errors.New("nothing to import: give --pr owner/repo#123 (repeatable), --repo owner/repo, or --git DIR")
	case len(o.PRs) > 0 && o.Repo != "":
		return errors.New("--pr and --repo cannot be used together")
	case o.Until != "" || o.Max != 0 || len(o.Paths) > 0 || o.Name != "" || o.Branch != "":
		return errors.New("--until, --max, --paths, --name and --branch are for an import from git: use them with --git DIR")
	case o.Out == "":
		return errors.New("--out DIR is required: the samples and import.json go there")
	case o.Repo == "" && (o.Since != "" || o.Limit != 0):
		return errors.New("--since and --limit select among a repository's pull requests: use them with --repo")
	case o.Limit < 0:
		return fmt.Errorf("--limit %d: must be 0 (no limit) or more", o.Limit)
	}
	for _, ref := range o.PRs {
		if _, _, _, err := github.ParsePRRef(ref); err != nil {
			return fmt.Errorf("--pr: %w", err)
		}
	}
	if o.Repo != "" {
		if _, _, err := splitRepo(o.Repo); err != nil {
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

// importRun is one council bench import: the GitHub client, the dataset's log, and a count.
type importRun struct {
	f        *Factory
	o        *BenchImportOptions
	gh       *github.Client
	ignore   []string
	authors  []string // persona eval: keep only these logins' truth items
	log      bench.ImportLog
	clones   []*source.Git // closed when the run ends
	imported int
	skipped  int
}

func benchImportRun(ctx context.Context, f *Factory, o *BenchImportOptions) error {
	cfg, err := benchConfig(o.ConfigPath)
	if err != nil {
		return err
	}
	ignore := cfg.Bench.AIReviewers
	owner, repo, _ := splitRepo(o.Repo)
	if len(o.PRs) > 0 {
		owner, repo, _, _ = github.ParsePRRef(o.PRs[0])
	}
	client, err := githubClient(ctx, f.Getenv, owner, repo)
	if err != nil {
		return err
	}
	r := &importRun{f: f, o: o, gh: client, ignore: append(append([]string(nil), ignore...), o.IgnoreUsers...)}
	if r.log, err = bench.ReadImportLog(o.Out); err != nil {
		return err
	}
	defer func() {
		for _, g := range r.clones {
			_ = g.Close()
		}
	}()
	if o.Repo != "" {
		err = r.listing(ctx)
	} else {
		err = r.pulls(ctx)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "%d imported, %d skipped: %s lists them (%d GitHub requests)\n",
		r.imported, r.skipped, filepath.Join(o.Out, bench.ImportManifest), client.Requests())
	return nil
}

// pulls imports each --pr.
func (r *importRun) pulls(ctx context.Context) error {
	importers := map[string]*bench.Importer{}
	for _, ref := range r.o.PRs {
		owner, repo, n, _ := github.ParsePRRef(ref) // checked by validate
		key := strings.ToLower(owner + "/" + repo)
		im, ok := importers[key]
		if !ok {
			var err error
			if im, err = r.importer(ctx, owner, repo); err != nil {
				return err
			}
			importers[key] = im
		}
		if _, err := r.one(ctx, im, owner, repo, n, fmt.Sprintf("%s/%s#%d", owner, repo, n)); err != nil {
			return err
		}
	}
	return nil
}

// listing imports the pull requests of --repo, newest first, until --since or --limit.
func (r *importRun) listing(ctx context.Context) error {
	owner, repo, _ := splitRepo(r.o.Repo)
	im, err := r.importer(ctx, owner, repo)
	if err != nil {
		return err
	}
	held := 0
	err = r.gh.ListPullRequests(ctx, owner, repo, func(p github.PRDetails) (bool, error) {
		if !r.o.since.IsZero() && !p.CreatedAt.IsZero() && p.CreatedAt.Before(r.o.since) {
			return false, nil // newest first: every later one is older still
		}
		if p.Draft && (r.o.Force || !r.holds(owner, repo, p.Number)) {
			r.skip(owner, repo, p.Number, fmt.Sprintf("#%d", p.Number), "a draft pull request")
			return true, r.saveLog()
		}
		in, err := r.one(ctx, im, owner, repo, p.Number, fmt.Sprintf("#%d", p.Number))
		if err != nil {
			return false, err
		}
		if in {
			held++
		}
		return r.o.Limit == 0 || held < r.o.Limit, nil
	})
	if err != nil && github.IsNotFound(err) {
		return fmt.Errorf("no repository %s/%s, or the token cannot see it: check the name, and that GITHUB_TOKEN (or GH_TOKEN) can read it: %w", owner, repo, err)
	}
	return err
}

// one imports owner/repo#n unless the dataset has it; in reports whether the dataset holds
// its sample afterwards. label names the pull request in the progress lines.
func (r *importRun) one(ctx context.Context, im *bench.Importer, owner, repo string, n int, label string) (in bool, err error) {
	id := bench.SampleID(owner, repo, n)
	name := owner + "/" + repo
	if !r.o.Force {
		if r.holds(owner, repo, n) {
			fmt.Fprintf(r.f.Err, "kept %s: already in %s (--force imports it again)\n", id, r.o.Out)
			if !r.logged(name, n) {
				r.log.Record(bench.ImportEntry{Repo: name, Number: n, ID: id})
			}
			return true, r.saveLog()
		}
	}
	res, err := im.Import(ctx, owner, repo, n)
	var skip *bench.SkipError
	switch {
	case errors.As(err, &skip):
		r.skip(owner, repo, n, label, skip.Reason)
		return false, r.saveLog()
	case github.IsNotFound(err):
		return false, fmt.Errorf("no pull request %s/%s#%d, or the token cannot see it: check the number, and that GITHUB_TOKEN (or GH_TOKEN) can read the repository: %w", owner, repo, n, err)
	case err != nil:
		return false, fmt.Errorf("import %s/%s#%d: %w", owner, repo, n, err)
	}
	if err := bench.WriteSample(r.o.Out, res.Sample); err != nil {
		return false, err
	}
	r.log.Record(bench.ImportEntry{Repo: name, Number: n, ID: id})
	r.imported++
	s := res.Sample
	fmt.Fprintf(r.f.Err, "imported %s: %d truth items (%d dropped), head %s (first review by %s)\n",
		id, len(s.Truth), len(s.Dropped), s.Head[:7], res.Reviewer)
	return true, r.saveLog()
}

// holds reports whether the dataset has the sample of owner/repo#n.
func (r *importRun) holds(owner, repo string, n int) bool {
	_, err := os.Stat(filepath.Join(r.o.Out, bench.SampleID(owner, repo, n)+".json"))
	return err == nil
}

func (r *importRun) skip(owner, repo string, n int, label, reason string) {
	r.log.Record(bench.ImportEntry{Repo: owner + "/" + repo, Number: n, Reason: reason})
	r.skipped++
	fmt.Fprintf(r.f.Err, "skipped %s: %s\n", label, reason)
}

func (r *importRun) logged(repo string, n int) bool {
	for _, e := range r.log.PRs {
		if strings.EqualFold(e.Repo, repo) && e.Number == n && e.ID != "" {
			return true
		}
	}
	return false
}

// saveLog writes import.json after every pull request, so that an interrupted import still
// says what it did.
func (r *importRun) saveLog() error { return bench.WriteImportLog(r.o.Out, r.log) }

// importer opens the clone of owner/repo and builds the importer that reads it.
func (r *importRun) importer(ctx context.Context, owner, repo string) (*bench.Importer, error) {
	c, where, err := openRepoClone(ctx, r.f, r.gh, owner, repo, r.o.Clone)
	if err != nil {
		return nil, err
	}
	r.clones = append(r.clones, c.g)
	return &bench.Importer{GitHub: githubHistory{r.gh}, Git: c, Ignore: r.ignore, Repo: where, Authors: r.authors}, nil
}

// openRepoClone opens the clone commits of owner/repo are read from and fetched into: clone,
// the user's own --clone, else the cached clone (cloneCache). It says where the samples say
// the repository is. The caller closes c.g.
func openRepoClone(ctx context.Context, f *Factory, gh *github.Client, owner, repo, clone string) (*cloneRepo, bench.Repo, error) {
	remote, err := (&prflow.PR{Owner: owner, Repo: repo, GH: gh}).RemoteURL()
	if err != nil {
		return nil, bench.Repo{}, fmt.Errorf("derive the clone URL of %s/%s: %w", owner, repo, err)
	}
	dir, where := clone, bench.Repo{URL: remote}
	if dir == "" {
		if dir, err = cloneCache(owner + "/" + repo); err != nil {
			return nil, bench.Repo{}, err
		}
	}
	g, err := openClone(ctx, dir, clone != "")
	if err != nil {
		return nil, bench.Repo{}, fmt.Errorf("open the clone of %s/%s: %w", owner, repo, err)
	}
	if clone != "" {
		where.Path = g.Dir()
	}
	c := &cloneRepo{g: g}
	// A clone of the user's own fetches from its origin as the user set it up, with no token
	// of ours; GitHub itself, with the token, comes next. The token goes to no other host.
	if clone != "" {
		if g.HasRemote(ctx, "origin") {
			c.sources = append(c.sources, fetchSource{remote: "origin"})
		}
	}
	cred, err := gitCredentialFor(ctx, gh)
	if err != nil {
		g.Close()
		return nil, bench.Repo{}, err
	}
	c.sources = append(c.sources, fetchSource{remote: remote, cred: cred})
	return c, where, nil
}

// openClone opens the repository at dir, or makes one of a directory that does not exist yet
// or is empty. The user's own --clone (theirs) inside a work tree is that work tree; a
// directory of theirs that holds other things is refused, never made a repository.
func openClone(ctx context.Context, dir string, theirs bool) (*source.Git, error) {
	entries, err := os.ReadDir(dir)
	if !theirs || errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return source.InitGit(ctx, dir)
	}
	g, err := source.OpenGit(ctx, dir)
	if err != nil {
		// source's error speaks of review's --repo; say what to do here instead.
		cause := err
		if u := errors.Unwrap(err); u != nil {
			cause = u
		}
		return nil, fmt.Errorf("--clone %s is not a git repository: give a clone of the repository, or a new directory to make one in: %w", dir, cause)
	}
	return g, nil
}

// githubHistory reads a pull request's history through the GitHub client, in the importer's
// terms.
type githubHistory struct{ c *github.Client }

var _ bench.PRHistory = githubHistory{}

func (h githubHistory) History(ctx context.Context, owner, repo string, n int) (bench.History, error) {
	gh, err := h.c.History(ctx, owner, repo, n)
	if err != nil {
		return bench.History{}, err
	}
	out := bench.History{
		PR: bench.PullRequest{
			Number: gh.PR.Number, Title: gh.PR.Title, Body: gh.PR.Body, Author: accountLogin(gh.PR.Author),
			BaseRef: gh.PR.BaseRef, BaseSHA: gh.PR.BaseSHA, HeadSHA: gh.PR.HeadSHA, URL: gh.PR.HTMLURL,
			Merged: gh.PR.Merged, Created: gh.PR.CreatedAt,
		},
		Resolved: map[int64]bool{},
	}
	for _, r := range gh.Reviews {
		out.Reviews = append(out.Reviews, bench.PRReview{
			ID: r.ID, User: historyUser(r.User, r.UserType), State: r.State, Body: r.Body, CommitID: r.CommitID,
			SubmittedAt: r.SubmittedAt, URL: r.HTMLURL,
		})
	}
	for _, c := range gh.Comments {
		out.Comments = append(out.Comments, bench.PRComment{
			ID: c.ID, ReviewID: c.ReviewID, InReplyTo: c.InReplyTo, User: historyUser(c.User, c.UserType),
			Body: c.Body, Path: c.Path, Line: c.OriginalLine, StartLine: c.OriginalStartLine,
			Side: c.Side, StartSide: c.StartSide, CommitID: c.OriginalCommitID, CreatedAt: c.CreatedAt, URL: c.HTMLURL,
		})
	}
	for _, t := range gh.Threads {
		if t.Resolved {
			out.Resolved[t.FirstCommentID] = true
		}
	}
	return out, nil
}

func historyUser(login, typ string) bench.User {
	return bench.User{Login: accountLogin(login), Bot: github.User{Login: login, Type: typ}.Bot()}
}

// ghostLogin is the account GitHub shows for a deleted one, whose user the API returns as null.
const ghostLogin = "ghost"

// accountLogin is login, or "ghost" for a deleted account: a person all the same, whose
// review counts. A deleted author and a deleted reviewer are then one account: what such a
// reviewer said is left out as the author's, rather than the author's notes taken as truth.
func accountLogin(login string) string {
	if login == "" {
		return ghostLogin
	}
	return login
}

// cloneRepo is the importer's git: a local clone, and where to fetch the commits it lacks.
type cloneRepo struct {
	g       *source.Git
	sources []fetchSource // tried in order
}

// fetchSource is a remote to fetch from, and the credential for the URLs it applies to.
type fetchSource struct {
	remote string
	cred   source.Credential
}

var _ bench.GitRepo = (*cloneRepo)(nil)

var shaShape = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Fetch fetches a missing commit by its SHA, which reaches a commit no branch holds any more
// (GitHub serves those; a plain git server needs uploadpack.allowAnySHA1InWant). The commit
// is pinned under refs/council/bench/ so that no gc takes it away again.
func (c *cloneRepo) Fetch(ctx context.Context, sha string) error {
	if !shaShape.MatchString(sha) {
		return fmt.Errorf("%q is not a commit SHA", sha)
	}
	if c.g.Has(ctx, sha) {
		return nil
	}
	var failed []string
	for _, s := range c.sources {
		err := c.g.Fetch(ctx, s.remote, s.cred, "+"+sha+":refs/council/bench/"+sha)
		if err == nil && c.g.Has(ctx, sha) {
			return nil
		}
		if err != nil {
			failed = append(failed, strings.Join(strings.Fields(err.Error()), " "))
		}
	}
	if len(failed) == 0 {
		return fmt.Errorf("commit %s is not in %s and no remote has it", sha[:7], c.g.Dir())
	}
	return errors.New(strings.Join(failed, "; "))
}

// MergeBase is the best common ancestor of two commits.
func (c *cloneRepo) MergeBase(ctx context.Context, a, b string) (string, error) {
	if !shaShape.MatchString(a) || !shaShape.MatchString(b) {
		return "", fmt.Errorf("merge-base of %q and %q: commit SHAs only", a, b)
	}
	return c.g.MergeBase(ctx, a, b)
}

// ChangedLines reads the diff of path from one commit to the other: a deleted (or renamed)
// file changed whole, otherwise each hunk's old-side lines changed.
func (c *cloneRepo) ChangedLines(ctx context.Context, from, to, path string) (bench.FileChange, error) {
	if !shaShape.MatchString(from) || !shaShape.MatchString(to) {
		return bench.FileChange{}, fmt.Errorf("diff %q..%q: commit SHAs only", from, to)
	}
	files, err := c.g.DiffPath(ctx, from, to, path)
	if err != nil {
		return bench.FileChange{}, err
	}
	var fc bench.FileChange
	for _, f := range files {
		if f.OldPath != path {
			continue
		}
		if f.Status == diff.Deleted || f.Binary {
			return bench.FileChange{Whole: true}, nil
		}
		for _, h := range f.Hunks {
			fc.Hunks = append(fc.Hunks, bench.LineSpan{Start: h.OldStart, Lines: h.OldLines})
		}
	}
	return fc, nil
}
