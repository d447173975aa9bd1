// Package ghreview turns a report into the GitHub pull request reviews to post, in the seeds'
// layout: one review per reviewer (or one consolidated review), event COMMENT, inline comments
// only on lines GitHub accepts, everything else in the body's other notes, and hidden markers
// so that a later run recognises what it already posted.
//
// It is pure: a report, the PR's diff and what is already on the PR in, review drafts out. It
// must never call GitHub (a client posts the Plan), and it must never drop a finding: one that
// cannot go inline becomes an other note with the reason, and one that is not posted at all
// is listed in Plan.Skipped with the reason.
package ghreview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
)

// Layout says how the reviewers' findings are split into reviews.
type Layout string

// The layouts.
const (
	PerReviewer  Layout = "per-reviewer" // one review per reviewer, as in the seeds (the default)
	Consolidated Layout = "consolidated" // one review, one section per reviewer
)

// Layouts lists the allowed values.
var Layouts = []Layout{PerReviewer, Consolidated}

// ParseLayout accepts a layout name; "" is the default.
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(strings.TrimSpace(s)); l {
	case "":
		return PerReviewer, nil
	case PerReviewer, Consolidated:
		return l, nil
	}
	return "", fmt.Errorf("unknown review layout %q (allowed: %s, %s)", s, PerReviewer, Consolidated)
}

// Event is the event of every review: the council comments, it never approves or blocks.
const Event = "COMMENT"

// DefaultMaxInline is the number of inline comments a review carries at most, unless
// Options.MaxInline says otherwise.
const DefaultMaxInline = 30

// Options controls Build.
type Options struct {
	// Council is the display name in headers and footers. Empty means the report's
	// Tool.Council, then "Council".
	Council string
	Layout  Layout // empty means PerReviewer
	// HeadSHA is the commit the review was computed on: every review's commit_id and the
	// revision of the permalinks. Empty means the report's Change.HeadSHA.
	HeadSHA string
	// RepoURL is https://github.com/owner/repo, for the permalinks of other notes. Without
	// it, notes show path:line without a link.
	RepoURL string
	// Diff is the PR's own diff at HeadSHA. Every inline comment is checked against it; a
	// finding whose lines it does not hold goes to the body, so without it nothing is inline.
	Diff []diff.File
	// Posted holds the fingerprints of findings already on the PR (posted, or dismissed,
	// resolved, 👎), which are never posted again, and the ReviewKey of reviews already posted.
	// PostedFrom builds it from the PR's markers.
	Posted map[string]bool
	// MaxInline caps the inline comments of one review, most severe first; the rest go to the
	// body's other notes. 0 means DefaultMaxInline; a negative number means none inline.
	MaxInline int
}

// Comment is one inline review comment. Line and StartLine are line numbers on Side (and
// StartSide, always equal to Side) of the file at Path; StartLine is 0 for a one-line comment.
type Comment struct {
	Path      string
	Body      string
	Line      int
	StartLine int
	Side      string // "RIGHT" or "LEFT"
	StartSide string // Side for a multi-line comment, else ""
	FindingID string
	Reviewer  string // the reviewer that owns the finding
	// Category and Severity are the finding's, for its marker when Demote moves the comment
	// into the body.
	Category string
	Severity finding.Severity
	// Note is the comment as a line of the body's other notes ("path:line — title: …"), which
	// Demote uses when GitHub rejects the comment. It is not part of what is posted.
	Note string
}

// Review is one review to post.
type Review struct {
	Reviewer string // the reviewer's name; "" for a consolidated review
	Body     string
	Event    string // always Event
	CommitID string
	Comments []Comment
}

// Plan is what Build decided.
type Plan struct {
	Reviews []Review
	// Skipped lists the findings that are posted nowhere, as "<id>: <why>": filtered, or
	// already on the PR.
	Skipped []string
}

// Build turns r into the reviews to post. It depends on r and o alone.
func Build(r report.Report, o Options) Plan {
	o = withDefaults(r, o)
	b := &builder{r: r, o: o, ix: diff.NewIndex(o.Diff)}

	secs, byName := b.sections()
	var skipped []string
	for i, f := range r.Findings {
		s := secs[byName[ownerName(f)]]
		switch {
		case f.Status == finding.Filtered:
			reason := markdown.OneLine(f.FilterReason)
			if reason == "" {
				reason = "no reason recorded"
			}
			skipped = append(skipped, skipName(f)+": filtered: "+reason)
		case f.ID != "" && o.Posted[f.ID]:
			skipped = append(skipped, skipName(f)+": already posted")
			s.posted++
		case f.Status == finding.Minor:
			s.minor = append(s.minor, entry{f: f, order: i})
		case f.Status == finding.Reported:
			if c, why := b.check(f); why != "" {
				s.notes = append(s.notes, entry{f: f, order: i, reason: why})
			} else {
				s.inline = append(s.inline, entry{f: f, order: i, comment: c})
			}
		default:
			s.notes = append(s.notes, entry{f: f, order: i})
		}
	}

	var reviews []Review
	switch o.Layout {
	case Consolidated:
		b.cap(secs)
		if rv, ok := b.consolidated(secs); ok {
			reviews = append(reviews, rv)
		}
	default:
		for _, s := range secs {
			b.cap([]*section{s})
			if rv, ok := b.perReviewer(s); ok {
				reviews = append(reviews, rv)
			}
		}
	}
	return Plan{Reviews: reviews, Skipped: skipped}
}

func withDefaults(r report.Report, o Options) Options {
	if o.Council == "" {
		o.Council = r.Tool.Council
	}
	if o.Council == "" {
		o.Council = "Council"
	}
	if o.Layout == "" {
		o.Layout = PerReviewer
	}
	if o.HeadSHA == "" {
		o.HeadSHA = r.Change.HeadSHA
	}
	switch {
	case o.MaxInline == 0:
		o.MaxInline = DefaultMaxInline
	case o.MaxInline < 0:
		o.MaxInline = 0
	}
	o.RepoURL = strings.TrimSuffix(o.RepoURL, "/")
	return o
}

type builder struct {
	r  report.Report
	o  Options
	ix *diff.Index
}

// section is one reviewer's part: a review of its own, or a section of the consolidated one.
type section struct {
	rv     report.Reviewer
	inline []entry // commentable findings, most severe first once capped
	notes  []entry // findings for the body, in report order once capped
	minor  []entry // true but minor findings: one collapsed list in the body, in report order
	posted int     // findings already on the PR
}

// entry is a finding on its way to a comment or a note.
type entry struct {
	f       finding.Finding
	order   int     // index in the report, to keep notes in report order
	pos     int     // place among the inline candidates of its review, most severe first
	reason  string  // why a reported finding is a note instead of inline
	comment Comment // set for inline entries
}

// sections returns one section per reviewer of the report, then one per owner of a finding
// that is no reviewer of the report, so that a reviewer-by-reviewer layout drops nothing.
func (b *builder) sections() ([]*section, map[string]int) {
	var secs []*section
	byName := make(map[string]int)
	add := func(rv report.Reviewer) {
		if _, ok := byName[rv.Name]; ok {
			return
		}
		byName[rv.Name] = len(secs)
		secs = append(secs, &section{rv: rv})
	}
	for _, rv := range b.r.Reviewers {
		add(rv)
	}
	for _, f := range b.r.Findings {
		name := ownerName(f)
		add(report.Reviewer{Name: name, Title: name, Kind: "lens"})
	}
	return secs, byName
}

// ownerName is the finding's owner; a finding that names none is shown as the council's own.
func ownerName(f finding.Finding) string {
	if o := f.Owner(); o != "" {
		return o
	}
	return "council"
}

func skipName(f finding.Finding) string {
	if f.ID != "" {
		return f.ID
	}
	return markdown.Location(f)
}

// check returns the inline comment for f, or why GitHub would reject one: each end of the
// range must be a commentable line of this PR's diff on f's side, both in one hunk, start
// before end.
func (b *builder) check(f finding.Finding) (Comment, string) {
	side := sideOf(f)
	if f.Line <= 0 {
		return Comment{}, "no line to comment on"
	}
	if _, ok := b.ix.File(f.Path); !ok {
		return Comment{}, "the file is not in this pull request's diff"
	}
	where := ""
	if side == finding.Left {
		where = " of the old file"
	}
	start := f.StartLine
	if start == f.Line {
		start = 0
	}
	switch {
	case start == 0:
		if _, ok := b.ix.Lookup(f.Path, side, f.Line); !ok {
			return Comment{}, fmt.Sprintf("line %d%s is not in this pull request's diff", f.Line, where)
		}
	case start > f.Line:
		return Comment{}, fmt.Sprintf("start line %d is after line %d", start, f.Line)
	case !b.ix.SameHunk(f.Path, side, start, f.Line):
		return Comment{}, fmt.Sprintf("lines %d-%d%s are not inside one hunk of this pull request's diff", start, f.Line, where)
	}
	c := Comment{
		// A renamed file is commented on under its new path, whichever path the finding cites.
		Path:      b.canonical(f.Path),
		Line:      f.Line,
		StartLine: start,
		Side:      string(side),
		FindingID: f.ID,
		Reviewer:  ownerName(f),
		Category:  f.Category,
		Severity:  f.Severity,
	}
	if start > 0 {
		c.StartSide = c.Side
	}
	return c, ""
}

func sideOf(f finding.Finding) finding.Side {
	if f.Side == finding.Left {
		return finding.Left
	}
	return finding.Right
}

// cap keeps the most severe MaxInline inline entries of secs, which share one review, and
// moves the rest to their sections' notes.
func (b *builder) cap(secs []*section) {
	type ref struct {
		s *section
		e entry
	}
	var all []ref
	for _, s := range secs {
		for _, e := range s.inline {
			all = append(all, ref{s, e})
		}
		s.inline = nil
	}
	slices.SortStableFunc(all, func(x, y ref) int {
		if c := cmp.Compare(y.e.f.Severity.Rank(), x.e.f.Severity.Rank()); c != 0 {
			return c
		}
		return cmp.Compare(x.e.order, y.e.order)
	})
	for i, x := range all {
		x.e.pos = i
		if i < b.o.MaxInline {
			x.s.inline = append(x.s.inline, x.e)
			continue
		}
		x.e.reason = fmt.Sprintf("over the limit of %d inline comments per review", b.o.MaxInline)
		x.s.notes = append(x.s.notes, x.e)
	}
	for _, s := range secs {
		slices.SortStableFunc(s.notes, func(x, y entry) int { return cmp.Compare(x.order, y.order) })
	}
}

// worthPosting says whether s has something to say: a finding not yet on the PR, or a
// summary or partial failure not yet posted for this head. A re-run on the same head with
// nothing new posts nothing, and neither does a reviewer that failed without producing
// anything: a review that only says a request failed is noise to every watcher of the pull
// request, and the error itself is for the run's log, not for them.
func (b *builder) worthPosting(s *section) bool {
	if b.failedEmpty(s) {
		return false
	}
	if len(s.inline)+len(s.notes)+len(s.minor) > 0 {
		return true
	}
	said := strings.TrimSpace(s.rv.Summary) != "" || len(s.rv.Errors) > 0
	return said && !b.o.Posted[ReviewKey(s.rv.Name, b.o.HeadSHA)]
}

// failedEmpty says whether s's reviewer failed and produced nothing: no finding (shown, those
// posted on an earlier run included, or filtered) and no summary.
func (b *builder) failedEmpty(s *section) bool {
	if len(s.rv.Errors) == 0 || strings.TrimSpace(s.rv.Summary) != "" {
		return false
	}
	tally := b.r.Counts()[s.rv.Name]
	return tally.Shown()+tally.Filtered == 0
}

func (b *builder) perReviewer(s *section) (Review, bool) {
	if !b.worthPosting(s) {
		return Review{}, false
	}
	comments := b.comments(s)
	blocks := []string{"### " + markdown.Prefix(s.rv.Emoji, b.o.Council+" — "+markdown.Title(s.rv))}
	blocks = append(blocks, b.alert(s.rv))
	blocks = append(blocks, b.degraded()...)
	blocks = append(blocks, b.sectionBody(s)...)
	blocks = append(blocks, b.footer(len(comments)), ReviewMarker(s.rv.Name, b.o.HeadSHA))
	return Review{
		Reviewer: s.rv.Name,
		Body:     strings.Join(blocks, "\n\n"),
		Event:    Event,
		CommitID: b.o.HeadSHA,
		Comments: comments,
	}, true
}

func (b *builder) consolidated(secs []*section) (Review, bool) {
	blocks := []string{"### 🤖 " + b.o.Council}
	blocks = append(blocks, b.degraded()...)
	type placed struct {
		pos int
		c   Comment
	}
	var all []placed
	shown := 0
	for _, s := range secs {
		if !b.worthPosting(s) {
			continue
		}
		shown++
		for i, c := range b.comments(s) {
			all = append(all, placed{s.inline[i].pos, c})
		}
		blocks = append(blocks, "#### "+markdown.Prefix(s.rv.Emoji, markdown.Title(s.rv)), b.alert(s.rv))
		blocks = append(blocks, b.sectionBody(s)...)
		blocks = append(blocks, ReviewMarker(s.rv.Name, b.o.HeadSHA))
	}
	if shown == 0 {
		return Review{}, false
	}
	// One review carries the cap over all reviewers: its comments go most severe first, in
	// the order cap chose them.
	slices.SortFunc(all, func(x, y placed) int { return cmp.Compare(x.pos, y.pos) })
	comments := make([]Comment, len(all))
	for i, p := range all {
		comments[i] = p.c
	}
	blocks = append(blocks, b.footer(len(comments)))
	return Review{
		Body:     strings.Join(blocks, "\n\n"),
		Event:    Event,
		CommitID: b.o.HeadSHA,
		Comments: comments,
	}, true
}

func (b *builder) comments(s *section) []Comment {
	out := make([]Comment, 0, len(s.inline))
	for _, e := range s.inline {
		c := e.comment
		c.Body = b.commentBody(s.rv, e.f)
		c.Note = b.noteText(e.f)
		out = append(out, c)
	}
	return out
}
