// Package learn is council's review memory: what happened to its own past comments on a
// repository's pull requests (signals: replies, reactions, resolved threads, whether the lines
// changed before the merge), the statistics of those signals, and the learnings a model
// distils from them, kept in the repository as .council/learnings.yaml where the team can
// read, edit and review them.
//
// Learnings are read from a change's base revision only: a pull request cannot teach council
// to ignore its own problems. The package is pure: signals and files come in as values, and it
// never reads the network, the clock or the working directory itself (harvest.go's reading of
// GitHub goes through an interface its caller provides).
package learn

import "time"

// Signal is what happened to one of council's posted comments: the contract of the JSON-lines
// signals file (`council learn --signals-out`, `--from-file`). Field names are a contract.
type Signal struct {
	Repo      string    `json:"repo"` // owner/name
	PR        int       `json:"pr"`
	PRCreated time.Time `json:"pr_created"`
	PRMerged  bool      `json:"pr_merged"`
	URL       string    `json:"url"` // the comment's html_url: the evidence link
	CommentID int64     `json:"comment_id"`
	Created   time.Time `json:"created"`
	// What council said, from its hidden marker and the comment itself.
	Fingerprint string `json:"fingerprint"`
	Reviewer    string `json:"reviewer"`
	Category    string `json:"category,omitempty"`
	Severity    string `json:"severity,omitempty"`
	Path        string `json:"path"`
	Line        int    `json:"line,omitempty"`
	Title       string `json:"title"`          // the finding's title (the comment's first line, without decoration)
	Body        string `json:"body,omitempty"` // the comment's text, markers and footer removed
	// What people did about it.
	Replies    []Reply        `json:"replies,omitempty"`
	Reactions  map[string]int `json:"reactions,omitempty"` // GitHub's reaction content: "+1", "-1", "confused", "heart", ...
	Resolved   bool           `json:"resolved"`
	ResolvedBy string         `json:"resolved_by,omitempty"`
	// Addressed: the commented lines changed between the comment's commit and the merge (the
	// benchmark importer's rule, bench.Changes.Addressed); false for an unmerged pull request.
	Addressed bool `json:"addressed"`
	// Source says whose words the signal holds: "" (SourceCouncil) for council's own comment,
	// SourceReview for a human reviewer's inline comment, SourceFeedback for a change a
	// branch made in answer to review, found in git history. The last two are asks: what this
	// repository's reviewers asked authors for.
	Source string `json:"source,omitempty"`
	// Author is who wrote the words: a human reviewer's login (SourceReview), or the author of
	// the commit that answered review (SourceFeedback); "" for council's own comments.
	Author string `json:"author,omitempty"`
	// Merge and Commit (SourceFeedback): the merge commit that brought the branch in, and the
	// commit that made the change. Body then holds the commit's message and the hunk.
	Merge  string `json:"merge,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Sources of a signal.
const (
	SourceCouncil  = ""         // council's own inline comment
	SourceReview   = "review"   // a human reviewer's inline comment
	SourceFeedback = "feedback" // a change made in answer to review, from git history
)

// IsAsk reports whether the signal is something a human reviewer asked for (SourceReview or
// SourceFeedback) rather than council's own comment.
func (s Signal) IsAsk() bool { return s.Source == SourceReview || s.Source == SourceFeedback }

// Reply is one reply in the thread of a council comment.
type Reply struct {
	Author      string    `json:"author"`
	WriteAccess bool      `json:"write_access"` // the author could push to the repository
	Body        string    `json:"body"`
	Created     time.Time `json:"created"`
}

// Outcome is what a signal says of the comment.
type Outcome string

// Outcomes.
const (
	Accepted Outcome = "accepted" // addressed, or a positive reaction (+1, heart, hooray, rocket)
	Rejected Outcome = "rejected" // a negative reaction (-1, confused), or a maintainer's reply and no change, or resolved with no change
	Ignored  Outcome = "ignored"  // nothing happened
)

// Kinds of learnings.
const (
	Suppress  = "suppress"  // a pattern of findings maintainers reject: not raised again
	Emphasise = "emphasise" // a kind of finding maintainers act on: looked for harder
	// Ask is what this repository's human reviewers ask authors for again and again, learned
	// from what they asked (asks: SourceReview and SourceFeedback signals). Reviewers are told
	// to look for it, and a minor finding the validator sees as an instance of it is shown up
	// front as a nit (Promotes).
	Ask = "ask"
)

// File is .council/learnings.yaml. Its core is a contract: a top-level `learnings:` list whose
// entries have id, kind, text, and optional reviewer, category, paths and evidence.
type File struct {
	Learnings []Learning `yaml:"learnings" json:"learnings"`
	// Source says what the learnings were built from; informational, kept by `council learn`.
	Source *Source `yaml:"source,omitempty" json:"source,omitempty"`
}

// Learning is one short, specific, reviewable statement with its evidence.
type Learning struct {
	ID       string     `yaml:"id" json:"id"`                                 // [a-z0-9-]+, unique in the file
	Kind     string     `yaml:"kind" json:"kind"`                             // Suppress, Emphasise or Ask
	Text     string     `yaml:"text" json:"text"`                             // what the reviewers are told, and why
	Reviewer string     `yaml:"reviewer,omitempty" json:"reviewer,omitempty"` // only this reviewer's findings ("" any)
	Category string     `yaml:"category,omitempty" json:"category,omitempty"` // only this category ("" any)
	Paths    []string   `yaml:"paths,omitempty" json:"paths,omitempty"`       // globs as in rules; none: every file
	Evidence []Evidence `yaml:"evidence,omitempty" json:"evidence,omitempty"`
	// Counts are the signals behind it, by outcome; kept by `council learn`, editable.
	Counts map[string]int `yaml:"counts,omitempty" json:"counts,omitempty"`
}

// Evidence is one signal a learning rests on.
type Evidence struct {
	URL    string `yaml:"url" json:"url"`
	Signal string `yaml:"signal" json:"signal"` // what happened: "dismissed: 👎 by @alice", "addressed before the merge", ...
}

// Source is what a learnings file was built from.
type Source struct {
	Repos   []string  `yaml:"repos" json:"repos"`
	Since   time.Time `yaml:"since,omitzero" json:"since,omitzero"`
	Until   time.Time `yaml:"until,omitzero" json:"until,omitzero"` // only pull requests created before this
	PRs     int       `yaml:"prs" json:"prs"`
	Signals int       `yaml:"signals" json:"signals"`
	Model   string    `yaml:"model,omitempty" json:"model,omitempty"`
	Built   time.Time `yaml:"built,omitzero" json:"built,omitzero"`
}

// Path is where a repository keeps its learnings, read at the base revision.
const Path = ".council/learnings.yaml"
