package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/review"
)

// parseSince reads --since: a date (2026-01-31) or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		if t, err = time.Parse(time.RFC3339, s); err != nil {
			return time.Time{}, fmt.Errorf("--since %q: want a date such as 2026-01-31, or an RFC 3339 time such as 2026-01-31T12:00:00Z", s)
		}
	}
	return t, nil
}

// personaCacheDir is where harvests are cached by default: the user cache directory.
func personaCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache directory (give --cache DIR): %w", err)
	}
	return filepath.Join(dir, "council", "persona"), nil
}

// dirCache is persona.Cache on disk: DIR/<owner>/<repo>/<login>/pr-<n>.json, one file per pull
// request, written whole (a temporary file renamed) so that an interrupted run leaves no half
// file. The login is part of the path: two personas of one repository do not evict each other.
type dirCache struct {
	dir   string
	login string
}

var (
	_ persona.Cache        = dirCache{}
	_ persona.ListingCache = dirCache{}
)

func (c dirCache) path(repo string, pr int) string {
	owner, name, _ := strings.Cut(repo, "/")
	return filepath.Join(c.dir, owner, name, strings.ToLower(c.login), "pr-"+strconv.Itoa(pr)+".json")
}

// Load reads a cached pull request. A file that does not decode is a miss: it is read again
// and overwritten.
func (c dirCache) Load(repo string, pr int) (persona.HarvestedPR, bool, error) {
	data, err := os.ReadFile(c.path(repo, pr))
	if errors.Is(err, fs.ErrNotExist) {
		return persona.HarvestedPR{}, false, nil
	}
	if err != nil {
		return persona.HarvestedPR{}, false, fmt.Errorf("read the cache: %w", err)
	}
	var h persona.HarvestedPR
	if json.Unmarshal(data, &h) != nil || h.PR != pr {
		return persona.HarvestedPR{}, false, nil
	}
	return h, true, nil
}

func (c dirCache) Store(repo string, pr int, h persona.HarvestedPR) error {
	return writeCacheFile(c.path(repo, pr), h)
}

// listingPath is DIR/<owner>/<repo>/<login>/listing.json.
func (c dirCache) listingPath(repo string) string {
	owner, name, _ := strings.Cut(repo, "/")
	return filepath.Join(c.dir, owner, name, strings.ToLower(c.login), "listing.json")
}

// LoadListing reads the cached listing of repo. A file that does not decode is a miss.
func (c dirCache) LoadListing(repo string) (persona.Listing, bool, error) {
	data, err := os.ReadFile(c.listingPath(repo))
	if errors.Is(err, fs.ErrNotExist) {
		return persona.Listing{}, false, nil
	}
	if err != nil {
		return persona.Listing{}, false, fmt.Errorf("read the cache: %w", err)
	}
	var l persona.Listing
	if json.Unmarshal(data, &l) != nil || l.PRs == nil {
		return persona.Listing{}, false, nil
	}
	return l, true, nil
}

func (c dirCache) StoreListing(repo string, l persona.Listing) error {
	return writeCacheFile(c.listingPath(repo), l)
}

// writeCacheFile writes v as JSON to p whole: a temporary file renamed.
func writeCacheFile(p string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write the cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("write the cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*.json")
	if err != nil {
		return fmt.Errorf("write the cache: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write the cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write the cache: %w", err)
	}
	return nil
}

// harvested is what the --repo harvest gives the rest of persona build.
type harvested struct {
	comments []persona.Comment
	excluded []review.Count // bots, in persona.Select's order
	repos    []string
}

// harvestRepos reads o.Login's comments in every --repo, a repository after the other.
func harvestRepos(ctx context.Context, f *Factory, o *PersonaBuildOptions, client *github.Client, cacheDir string) (harvested, error) {
	var out harvested
	bots := 0
	cache := dirCache{dir: cacheDir, login: o.Login}
	for _, r := range o.Repos {
		owner, name, _ := splitRepo(r) // checked by validate
		before := client.Requests()
		clone := &lazyClone{open: func(ctx context.Context) (*cloneRepo, error) {
			c, _, err := openRepoClone(ctx, f, client, owner, name, o.Clone)
			return c, err
		}}
		res, err := persona.Harvest(ctx, client, persona.HarvestOptions{
			Owner: owner, Repo: name, Login: o.Login, Since: o.since, Cache: cache,
			MaxAge: o.MaxAge, Refresh: o.Refresh, Now: time.Now, Git: clone,
		})
		clone.close()
		for _, e := range res.Excluded {
			bots += e.Count
		}
		if err != nil {
			if github.IsNotFound(err) {
				return out, fmt.Errorf("no repository %s/%s, or the token cannot see it: check the name, and that GITHUB_TOKEN (or GH_TOKEN) can read it: %w", owner, name, err)
			}
			return out, fmt.Errorf("%w (the %d pull requests read so far are cached in %s: run again to resume)", err, res.Fetched+res.Cached, cacheDir)
		}
		sent := client.Requests() - before
		if res.CachedListing {
			fmt.Fprintf(f.Err, "council: %s/%s: the pull requests listed from the cache made at %s, %s; --refresh to read GitHub again\n",
				owner, name, res.ListedAt.Local().Format(time.DateTime), plural(sent, "GitHub request"))
		}
		fmt.Fprintf(f.Err, "council: %s/%s: %s (%d read from GitHub, %d from the cache, %d opened by %s and not read): %s by %s; %s\n",
			owner, name, plural(res.PRs, "pull request"), res.Fetched, res.Cached, res.OwnPRs, o.Login,
			plural(len(res.Comments), "comment"), o.Login, plural(sent, "GitHub request"))
		if res.Unread > 0 {
			fmt.Fprintf(f.Err, "council: %s/%s: the commits of %s could not be read from the clone, so whether %s's comments there were addressed by a change is left unknown (first: %s)\n",
				owner, name, plural(res.Unread, "merged pull request"), o.Login, oneLine(res.UnreadErr.Error()))
		}
		out.comments = append(out.comments, res.Comments...)
		out.repos = append(out.repos, owner+"/"+name)
	}
	if bots > 0 {
		out.excluded = []review.Count{{Name: persona.ExcludedBot, Count: bots}}
	}
	return out, nil
}

// mergeCounts adds counts of the same reason, keeping the order in which reasons first appear.
func mergeCounts(lists ...[]review.Count) []review.Count {
	var out []review.Count
	at := map[string]int{}
	for _, l := range lists {
		for _, c := range l {
			if i, ok := at[c.Name]; ok {
				out[i].Count += c.Count
				continue
			}
			at[c.Name] = len(out)
			out = append(out, c)
		}
	}
	return out
}

// apiHost is the host of the GitHub API a client talks to, for the consent line.
func apiHost(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return base
	}
	return u.Host
}

func countAll(cs []review.Count) int {
	n := 0
	for _, c := range cs {
		n += c.Count
	}
	return n
}

// harvestCmd says whose comments it reads and where, then harvests them from GitHub.
func harvestCmd(ctx context.Context, f *Factory, o *PersonaBuildOptions, cfg config.Config) (harvested, error) {
	owner, repo := "", ""
	if len(o.Repos) > 0 {
		owner, repo, _ = splitRepo(o.Repos[0])
	}
	client, err := githubClient(ctx, f.Getenv, owner, repo)
	if err != nil {
		return harvested{}, err
	}
	cacheDir := o.CacheDir
	if cacheDir == "" {
		if cacheDir, err = personaCacheDir(); err != nil {
			return harvested{}, err
		}
	}
	since := "every pull request"
	if o.Since != "" {
		since = "since " + o.Since
	}
	fmt.Fprintf(f.Err, "council: reading the review comments of %s in %s (%s) from GitHub (%s); they are cached in %s, sent to %s (%s) to distill persona %q, and saved to %s\n",
		o.Login, strings.Join(o.Repos, ", "), since, apiHost(client.BaseURL()), cacheDir, cfg.Provider, cfg.Model, o.Name, commentsPath(o.Out))
	return harvestRepos(ctx, f, o, client, cacheDir)
}

// defaultMaxAge is --max-age's default: a listing a day old is taken as current.
const defaultMaxAge = 24 * time.Hour

// oneLine folds s's whitespace, newlines included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// lazyClone is a repository's clone opened (made, for a cached clone) the first time a commit
// is needed: a harvest with no merged pull request to read touches no clone.
type lazyClone struct {
	open func(context.Context) (*cloneRepo, error)
	c    *cloneRepo
	err  error
	done bool
}

var _ bench.GitRepo = (*lazyClone)(nil)

func (l *lazyClone) get(ctx context.Context) (*cloneRepo, error) {
	if !l.done {
		l.c, l.err = l.open(ctx)
		l.done = true
	}
	return l.c, l.err
}

func (l *lazyClone) close() {
	if l.c != nil {
		_ = l.c.g.Close()
	}
}

func (l *lazyClone) Fetch(ctx context.Context, sha string) error {
	c, err := l.get(ctx)
	if err != nil {
		return err
	}
	return c.Fetch(ctx, sha)
}

func (l *lazyClone) MergeBase(ctx context.Context, a, b string) (string, error) {
	c, err := l.get(ctx)
	if err != nil {
		return "", err
	}
	return c.MergeBase(ctx, a, b)
}

func (l *lazyClone) ChangedLines(ctx context.Context, from, to, path string) (bench.FileChange, error) {
	c, err := l.get(ctx)
	if err != nil {
		return bench.FileChange{}, err
	}
	return c.ChangedLines(ctx, from, to, path)
}
