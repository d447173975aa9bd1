package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// History is what GitHub kept of a pull request's review, in the importer's own terms: the
// pull request, every review and inline comment (replies included), and which review threads
// were resolved.
type History struct {
	PR       PullRequest
	Reviews  []PRReview
	Comments []PRComment
	Resolved map[int64]bool // resolved review threads, by the id of their first comment
}

// PullRequest is a pull request's metadata as the importer needs it.
type PullRequest struct {
	Number              int
	Title, Body, Author string
	BaseRef, BaseSHA    string
	HeadSHA             string // the current head: the merged head once Merged
	URL                 string
	Merged              bool
	Created             time.Time // when it was opened; zero when unknown
}

// User is the author of a review or comment. Bot is GitHub's own word (user type "Bot");
// logins ending in "[bot]" and the configured AI reviewers are recognised besides.
type User struct {
	Login string
	Bot   bool
}

// PRReview is a review: submitted (COMMENTED, APPROVED, CHANGES_REQUESTED, DISMISSED) or
// PENDING (a draft only its author sees, which never counts).
type PRReview struct {
	ID          int64
	User        User
	State       string
	Body        string
	CommitID    string
	SubmittedAt time.Time
	URL         string
}

// PRComment is an inline review comment where it was made: CommitID is GitHub's
// original_commit_id, Line and StartLine its original_line and original_start_line, so that
// later pushes do not move it.
type PRComment struct {
	ID, ReviewID int64
	InReplyTo    int64 // the comment it answers; 0 for the first comment of a thread
	User         User
	Body, Path   string
	Line         int    // 0 for a comment on the whole file
	StartLine    int    // first line of a range; 0 for one line
	Side         string // RIGHT (the head's lines) or LEFT (the base's)
	StartSide    string
	CommitID     string
	CreatedAt    time.Time
	URL          string
}

// PRHistory reads a pull request's review history (GitHub, through internal/github).
type PRHistory interface {
	History(ctx context.Context, owner, repo string, n int) (History, error)
}

// GitRepo is the clone the importer takes commits from.
type GitRepo interface {
	// Fetch makes sure the repository holds commit sha, fetching it by SHA when it does not:
	// a force-pushed-away commit is in no branch. An error means it cannot be had.
	Fetch(ctx context.Context, sha string) error
	MergeBase(ctx context.Context, a, b string) (string, error)
	// ChangedLines says what the diff from..to does to path, in from's line numbers.
	ChangedLines(ctx context.Context, from, to, path string) (FileChange, error)
}

// FileChange is what a diff does to one file, seen from the old side.
type FileChange struct {
	// Whole is set when the file was deleted, renamed away or is binary: all of it changed.
	Whole bool
	// Hunks are the old side's lines each hunk replaces. A hunk of Lines 0 inserts after
	// line Start.
	Hunks []LineSpan
}

// LineSpan is Lines lines from Start.
type LineSpan struct{ Start, Lines int }

// Changed reports whether the file changed at all.
func (c FileChange) Changed() bool { return c.Whole || len(c.Hunks) > 0 }

// Touches reports whether the change rewrites any of the old side's lines first..last, or
// inserts lines between two of them.
func (c FileChange) Touches(first, last int) bool {
	if c.Whole {
		return true
	}
	for _, h := range c.Hunks {
		if h.Lines == 0 {
			if first <= h.Start && h.Start < last {
				return true
			}
			continue
		}
		if h.Start <= last && first <= h.Start+h.Lines-1 {
			return true
		}
	}
	return false
}

// SkipError is a pull request that gives no sample, with the reason import.json records.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

func skipPR(format string, args ...any) error {
	return &SkipError{Reason: fmt.Sprintf(format, args...)}
}

// NoHumanReview is the reason a pull request that no person but its author reviewed is
// skipped.
const NoHumanReview = "no review by a human other than the author"

// Reasons a human comment of the round is dropped besides DropReason's.
const (
	DropByAuthor = "written by the pull request's author"
	DropReply    = "a reply in a thread that is not ground truth"
	// DropNotByAuthor is a truth item left out because Importer.Authors does not name its
	// author (council persona eval keeps only the evaluated maintainer's comments).
	DropNotByAuthor = "not by the evaluated author"
)

// KeepAuthors moves every truth item of r not written by one of logins (case-insensitive) to
// Dropped with DropNotByAuthor. No logins keeps every item.
func KeepAuthors(r Round, logins []string) Round {
	if len(logins) == 0 {
		return r
	}
	var kept []Truth
	for _, t := range r.Truth {
		if slices.ContainsFunc(logins, func(l string) bool { return strings.EqualFold(l, t.Author) }) {
			kept = append(kept, t)
			continue
		}
		r.Dropped = append(r.Dropped, Dropped{ID: t.ID, Author: t.Author, Body: t.Body, Reason: DropNotByAuthor})
	}
	r.Truth = kept
	return r
}

// Round is a pull request's first human review round: the commit its first human reviewer
// saw, and what the humans said about that commit.
type Round struct {
	Head     string // the commit of the first review by a human other than the author
	Reviewer string // who wrote that review
	// Truth is the round's ground truth, Addressed set for resolved threads only: whether
	// the code changed afterwards takes git (Importer).
	Truth   []Truth
	Dropped []Dropped
}

// prPeople tells the pull request's humans from its bots.
type prPeople struct {
	author string
	ignore map[string]bool // lower-case logins
}

// human is a person: not a GitHub App bot, not a "[bot]" login, not an ignored login.
func (p prPeople) human(u User) bool {
	l := strings.ToLower(u.Login)
	return l != "" && !u.Bot && !strings.HasSuffix(l, "[bot]") && !p.ignore[l]
}

// reviewer is a person other than the author.
func (p prPeople) reviewer(u User) bool { return p.human(u) && !strings.EqualFold(u.Login, p.author) }

// SelectRound finds the first human review round of a pull request and turns it into ground
// truth. It is the pure half of the import; ignore lists logins that are bots without saying
// so (config bench.ai_reviewers, --ignore-user), compared case-insensitively.
//
// The head is the commit of the earliest submitted review, or thread-starting inline comment,
// by a human other than the author: not a GitHub App (user type "Bot"), no "[bot]" login, not
// in ignore. A review counts when it has a body, approves or requests changes, or starts a
// thread: a review that only holds replies (GitHub files each reply as one) is an answer, not
// a look at the code.
//
// The truth is every thread-starting comment made at that commit by such a human, and the
// body of each of their reviews of that commit, that DropReason keeps. A thread's replies by
// humans (the author included) become the item's Replies; bots' replies are left out. Every
// human comment of the round that is not truth is in Dropped with the reason: praise, too
// short, written by the author, a reply in a thread that is not truth. Comments made at other
// commits belong to later rounds and are in neither.
//
// A pull request with no such review is a *SkipError.
func SelectRound(h History, ignore []string) (Round, error) {
	ppl := prPeople{author: h.PR.Author, ignore: map[string]bool{}}
	for _, l := range ignore {
		ppl.ignore[strings.ToLower(strings.TrimSpace(l))] = true
	}
	pending := map[int64]bool{}
	for _, r := range h.Reviews {
		if r.State == "PENDING" || r.State == "" {
			pending[r.ID] = true
		}
	}
	comments := make([]PRComment, 0, len(h.Comments))
	for _, c := range h.Comments {
		if !pending[c.ReviewID] {
			comments = append(comments, c)
		}
	}
	slices.SortStableFunc(comments, func(a, b PRComment) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})

	starts := map[int64]bool{} // reviews that start a thread
	for _, c := range comments {
		if c.InReplyTo == 0 {
			starts[c.ReviewID] = true
		}
	}
	type act struct {
		at     time.Time
		id     int64
		commit string
		user   string
	}
	var first *act
	consider := func(a act) {
		if first == nil || a.at.Before(first.at) || (a.at.Equal(first.at) && a.id < first.id) {
			first = &a
		}
	}
	bots := map[string]bool{}
	for _, r := range h.Reviews {
		if pending[r.ID] {
			continue
		}
		if !ppl.human(r.User) {
			bots[r.User.Login] = true
			continue
		}
		looked := strings.TrimSpace(r.Body) != "" || r.State == "APPROVED" || r.State == "CHANGES_REQUESTED" || starts[r.ID]
		if ppl.reviewer(r.User) && looked && r.CommitID != "" {
			consider(act{at: r.SubmittedAt, id: r.ID, commit: r.CommitID, user: r.User.Login})
		}
	}
	for _, c := range comments {
		if !ppl.human(c.User) {
			bots[c.User.Login] = true
			continue
		}
		if ppl.reviewer(c.User) && c.InReplyTo == 0 && c.CommitID != "" {
			consider(act{at: c.CreatedAt, id: c.ID, commit: c.CommitID, user: c.User.Login})
		}
	}
	if first == nil {
		names := make([]string, 0, len(bots))
		for l := range bots {
			if l != "" { // an account with no login (deleted) has no name to give
				names = append(names, l)
			}
		}
		if len(names) == 0 {
			return Round{}, skipPR("%s", NoHumanReview)
		}
		slices.Sort(names)
		return Round{}, skipPR("%s (left out as bots or AI reviewers: %s)", NoHumanReview, strings.Join(names, ", "))
	}

	round := Round{Head: first.commit, Reviewer: first.user}
	var truthAt, droppedAt []writtenAt
	addTruth := func(t Truth, at time.Time, id int64) {
		round.Truth = append(round.Truth, t)
		truthAt = append(truthAt, writtenAt{at, id})
	}
	addDropped := func(d Dropped, at time.Time, id int64) {
		round.Dropped = append(round.Dropped, d)
		droppedAt = append(droppedAt, writtenAt{at, id})
	}

	byID := map[int64]PRComment{}
	for _, c := range comments {
		byID[c.ID] = c
	}
	// rootOf follows a reply to its thread's first comment. GitHub points every reply at the
	// first comment already; the loop guards against chains and cycles all the same.
	rootOf := func(c PRComment) (PRComment, bool) {
		for range len(comments) + 1 {
			if c.InReplyTo == 0 {
				return c, true
			}
			parent, ok := byID[c.InReplyTo]
			if !ok {
				return PRComment{}, false
			}
			c = parent
		}
		return PRComment{}, false
	}

	truthIndex := map[int64]int{} // first comment id -> index in round.Truth
	for _, c := range comments {
		if c.InReplyTo != 0 || c.CommitID != round.Head || !ppl.human(c.User) {
			continue
		}
		id := strconv.FormatInt(c.ID, 10)
		if !ppl.reviewer(c.User) {
			addDropped(Dropped{ID: id, Author: c.User.Login, Body: c.Body, Reason: DropByAuthor}, c.CreatedAt, c.ID)
			continue
		}
		if reason := DropReason(c.Body); reason != "" {
			addDropped(Dropped{ID: id, Author: c.User.Login, Body: c.Body, Reason: reason}, c.CreatedAt, c.ID)
			continue
		}
		kind, question := Classify(c.Body, c.Path)
		t := Truth{
			ID: id, Author: c.User.Login, Path: c.Path, Line: c.Line, Side: sideOf(c.Side), Body: c.Body,
			Kind: kind, Question: question, Addressed: h.Resolved[c.ID], URL: c.URL,
		}
		if first, _ := CommentRange(c.Line, c.StartLine, c.Side, c.StartSide); first < c.Line {
			t.StartLine = first
		}
		truthIndex[c.ID] = len(round.Truth)
		addTruth(t, c.CreatedAt, c.ID)
	}
	for _, c := range comments {
		if c.InReplyTo == 0 || !ppl.human(c.User) {
			continue
		}
		root, ok := rootOf(c)
		if !ok || root.CommitID != round.Head {
			continue
		}
		if i, ok := truthIndex[root.ID]; ok {
			round.Truth[i].Replies = append(round.Truth[i].Replies, Reply{Author: c.User.Login, Body: c.Body})
			continue
		}
		addDropped(Dropped{ID: strconv.FormatInt(c.ID, 10), Author: c.User.Login, Body: c.Body, Reason: DropReply}, c.CreatedAt, c.ID)
	}

	used := map[string]bool{}
	for _, t := range round.Truth {
		used[t.ID] = true
	}
	for _, r := range h.Reviews {
		if pending[r.ID] || r.CommitID != round.Head || !ppl.human(r.User) || strings.TrimSpace(r.Body) == "" {
			continue
		}
		// Review and comment ids are separate sequences on GitHub: keep the item ids unique.
		id := strconv.FormatInt(r.ID, 10)
		if used[id] {
			id = "review-" + id
		}
		used[id] = true
		if !ppl.reviewer(r.User) {
			addDropped(Dropped{ID: id, Author: r.User.Login, Body: r.Body, Reason: DropByAuthor}, r.SubmittedAt, r.ID)
			continue
		}
		if reason := DropReason(r.Body); reason != "" {
			addDropped(Dropped{ID: id, Author: r.User.Login, Body: r.Body, Reason: reason}, r.SubmittedAt, r.ID)
			continue
		}
		kind, question := Classify(r.Body, "")
		addTruth(Truth{ID: id, Author: r.User.Login, Body: r.Body, Kind: kind, Question: question, ReviewBody: true, URL: r.URL},
			r.SubmittedAt, r.ID)
	}
	round.Truth = byWriting(round.Truth, truthAt)
	round.Dropped = byWriting(round.Dropped, droppedAt)
	return round, nil
}

// writtenAt is when a comment or review was written, and its id for ties.
type writtenAt struct {
	at time.Time
	id int64
}

// byWriting sorts items by when they were written (at[i] is items[i]'s), then by id.
func byWriting[T any](items []T, at []writtenAt) []T {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(at[a].at.Compare(at[b].at), cmp.Compare(at[a].id, at[b].id))
	})
	out := make([]T, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func sideOf(s string) string {
	if s == "RIGHT" || s == "LEFT" {
		return s
	}
	return ""
}

// SampleID is the id, and file name without ".json", of the sample of owner/repo#n.
func SampleID(owner, repo string, n int) string {
	return strings.ToLower(fmt.Sprintf("%s-%s-%d", owner, repo, n))
}

// Importer turns pull requests into samples: SelectRound over what GitHub kept, then git for
// the base, the merged head and which comments the code answered.
type Importer struct {
	GitHub PRHistory
	Git    GitRepo
	// Ignore lists logins that are bots without saying so (AI reviewers), case-insensitive.
	Ignore []string
	// Repo is where the samples say the repository is; Import fills its Name.
	Repo Repo
	// Authors, when set, keeps only the truth items these logins wrote (case-insensitive);
	// the others are dropped with DropNotByAuthor.
	Authors []string
}

// Imported is one imported pull request.
type Imported struct {
	Sample   Sample
	Reviewer string // the first human reviewer, whose commit is the sample's head
}

// Import reads pull request owner/repo#n and builds its sample. A pull request that gives
// none (no human review, a first-reviewed commit that cannot be fetched) is a *SkipError.
//
// Addressed, for an inline truth item: its thread was resolved, or, once merged, the code it
// is about changed between the head and the merged head: for a RIGHT comment (on the head's
// lines), a hunk of that diff rewrites one of its lines or inserts between two of them; for a
// LEFT comment (on the base's lines) or a comment on the whole file, the file changed at all;
// a file deleted or renamed away changed in full. A pull request that was not merged has only
// resolution to go by. A review body is never addressed: nothing says what it is about.
func (im *Importer) Import(ctx context.Context, owner, repo string, n int) (Imported, error) {
	h, err := im.GitHub.History(ctx, owner, repo, n)
	if err != nil {
		return Imported{}, err
	}
	round, err := SelectRound(h, im.Ignore)
	if err != nil {
		return Imported{}, err
	}
	round = KeepAuthors(round, im.Authors)
	if err := im.Git.Fetch(ctx, round.Head); err != nil {
		return Imported{}, skipPR("the first reviewed commit %s (reviewed by %s) is not in the clone and cannot be fetched by SHA "+
			"(force-pushed away and no longer served?): %v", shortCommit(round.Head), round.Reviewer, err)
	}
	if err := im.Git.Fetch(ctx, h.PR.BaseSHA); err != nil {
		return Imported{}, skipPR("the base branch's commit %s cannot be fetched: %v", shortCommit(h.PR.BaseSHA), err)
	}
	base, err := im.Git.MergeBase(ctx, round.Head, h.PR.BaseSHA)
	if err != nil {
		return Imported{}, skipPR("no merge-base of the reviewed commit %s and the base branch (%s): %v", shortCommit(round.Head), h.PR.BaseRef, err)
	}
	merge := ""
	if h.PR.Merged {
		merge = h.PR.HeadSHA
		if err := im.Git.Fetch(ctx, merge); err != nil {
			return Imported{}, skipPR("the merged head %s cannot be fetched: %v", shortCommit(merge), err)
		}
	}
	if merge != "" && merge != round.Head {
		changes := &Changes{Git: im.Git, Merge: merge}
		for i, t := range round.Truth {
			if t.ReviewBody || t.Addressed {
				continue
			}
			first, last := t.Lines()
			if round.Truth[i].Addressed, err = changes.Addressed(ctx, round.Head, t.Path, t.Side, first, last); err != nil {
				return Imported{}, err
			}
		}
	}
	r := im.Repo
	r.Name = owner + "/" + repo
	s := Sample{
		SampleVersion: SampleVersion, ID: SampleID(owner, repo, n), Repo: r,
		PR: PR{
			Number: h.PR.Number, Title: h.PR.Title, Body: h.PR.Body, Author: h.PR.Author,
			BaseRef: h.PR.BaseRef, URL: h.PR.URL, Created: h.PR.Created,
		},
		Base: base, Head: round.Head, Merge: merge, Truth: round.Truth, Dropped: round.Dropped,
	}
	if s.Truth == nil {
		s.Truth = []Truth{} // "truth": [] says no comment survived; null would say nothing
	}
	if err := s.Validate(); err != nil {
		return Imported{}, fmt.Errorf("sample of %s/%s#%d: %w", owner, repo, n, err)
	}
	return Imported{Sample: s, Reviewer: round.Reviewer}, nil
}

func shortCommit(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// ImportLog is a dataset's import.json: every pull request an import considered, with the
// sample it gave or why it gave none.
type ImportLog struct {
	PRs []ImportEntry `json:"prs"`

	at map[string]int // index in PRs by entryKey, built by the first Record
}

// ImportEntry is one pull request of the log: ID when imported, Reason when skipped. An
// import from git names the merge commit too (Number is 0 when its message names no pull
// request).
type ImportEntry struct {
	Repo   string `json:"repo"` // owner/repo
	Number int    `json:"number"`
	Merge  string `json:"merge,omitempty"`
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Record adds e, replacing what an earlier import said about the same pull request (the same
// merge commit, for an import from git).
func (l *ImportLog) Record(e ImportEntry) {
	if l.at == nil {
		l.at = make(map[string]int, len(l.PRs))
		for i, x := range l.PRs {
			l.at[entryKey(x)] = i
		}
	}
	k := entryKey(e)
	if i, ok := l.at[k]; ok {
		l.PRs[i] = e
		return
	}
	l.at[k] = len(l.PRs)
	l.PRs = append(l.PRs, e)
}

// entryKey identifies what an entry is about: a merge commit, or a pull request by number.
func entryKey(e ImportEntry) string {
	if e.Merge != "" {
		return strings.ToLower(e.Repo) + "@" + e.Merge
	}
	return strings.ToLower(e.Repo) + "#" + strconv.Itoa(e.Number)
}

// ReadImportLog reads dir's import.json; a dataset without one has an empty log.
func ReadImportLog(dir string) (ImportLog, error) {
	var l ImportLog
	data, err := os.ReadFile(filepath.Join(dir, ImportManifest))
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("read import log: %w", err)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("read import log %s: %w", filepath.Join(dir, ImportManifest), err)
	}
	return l, nil
}

// WriteImportLog writes dir's import.json, sorted by repository and number.
func WriteImportLog(dir string, l ImportLog) error {
	prs := slices.Clone(l.PRs)
	slices.SortFunc(prs, func(a, b ImportEntry) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Repo), strings.ToLower(b.Repo)), cmp.Compare(a.Number, b.Number),
			cmp.Compare(a.Merge, b.Merge))
	})
	if prs == nil {
		prs = []ImportEntry{}
	}
	data, err := json.MarshalIndent(ImportLog{PRs: prs}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode import log: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write import log: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ImportManifest), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write import log: %w", err)
	}
	return nil
}
