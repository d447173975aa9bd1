package learn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/github"
)

// GitHub is what Harvest reads: the pull requests of a repository (newest first), the review
// history of one (its inline comments with their replies and reaction counts, and its review
// threads with who resolved them), the reactions to one comment, and a user's permission.
// *github.Client is one; its transport already waits out short rate limits and retries, so
// Harvest adds no retry of its own.
type GitHub interface {
	ListPullRequests(ctx context.Context, owner, repo string, each func(github.PRDetails) (bool, error)) error
	History(ctx context.Context, owner, repo string, n int) (github.History, error)
	CommentReactions(ctx context.Context, owner, repo string, commentID int64) (map[string]int, error)
	Permission(ctx context.Context, owner, repo, login string) (string, error)
}

var _ GitHub = (*github.Client)(nil)

// PRInfo is the pull request a council comment was made on, as HarvestOptions.Addressed needs
// it.
type PRInfo struct {
	Repo    string // owner/name
	Number  int
	Merged  bool
	HeadSHA string // the merged head, once merged
}

// Comment is a council comment as HarvestOptions.Addressed needs it: where it was first made.
type Comment struct {
	ID        int64
	Path      string
	Side      string // github.SideRight or github.SideLeft
	StartSide string
	// Line and StartLine are the lines at CommitID, where it was made (StartLine 0 for one line).
	Line, StartLine int
	CommitID        string
}

// HarvestOptions says where to harvest and how.
type HarvestOptions struct {
	Repo         string    // owner/name
	Since, Until time.Time // pull requests created in [Since, Until); zero: no bound
	// Trusted reports whether a login is council's own: only markers in its comments count,
	// and its replies are not people's. Required.
	Trusted func(login string) bool
	// Ignore are logins that are bots without saying so (AI reviewers that post as users),
	// compared case-insensitively: their comments are not a reviewer's asks.
	Ignore []string
	// Addressed applies the benchmark importer's rule to a council comment on a merged pull
	// request: did its lines change between the commit it was made on and the merge? Nil
	// leaves every signal's Addressed false.
	Addressed func(ctx context.Context, pr PRInfo, c Comment) (bool, error)
	// CacheDir, when set, keeps each pull request's signals (DIR/<owner>/<repo>/pr-<n>.json)
	// and the listing of the repository's pull requests (listing.json). A closed or merged
	// pull request is read once; an open one again when its updated_at moved or its entry is
	// MaxAge old. A listing younger than MaxAge that covers [Since, Until) replaces GitHub's,
	// so that a second run sends no request; Refresh lists from GitHub and reads every open
	// pull request again. Each pull request is stored as soon as it is read: an interrupted
	// run resumes where it stopped.
	CacheDir string
	MaxAge   time.Duration
	Refresh  bool
	Now      func() time.Time // the clock MaxAge is measured with; time.Now when nil
	// Log receives one line per pull request and the problems that do not stop the harvest;
	// nil discards them.
	Log io.Writer
	// OnPR, when set, is called after each pull request with the number of signals it gave and
	// whether they came from the cache.
	OnPR func(pr, signals int, cached bool)
}

// Harvest reads what happened to the inline comments on the pull requests of o.Repo created in
// [o.Since, o.Until), newest first, and returns one Signal per comment, oldest pull request
// first. Two kinds of comment count, each an inline review comment that starts a thread:
//
//   - council's own (SourceCouncil): by a trusted login, with a finding marker ("<!--
//     council:v1 id=... reviewer=... -->");
//   - a human reviewer's ask (SourceReview): by a person who is not the pull request's author,
//     not trusted, not a bot (GitHub's user type "Bot", or a "[bot]" login) and not in
//     o.Ignore, with some text.
//
// Both get their replies, reactions, thread state and Addressed alike.
//
// A rate limit the client could not wait out stops the harvest: the error says how far it got,
// and with a CacheDir a second run resumes there. Other errors stop it too; a permission that
// cannot be read, or an Addressed that fails, is logged and leaves the value false (an
// Addressed failure is tried again on the next run).
func Harvest(ctx context.Context, gh GitHub, o HarvestOptions) ([]Signal, error) {
	owner, name, ok := strings.Cut(o.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("harvest: %q is not a repository: want OWNER/NAME", o.Repo)
	}
	if o.Trusted == nil {
		return nil, errors.New("harvest: no trusted login: whose comments are council's")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &harvester{gh: gh, o: o, owner: owner, name: name, perms: map[string]bool{}, permErr: map[string]bool{}}
	if o.CacheDir != "" {
		h.cache = harvestCache{dir: filepath.Join(o.CacheDir, owner, name)}
	}
	now := o.Now()
	listing, cachedListing, err := h.listing(ctx, now)
	if err != nil {
		return nil, h.stopped(err, 0)
	}
	if cachedListing {
		fmt.Fprintf(o.Log, "council: %s: the pull requests listed from the cache made at %s\n", o.Repo, listing.MadeAt.Local().Format(time.DateTime))
	}
	// The cache keeps every person's comments: which logins are ignored is this run's choice.
	ignored := map[string]bool{}
	for _, l := range o.Ignore {
		ignored[strings.ToLower(strings.TrimSpace(l))] = true
	}
	var out []Signal
	for _, p := range listing.PRs {
		if !inRange(p.CreatedAt, o.Since, o.Until) {
			continue
		}
		ss, err := h.pr(ctx, p, now)
		if err != nil {
			return nil, h.stopped(err, p.Number)
		}
		for _, s := range ss {
			if s.Source == SourceReview && ignored[strings.ToLower(s.Author)] {
				continue
			}
			out = append(out, s)
		}
	}
	// Oldest pull request first, each one's comments in the order GitHub gave them.
	slices.SortStableFunc(out, func(a, b Signal) int { return a.PR - b.PR })
	return out, nil
}

type harvester struct {
	gh          GitHub
	o           HarvestOptions
	owner, name string
	cache       harvestCache // dir "" for none
	// perms is each login's write access, read once per harvest; permErr the logins whose
	// permission could not be read (said once).
	perms   map[string]bool
	permErr map[string]bool
	// read and cached count the pull requests done so far, for the error of a stopped run.
	read, cached int
}

// stopped wraps the error that ended the harvest with how far it got.
func (h *harvester) stopped(err error, pr int) error {
	where := "while listing the pull requests"
	if pr > 0 {
		where = fmt.Sprintf("at #%d", pr)
	}
	done := fmt.Sprintf("%s (%d read from GitHub, %d from the cache)", harvestPlural(h.read+h.cached, "pull request"), h.read, h.cached)
	if h.cache.dir != "" {
		done += ", kept in " + h.cache.dir + ": run again to resume"
	}
	if github.IsRateLimited(err) {
		return fmt.Errorf("harvest %s: rate limited %s after %s: %w", h.o.Repo, where, done, err)
	}
	return fmt.Errorf("harvest %s: stopped %s after %s: %w", h.o.Repo, where, done, err)
}

func harvestPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func inRange(t, since, until time.Time) bool {
	if t.IsZero() {
		return true
	}
	return (since.IsZero() || !t.Before(since)) && (until.IsZero() || t.Before(until))
}

// listedPR is what the harvest needs of one listed pull request.
type listedPR struct {
	Number    int       `json:"number"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	State     string    `json:"state"`
	Merged    bool      `json:"merged,omitempty"`
	HeadSHA   string    `json:"head_sha,omitempty"`
}

// harvestListing is a repository's pull requests created in [Since, Until), newest first, as
// listed at MadeAt.
type harvestListing struct {
	Since  time.Time  `json:"since,omitzero"`
	Until  time.Time  `json:"until,omitzero"`
	MadeAt time.Time  `json:"made_at"`
	PRs    []listedPR `json:"prs"`
}

// covers reports whether a listing answers a harvest of [since, until) at now.
func (l harvestListing) covers(since, until, now time.Time, maxAge time.Duration) bool {
	if l.MadeAt.IsZero() || now.Before(l.MadeAt) || now.Sub(l.MadeAt) >= maxAge {
		return false
	}
	sinceOK := l.Since.IsZero() || (!since.IsZero() && !since.Before(l.Since))
	untilOK := l.Until.IsZero() || (!until.IsZero() && !until.After(l.Until))
	return sinceOK && untilOK
}

// listing is the cached listing when it covers the harvest, else GitHub's (stored).
func (h *harvester) listing(ctx context.Context, now time.Time) (harvestListing, bool, error) {
	if h.cache.dir != "" && h.o.MaxAge > 0 && !h.o.Refresh {
		var l harvestListing
		ok, err := h.cache.load("listing.json", &l)
		if err != nil {
			return l, false, err
		}
		if ok && l.PRs != nil && l.covers(h.o.Since, h.o.Until, now, h.o.MaxAge) {
			return l, true, nil
		}
	}
	l := harvestListing{Since: h.o.Since, Until: h.o.Until, MadeAt: now, PRs: []listedPR{}}
	err := h.gh.ListPullRequests(ctx, h.owner, h.name, func(p github.PRDetails) (bool, error) {
		if !h.o.Since.IsZero() && !p.CreatedAt.IsZero() && p.CreatedAt.Before(h.o.Since) {
			return false, nil // newest first: every later one is older still
		}
		if inRange(p.CreatedAt, h.o.Since, h.o.Until) {
			l.PRs = append(l.PRs, listedPR{Number: p.Number, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, State: p.State, Merged: p.Merged, HeadSHA: p.HeadSHA})
		}
		return true, nil
	})
	if err != nil {
		return l, false, err
	}
	if h.cache.dir != "" {
		if err := h.cache.store("listing.json", l); err != nil {
			return l, false, err
		}
	}
	return l, false, nil
}

// harvestVersion is the version of harvestedPR. A cached pull request of another version is
// read again: version 2 added human reviewers' comments (SourceReview), which a pull request
// cached before holds none of.
const harvestVersion = 2

// harvestedPR is one pull request's signals as the cache keeps them.
type harvestedPR struct {
	Version   int       `json:"version,omitempty"`
	PR        int       `json:"pr"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	State     string    `json:"state"`
	Merged    bool      `json:"merged"`
	ReadAt    time.Time `json:"read_at"`
	// LinesRead is set once HarvestOptions.Addressed answered for every signal of a merged
	// pull request.
	LinesRead bool     `json:"lines_read,omitempty"`
	Signals   []Signal `json:"signals"`
}

// current reports whether a cached pull request still holds for p as listed now.
func (c harvestedPR) current(p listedPR, now time.Time, o HarvestOptions) bool {
	if c.Version != harvestVersion {
		return false
	}
	if o.Addressed != nil && c.Merged && !c.LinesRead && len(c.Signals) > 0 {
		return false
	}
	if c.State == "closed" && p.State == "closed" && c.Merged == p.Merged {
		return true // closed or merged: final
	}
	if o.Refresh || o.MaxAge <= 0 || now.Sub(c.ReadAt) >= o.MaxAge || now.Before(c.ReadAt) {
		return false
	}
	return c.State == p.State && (p.UpdatedAt.IsZero() || p.UpdatedAt.Equal(c.UpdatedAt))
}

func (h *harvester) pr(ctx context.Context, p listedPR, now time.Time) ([]Signal, error) {
	file := "pr-" + strconv.Itoa(p.Number) + ".json"
	if h.cache.dir != "" {
		var c harvestedPR
		ok, err := h.cache.load(file, &c)
		if err != nil {
			return nil, err
		}
		if ok && c.PR == p.Number && c.current(p, now, h.o) {
			h.cached++
			if h.o.OnPR != nil {
				h.o.OnPR(p.Number, len(c.Signals), true)
			}
			return c.Signals, nil
		}
	}
	hist, err := h.gh.History(ctx, h.owner, h.name, p.Number)
	if err != nil {
		return nil, err
	}
	got := harvestedPR{
		Version: harvestVersion, PR: p.Number, UpdatedAt: p.UpdatedAt, State: hist.PR.State, Merged: hist.PR.Merged, ReadAt: now,
		Signals: []Signal{},
	}
	if got.UpdatedAt.IsZero() {
		got.UpdatedAt = hist.PR.UpdatedAt
	}
	if got.LinesRead, err = h.signals(ctx, hist, &got.Signals); err != nil {
		return nil, err
	}
	h.read++
	if h.cache.dir != "" {
		if err := h.cache.store(file, got); err != nil {
			return nil, err
		}
	}
	asks := 0
	for _, s := range got.Signals {
		if s.IsAsk() {
			asks++
		}
	}
	fmt.Fprintf(h.o.Log, "council: %s#%d: %d council comments, %d reviewers' comments\n", h.o.Repo, p.Number, len(got.Signals)-asks, asks)
	if h.o.OnPR != nil {
		h.o.OnPR(p.Number, len(got.Signals), false)
	}
	return got.Signals, nil
}

// signals builds the signals of one pull request's history into out. linesRead reports whether
// Addressed answered for every one of a merged pull request.
func (h *harvester) signals(ctx context.Context, hist github.History, out *[]Signal) (linesRead bool, err error) {
	threads := map[int64]github.Thread{}
	for _, th := range hist.Threads {
		threads[th.FirstCommentID] = th
	}
	// GitHub's in_reply_to names the thread's first comment.
	replies := map[int64][]github.HistoryComment{}
	for _, cm := range hist.Comments {
		if cm.InReplyTo != 0 && !h.o.Trusted(cm.User) && strings.TrimSpace(cm.Body) != "" {
			replies[cm.InReplyTo] = append(replies[cm.InReplyTo], cm)
		}
	}
	pr := PRInfo{Repo: h.o.Repo, Number: hist.PR.Number, Merged: hist.PR.Merged, HeadSHA: hist.PR.HeadSHA}
	linesRead = hist.PR.Merged && h.o.Addressed != nil
	for _, cm := range hist.Comments {
		if cm.InReplyTo != 0 {
			continue
		}
		s := Signal{
			Repo: h.o.Repo, PR: hist.PR.Number, PRCreated: hist.PR.CreatedAt, PRMerged: hist.PR.Merged,
			URL: cm.HTMLURL, CommentID: cm.ID, Created: cm.CreatedAt, Path: cm.Path, Line: cm.Line,
		}
		switch {
		case h.o.Trusted(cm.User):
			m, ok := findingMarker(cm.Body)
			if !ok {
				continue
			}
			s.Fingerprint, s.Reviewer, s.Category, s.Severity = m.id, m.reviewer, m.category, m.severity
			s.Title, s.Body = parseComment(cm.Body)
		case reviewerOf(hist.PR.Author, cm):
			s.Source, s.Author, s.Body = SourceReview, cm.User, strings.TrimSpace(strings.ReplaceAll(cm.Body, "\r\n", "\n"))
		default:
			continue
		}
		if s.Line == 0 {
			s.Line = cm.OriginalLine // outdated: where it was made
		}
		for _, r := range replies[cm.ID] {
			w, err := h.writeAccess(ctx, r.User)
			if err != nil {
				return false, err
			}
			s.Replies = append(s.Replies, Reply{Author: r.User, WriteAccess: w, Body: strings.TrimSpace(r.Body), Created: r.CreatedAt})
		}
		// The comment carries its reactions' total: only a comment with some is asked for them.
		if cm.Reactions.Total > 0 {
			rs, err := h.gh.CommentReactions(ctx, h.owner, h.name, cm.ID)
			if err != nil {
				return false, err
			}
			if len(rs) > 0 {
				s.Reactions = rs
			}
		}
		if th, ok := threads[cm.ID]; ok && th.Resolved {
			s.Resolved, s.ResolvedBy = true, th.ResolvedBy
		}
		if hist.PR.Merged && h.o.Addressed != nil {
			side, startSide := cm.Side, cm.StartSide
			if side == "" {
				side = github.SideRight
			}
			c := Comment{
				ID: cm.ID, Path: cm.Path, Side: side, StartSide: startSide,
				Line: cm.OriginalLine, StartLine: cm.OriginalStartLine, CommitID: cm.OriginalCommitID,
			}
			yes, err := h.o.Addressed(ctx, pr, c)
			switch {
			case github.IsRateLimited(err) || ctx.Err() != nil:
				return false, err
			case err != nil:
				linesRead = false
				fmt.Fprintf(h.o.Log, "council: %s#%d: whether comment %d was addressed is left unknown: %v\n", h.o.Repo, pr.Number, cm.ID, err)
			default:
				s.Addressed = yes
			}
		}
		*out = append(*out, s)
	}
	return linesRead, nil
}

// reviewerOf reports whether an untrusted comment is a human reviewer's ask: by a person
// (not a bot by GitHub's account type or a "[bot]" login) other than the pull request's
// author, with some text. Ignored logins are left out after the cache (Harvest).
func reviewerOf(author string, cm github.HistoryComment) bool {
	return cm.User != "" && !strings.EqualFold(cm.User, author) &&
		!(github.User{Login: cm.User, Type: cm.UserType}).Bot() && strings.TrimSpace(cm.Body) != ""
}

// writeAccess reports whether login can push to the repository, asking GitHub once per login.
// A permission GitHub will not give (the token cannot read it) is said once and taken as none.
func (h *harvester) writeAccess(ctx context.Context, login string) (bool, error) {
	key := strings.ToLower(login)
	if w, ok := h.perms[key]; ok {
		return w, nil
	}
	p, err := h.gh.Permission(ctx, h.owner, h.name, login)
	switch {
	case github.IsRateLimited(err) || ctx.Err() != nil:
		return false, err
	case err != nil:
		if !h.permErr[key] {
			h.permErr[key] = true
			fmt.Fprintf(h.o.Log, "council: %s: the permission of %s could not be read, so their replies count as without write access: %v\n", h.o.Repo, login, err)
		}
		h.perms[key] = false
		return false, nil
	}
	h.perms[key] = github.CanWrite(p)
	return h.perms[key], nil
}

// markerRE is a finding marker as ghreview.Marker writes it at the end of every inline
// comment: "<!-- council:v1 id=<fingerprint> reviewer=<name> category=<c> severity=<s> -->",
// values query-escaped, category and severity absent from markers older than them. It
// is read here rather than through ghreview.ParseMarkers so that this package does not depend
// on the publishing layer.
var markerRE = regexp.MustCompile(`<!--\s*council:v1\s+(.*?)\s*-->`)

type marker struct{ id, reviewer, category, severity string }

// findingMarker is the first finding marker of body.
func findingMarker(body string) (marker, bool) {
	for _, m := range markerRE.FindAllStringSubmatch(body, -1) {
		var mk marker
		for _, field := range strings.Fields(m[1]) {
			k, v, ok := strings.Cut(field, "=")
			if !ok {
				continue
			}
			if u, err := url.QueryUnescape(v); err == nil {
				v = u
			}
			switch k {
			case "id":
				mk.id = v
			case "reviewer":
				mk.reviewer = v
			case "category":
				mk.category = v
			case "severity":
				mk.severity = strings.ToLower(v)
			}
		}
		if mk.id != "" {
			return mk, true
		}
	}
	return marker{}, false
}

var (
	// agentPrompt is the collapsed prompt for a coding agent publish adds to a comment.
	agentPrompt = regexp.MustCompile("(?s)<details><summary>Prompt for a coding agent</summary>.*?</details>")
	// hintLine is the small line that invites replies and reactions, just before the marker.
	hintLine = regexp.MustCompile(`(?m)^<sub>🤖 .*</sub>\s*$`)
)

// parseComment reads a council inline comment as ghreview lays it out: a first line
// "<emoji> **<Reviewer>** — <title>" (a persona's "**<Name>** — <its words>"), the body, a
// suggestion, a collapsed prompt for a coding agent, "Also raised by: ...", a hint in small
// print, the marker last. The title is the first line's text after the dash; the body is what
// follows, without the prompt, the "also raised by", the hint and the marker. The category and
// severity are not shown in the text: the marker carries them.
func parseComment(text string) (title, body string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	title = first
	if _, after, ok := strings.Cut(first, " — "); ok {
		title = after
	}
	title = strings.TrimSpace(strings.Trim(strings.TrimSpace(markerRE.ReplaceAllString(title, "")), "*_"))

	rest = hintLine.ReplaceAllString(agentPrompt.ReplaceAllString(markerRE.ReplaceAllString(rest, ""), ""), "")
	var kept []string
	for _, para := range strings.Split(rest, "\n\n") {
		p := strings.TrimSpace(para)
		if p == "" || strings.HasPrefix(p, "Also raised by:") {
			continue
		}
		kept = append(kept, p)
	}
	return title, strings.Join(kept, "\n\n")
}

// harvestCache is the on-disk cache of one repository's harvest: JSON files written whole (a
// temporary file renamed), so that an interrupted run leaves no half file.
type harvestCache struct{ dir string }

// load decodes name into v; a missing file, or one that does not decode, is a miss.
func (c harvestCache) load(name string, v any) (bool, error) {
	data, err := os.ReadFile(filepath.Join(c.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the cache: %w", err)
	}
	return json.Unmarshal(data, v) == nil, nil
}

func (c harvestCache) store(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write the cache: %w", err)
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("write the cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*.json")
	if err != nil {
		return fmt.Errorf("write the cache: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write the cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(c.dir, name)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write the cache: %w", err)
	}
	return nil
}
