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
	if o.Name != "" {
		if _, _, err := splitRepo(o.Name); err != nil {
			return fmt.Errorf("--name: %w", err)
		}
	}
	for _, p := range o.Paths {
		if strings.TrimSpace(strings.TrimPrefix(p, "!")) == "" {
			return fmt.Errorf("--paths %q: give a glob such as 'pkg/**' or '!**/*_test.go'", p)
		}
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
var skipsNotShown = map[string]bool{bench.SkipNoFeedback: true, bench.SkipNothingMerged: true}

// benchGitImportRun imports the merged branches of a local clone.
func benchGitImportRun(ctx context.Context, f *Factory, o *BenchImportOptions) (err error) {
	g, err := source.OpenGit(ctx, o.Git)
	if err != nil {
		return fmt.Errorf("--git %s: %w", o.Git, err)
	}
	defer g.Close()
	branch, rev := o.Branch, o.Branch
	if branch == "" {
		if branch, rev, err = g.DefaultBranch(ctx); err != nil {
			return err
		}
	} else if _, err := g.Resolve(ctx, rev); err != nil {
		return fmt.Errorf("--branch %s: %w", branch, err)
	}
	shallow, err := g.Shallow(ctx)
	if err != nil {
		return err
	}
	if shallow != nil {
		fmt.Fprintf(f.Err, "council: %s is a shallow clone: merges whose branch reaches past its depth are skipped (git fetch --unshallow imports them)\n", g.Dir())
	}
	origin := g.RemoteURL(ctx, "origin")
	repo := bench.Repo{Path: g.Dir(), URL: origin, Name: o.Name}
	if repo.Name == "" {
		repo.Name = nameFromRemote(origin)
	}
	if repo.Name == "" {
		why := "it has no origin remote"
		if origin != "" {
			why = "its origin, " + origin + ", names none"
		}
		return fmt.Errorf("cannot tell the owner/repo of the repository in %s (%s): pass --name owner/repo", g.Dir(), why)
	}
	if repo.URL == "" {
		repo.URL = "https://github.com/" + repo.Name + ".git"
	}

	graph, err := bench.LoadGitGraph(ctx, g, rev, shallow)
	if err != nil {
		return fmt.Errorf("read the history of %s: %w", branch, err)
	}
	merges := graph.Merges(o.since, o.until, o.IgnoreUsers)
	if len(merges) == 0 {
		return fmt.Errorf("no merge commits on %s%s in %s: an import from git needs pull requests merged with merge commits "+
			"(squash and rebase merges keep no trace of review); widen --since/--until, or name another --branch", branch, window(o), g.Dir())
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
	skip := func(mb bench.MergedBranch, number int, label, reason string) {
		log.Record(bench.ImportEntry{Repo: repo.Name, Number: number, Merge: mb.Merge.SHA, Reason: reason})
		key := reason
		if strings.HasPrefix(reason, bench.SkipNoTruthPrefix) {
			key = bench.SkipNoTruthPrefix
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
		number, _, _ := bench.PRFromMerge(mb.Merge.Subject)
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
		imported, total, filepath.Join(o.Out, bench.ImportManifest), graph.Commits(), branch, len(merges), window(o))
	for _, p := range parts {
		fmt.Fprintf(f.Err, "  skipped: %s\n", p)
	}
	return nil
}

// window says which dates the import was limited to, for messages.
func window(o *BenchImportOptions) string {
	switch {
	case o.Since != "" && o.Until != "":
		return fmt.Sprintf(" from %s until %s", o.Since, o.Until)
	case o.Since != "":
		return " since " + o.Since
	case o.Until != "":
		return " until " + o.Until
	}
	return ""
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
