package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/glob"
	"github.com/council-dev/council/internal/history"
	"github.com/council-dev/council/internal/source"
)

// validateGit checks the flags of an import from a local clone.
func (o *BenchImportOptions) validateGit() error {
	switch {
	case len(o.PRs) > 0 || o.Repo != "":
		return errors.New("--git imports from a clone's merge commits: it cannot be used with --pr or --repo")
	case o.Clone != "" || o.Limit != 0 || o.ConfigPath != "":
		return errors.New("--clone, --limit and --config are for an import from GitHub: with --git, the clone is DIR, --max bounds the samples, and --ignore-user names the bots")
	case o.Out == "":
		return errors.New("--out DIR is required: the samples and import.json go there")
	case o.Max < 0:
		return fmt.Errorf("--max %d: must be 0 (no limit) or more", o.Max)
	}
	if err := checkName(o.Name); err != nil {
		return err
	}
	if err := checkPathGlobs(o.Paths); err != nil {
		return err
	}
	if o.Since != "" {
		t, err := parseSince(o.Since)
		if err != nil {
			return err
		}
		o.since = t
	}
	if o.Until != "" {
		t, err := time.Parse(time.DateOnly, o.Until)
		if err == nil {
			t = t.AddDate(0, 0, 1) // a date counts whole
		} else if t, err = time.Parse(time.RFC3339, o.Until); err != nil {
			return fmt.Errorf("--until %q: want a date such as 2026-06-30, or an RFC 3339 time such as 2026-06-30T12:00:00Z", o.Until)
		}
		o.until = t
		if !o.since.IsZero() && !o.until.After(o.since) {
			return fmt.Errorf("--until %s is not after --since %s: no merge can be in between", o.Until, o.Since)
		}
	}
	return nil
}

// skipsNotShown are the reasons most merges of a busy repository are skipped for: counted in
// the summary and listed in import.json, not printed one by one.
var skipsNotShown = map[string]bool{history.SkipNoFeedback: true, history.SkipNothingMerged: true}

// benchGitImportRun imports the merged branches of a local clone.
func benchGitImportRun(ctx context.Context, f *Factory, o *BenchImportOptions) (err error) {
	c, err := openMergeClone(ctx, f, o.Git, o.Branch, o.Name)
	if err != nil {
		return err
	}
	defer c.git.Close()
	g, branch := c.git, c.branch
	repo := bench.Repo{Path: g.Dir(), URL: c.origin, Name: c.name}
	if repo.URL == "" {
		repo.URL = "https://github.com/" + repo.Name + ".git"
	}
	graph, merges, err := c.merges(ctx, o.since, o.until, o.IgnoreUsers, window(o.Since, o.Until))
	if err != nil {
		return err
	}
	log, err := bench.ReadImportLog(o.Out)
	if err != nil {
		return err
	}
	// import.json is written after each sample and once at the end, an interrupted or failed
	// import included: rewriting it after each of thousands of skipped merges would cost more
	// than the walk.
	defer func() {
		if werr := bench.WriteImportLog(o.Out, log); werr != nil && err == nil {
			err = werr
		}
	}()
	im := &bench.GitImporter{Git: g, Repo: repo, BaseRef: branch, Ignore: o.IgnoreUsers, Paths: o.Paths}
	imported, held := 0, 0
	skipped := map[string]int{}
	var reasons []string
	skip := func(mb history.MergedBranch, number int, label, reason string) {
		log.Record(bench.ImportEntry{Repo: repo.Name, Number: number, Merge: mb.Merge.SHA, Reason: reason})
		key := reason
		if strings.HasPrefix(reason, history.SkipAllDropped) {
			key = history.SkipAllDropped
		}
		if skipped[key] == 0 {
			reasons = append(reasons, key)
		}
		skipped[key]++
		if !skipsNotShown[reason] {
			fmt.Fprintf(f.Err, "skipped %s: %s\n", label, reason)
		}
	}
	for _, mb := range merges {
		if err := ctx.Err(); err != nil {
			return err
		}
		number, _, _ := history.PRFromMerge(mb.Merge.Subject)
		id := bench.GitSampleID(repo.Name, number, mb.Merge.SHA)
		label := "merge " + mb.Merge.SHA[:7]
		if number > 0 {
			label = fmt.Sprintf("#%d (merge %s)", number, mb.Merge.SHA[:7])
		}
		if _, err := os.Stat(filepath.Join(o.Out, id+".json")); err == nil && !o.Force {
			fmt.Fprintf(f.Err, "kept %s: already in %s (--force imports it again)\n", id, o.Out)
			log.Record(bench.ImportEntry{Repo: repo.Name, Number: number, Merge: mb.Merge.SHA, ID: id})
			held++
		} else {
			s, sel, err := im.Sample(ctx, mb)
			var se *bench.SkipError
			switch {
			case errors.As(err, &se):
				skip(mb, number, label, se.Reason)
			case err != nil:
				return fmt.Errorf("import %s: %w", label, err)
			default:
				if err := bench.WriteSample(o.Out, s); err != nil {
					return err
				}
				log.Record(bench.ImportEntry{Repo: repo.Name, Number: number, Merge: mb.Merge.SHA, ID: s.ID})
				if err := bench.WriteImportLog(o.Out, log); err != nil {
					return err
				}
				imported++
				held++
				fb := sel.Feedback[0]
				fmt.Fprintf(f.Err, "imported %s: %d truth items (%d dropped), head %s, feedback from %s %q by %s\n",
					s.ID, len(s.Truth), len(s.Dropped), s.Head[:7], fb.SHA[:7], fb.Subject, s.Truth[0].Author)
			}
		}
		if o.Max > 0 && held >= o.Max {
			break
		}
	}
	total := 0
	var parts []string
	for _, r := range reasons {
		total += skipped[r]
		parts = append(parts, fmt.Sprintf("%d %s", skipped[r], r))
	}
	fmt.Fprintf(f.Err, "%d imported, %d skipped: %s lists them (%d commits of %s read, %d merges%s)\n",
		imported, total, filepath.Join(o.Out, bench.ImportManifest), graph.Commits(), branch, len(merges), window(o.Since, o.Until))
	for _, p := range parts {
		fmt.Fprintf(f.Err, "  skipped: %s\n", p)
	}
	return nil
}

// window says which dates a walk was limited to, for messages.
func window(since, until string) string {
	switch {
	case since != "" && until != "":
		return fmt.Sprintf(" from %s until %s", since, until)
	case since != "":
		return " since " + since
	case until != "":
		return " until " + until
	}
	return ""
}

// checkPathGlobs checks the globs of --paths: "!" excludes, and what follows must be a glob.
func checkPathGlobs(paths []string) error {
	for _, p := range paths {
		g := strings.TrimPrefix(p, "!")
		if strings.TrimSpace(g) == "" {
			return fmt.Errorf("--paths %q: give a glob such as 'pkg/**' or '!**/*_test.go'", p)
		}
		if err := glob.Validate(g); err != nil {
			return fmt.Errorf("--paths %q: %v: give a glob such as 'pkg/**' or '!**/*_test.go'", p, err)
		}
	}
	return nil
}

// checkName checks --name, when given.
func checkName(name string) error {
	if name == "" {
		return nil
	}
	if _, _, err := splitRepo(name); err != nil {
		return fmt.Errorf("--name: %w", err)
	}
	return nil
}

// mergeClone is a local clone opened for a walk of its merges (bench import --git, learn
// --git): the branch walked, the shallow clone's boundary, and the repository's name.
type mergeClone struct {
	git          *source.Git
	branch, rev  string
	shallow      map[string]bool
	name, origin string // owner/repo; the origin remote's URL ("" for none)
}

// openMergeClone opens the clone in dir at branch (default: the clone's default branch), and
// names it name, else after its origin remote. A shallow clone is said on f.Err.
func openMergeClone(ctx context.Context, f *Factory, dir, branch, name string) (*mergeClone, error) {
	g, err := source.OpenGit(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("--git %s: %w", dir, err)
	}
	c := &mergeClone{git: g, branch: branch, rev: branch}
	if err := c.open(ctx, f, name); err != nil {
		g.Close()
		return nil, err
	}
	return c, nil
}

func (c *mergeClone) open(ctx context.Context, f *Factory, name string) error {
	g := c.git
	var err error
	if c.branch == "" {
		if c.branch, c.rev, err = g.DefaultBranch(ctx); err != nil {
			return err
		}
	} else if _, err := g.Resolve(ctx, c.rev); err != nil {
		return fmt.Errorf("--branch %s: %w", c.branch, err)
	}
	if c.shallow, err = g.Shallow(ctx); err != nil {
		return err
	}
	if c.shallow != nil {
		fmt.Fprintf(f.Err, "council: %s is a shallow clone: merges whose branch reaches past its depth are skipped (git fetch --unshallow reads them)\n", g.Dir())
	}
	c.origin = g.RemoteURL(ctx, "origin")
	c.name = name
	if c.name == "" {
		c.name = nameFromRemote(c.origin)
	}
	if c.name == "" {
		why := "it has no origin remote"
		if c.origin != "" {
			why = "its origin, " + c.origin + ", names none"
		}
		return fmt.Errorf("cannot tell the owner/repo of the repository in %s (%s): pass --name owner/repo", g.Dir(), why)
	}
	return nil
}

// merges reads the branch's history and returns its merges committed in [since, until),
// newest first; none is an error that says why a walk needs them. dates are the bounds as
// window says them.
func (c *mergeClone) merges(ctx context.Context, since, until time.Time, ignore []string, dates string) (*history.Graph, []history.MergedBranch, error) {
	graph, err := history.LoadGraph(ctx, c.git, c.rev, c.shallow)
	if err != nil {
		return nil, nil, fmt.Errorf("read the history of %s: %w", c.branch, err)
	}
	merges := graph.Merges(since, until, ignore)
	if len(merges) == 0 {
		return nil, nil, fmt.Errorf("no merge commits on %s%s in %s: reading review from git needs pull requests merged with merge commits "+
			"(squash and rebase merges keep no trace of review); widen --since/--until, or name another --branch", c.branch, dates, c.git.Dir())
	}
	return graph, merges, nil
}

// remoteName is the owner/repo at the end of a remote's URL: https://host/owner/repo.git,
// git@host:owner/repo.git, ssh://git@host/owner/repo.
var remoteName = regexp.MustCompile(`[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(\.git)?/?$`)

// nameFromRemote is the owner/repo a remote URL names, or "".
func nameFromRemote(remote string) string {
	if remote == "" {
		return ""
	}
	if u, err := url.Parse(remote); err == nil && u.Scheme == "file" {
		return ""
	}
	m := remoteName.FindStringSubmatch(remote)
	if m == nil || strings.HasPrefix(remote, "/") || strings.HasPrefix(remote, ".") {
		return ""
	}
	return m[1] + "/" + m[2]
}
