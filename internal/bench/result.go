package bench

// The files `council bench run` and `council bench score` write. Field names are a contract
// (docs/bench.md): reports and users' scripts read them.

// RunVersion is the version of run.json.
const RunVersion = "1"

// RunManifest is run.json in a run directory: how the run was made and where each sample ended.
// Reviews are in reviews/<id>.json, the review JSON `council review --format json` writes.
type RunManifest struct {
	RunVersion string   `json:"run_version"`
	Name       string   `json:"name"`    // the run directory's base name unless set
	Dataset    string   `json:"dataset"` // the dataset directory as given
	Provider   string   `json:"provider"`
	Model      string   `json:"model"`
	Reviewers  []string `json:"reviewers"` // every lens and persona that ran
	MaxCostUSD float64  `json:"max_cost_usd,omitempty"`
	// SpentUSD is what every invocation of the run cost, attempts that failed or were stopped
	// included; --max-cost limits it. A sample's CostUSD is its last attempt's.
	SpentUSD float64 `json:"spent_usd"`
	// Learnings is the learnings file the samples were reviewed with (--learnings FILE given
	// once); nil when each sample used its base revision's own. NoLearnings: none were used
	// (--no-learnings).
	Learnings   *LearningsUsed `json:"learnings,omitempty"`
	NoLearnings bool           `json:"no_learnings,omitempty"`
	// LearningsFiles are the files of --learnings given several times, each applied to the
	// samples of its repos; a sample of a repository none names was reviewed with no
	// learnings. Learnings is then nil.
	LearningsFiles []LearningsFileUsed `json:"learnings_files,omitempty"`
	Samples        []RunSample         `json:"samples"`
}

// Sample statuses in a run.
const (
	StatusDone    = "done"    // reviews/<id>.json holds the review
	StatusFailed  = "failed"  // the sample could not be reviewed; Error says why
	StatusStopped = "stopped" // not (fully) reviewed: the budget or an interrupt stopped it; a re-run retries it
)

// RunSample is where one sample of a run ended.
type RunSample struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	Error       string  `json:"error,omitempty"`
	Review      string  `json:"review,omitempty"` // "reviews/<id>.json"
	Findings    int     `json:"findings"`
	CostUSD     float64 `json:"cost_usd"`
	WallSeconds float64 `json:"wall_seconds"`
}

// ScoreVersion is the version of score.json.
const ScoreVersion = "1"

// Tier names. L0..L2 are deterministic; L3 is the optional LLM judge.
const (
	TierL0 = "L0" // same file
	TierL1 = "L1" // same file, line distance <= the window (3)
	TierL2 = "L2" // L1 and text similarity >= the threshold
	TierL3 = "L3" // the judge said: the same underlying issue
)

// Score is score.json: a run scored against its dataset's truth.
type Score struct {
	ScoreVersion string       `json:"score_version"`
	Run          string       `json:"run"`   // the run's name (run.json's name)
	Truth        string       `json:"truth"` // the dataset directory as given
	Model        string       `json:"model"`
	Options      ScoreOptions `json:"options"`
	// Tiers, in order L0, L1, L2 (and L3 with a judge): the headline table.
	Tiers []TierScore `json:"tiers"`
	// Samples counts what was scored: samples reviewed, and those left out with why.
	Samples     int               `json:"samples"`
	NotScored   []NotScored       `json:"not_scored,omitempty"`
	TruthItems  int               `json:"truth_items"`
	Findings    int               `json:"findings"`
	ByKind      map[string][]Rate `json:"recall_by_kind"`      // tier -> one Rate per kind, sorted by kind
	ByAddressed map[string][]Rate `json:"recall_by_addressed"` // tier -> "addressed", "not addressed"
	ByAuthor    map[string][]Rate `json:"recall_by_author"`    // tier -> one Rate per truth author
	ByReviewer  []ReviewerScore   `json:"by_reviewer"`
	// Redundancy is the share of findings that repeat another finding of the same sample
	// (same file, within the line window, similar text); FindingsPerPR is their mean count.
	Redundancy    float64 `json:"redundancy"`
	Duplicates    int     `json:"duplicates"`
	FindingsPerPR float64 `json:"findings_per_pr"`
	Cost          Spread  `json:"cost_usd"`     // per PR, from the run's ledger
	Time          Spread  `json:"wall_seconds"` // per PR
	// CostByPart splits Cost by where it went, in the order of CostParts.
	CostByPart []CostPart    `json:"cost_usd_by_part"`
	Judge      *JudgeSummary `json:"judge,omitempty"`
	// Placements score the findings by where the review showed them: up front, collapsed, and
	// all shown (Tiers' figures, with the share of PRs caught), in that order.
	Placements []PlacementScore `json:"placements"`
	// Acceptance is what people did with council's posted comments (--signals); nil without.
	Acceptance *Acceptance `json:"acceptance,omitempty"`
	// Labels are the blind judges' labels of the shown findings (--labels); nil without.
	Labels    *LabelScore   `json:"labels,omitempty"`
	PerSample []SampleScore `json:"per_sample"`
}

// Placements of a shown finding: where the review put it. A reader is asked to look at the
// findings up front; the minor ones are one collapsed list they may open.
const (
	PlacementUpFront   = "up_front"  // status reported (inline) or other_note (in the review body)
	PlacementCollapsed = "collapsed" // status minor: the validator's collapsed list of minor notes
	PlacementAllShown  = "all_shown" // both: every prediction
)

// Placements lists the placements in the order score.json and every output give them.
var Placements = []string{PlacementUpFront, PlacementCollapsed, PlacementAllShown}

// PlacementScore is the score of the findings of one placement, matched alone against the
// truth: the same one-to-one assignment as Tiers, with only those findings as predictions.
type PlacementScore struct {
	Placement     string          `json:"placement"`
	Findings      int             `json:"findings"`
	FindingsPerPR float64         `json:"findings_per_pr"`
	Tiers         []PlacementTier `json:"tiers"` // micro only: Macro is left zero
}

// PlacementTier is one tier of a placement: its precision and recall, and how many pull
// requests had at least one of their truth items caught.
type PlacementTier struct {
	TierScore
	// PRsCaught counts the samples with at least one truth item matched, of the samples that
	// have truth items.
	PRsCaught Share `json:"prs_caught"`
}

// Share is N of Of, and their ratio (0 when Of is 0).
type Share struct {
	N     int     `json:"n"`
	Of    int     `json:"of"`
	Share float64 `json:"share"`
}

func shareOf(n, of int) Share { return Share{N: n, Of: of, Share: safeRatio(n, of)} }

// Cost parts: where a review's cost went, from its usage.
const (
	CostReviewers   = "reviewers"    // every lens and persona's requests
	CostValidator   = "validator"    // the validator's checks
	CostCacheWarmup = "cache_warmup" // requests that only write the prompt cache for the reviewers
	CostOther       = "other"        // the rest of the review's cost: what its usage holds beyond the parts above
	CostUnsplit     = "unsplit"      // the cost of reviews whose usage has no breakdown
)

// CostParts lists the parts in the order of Score.CostByPart.
var CostParts = []string{CostReviewers, CostValidator, CostCacheWarmup, CostOther, CostUnsplit}

// CostPart is what one part of the reviews cost, over the scored samples.
type CostPart struct {
	Part  string  `json:"part"`
	Total float64 `json:"total"`
	Mean  float64 `json:"mean"`  // per PR scored
	Share float64 `json:"share"` // of the total cost (Score.Cost.Total); 0 when that is 0
}

// ScoreOptions are the knobs the score was computed with, so that it can be reproduced.
type ScoreOptions struct {
	LineWindow int     `json:"line_window"`          // L1's largest line distance (3)
	Threshold  float64 `json:"similarity_threshold"` // L2's smallest text similarity
	Bootstrap  int     `json:"bootstrap"`            // resamples for the confidence intervals
	Seed       int64   `json:"seed"`
	Judge      string  `json:"judge,omitempty"` // "provider:model"
}

// TierScore is one tier's precision, recall and F1, micro (pooled over every pair) and macro
// (the mean of per-sample values), each with a bootstrap 95% confidence interval.
type TierScore struct {
	Tier        string  `json:"tier"`
	Description string  `json:"description"`
	TP          int     `json:"tp"` // matched truth items (= matched findings: the assignment is one-to-one)
	FP          int     `json:"fp"` // findings matched to no truth item
	FN          int     `json:"fn"` // truth items matched by no finding
	Micro       Metrics `json:"micro"`
	Macro       Metrics `json:"macro"`
}

// Metrics are precision, recall and F1 with their 95% confidence intervals ([low, high]).
type Metrics struct {
	Precision   float64    `json:"precision"`
	Recall      float64    `json:"recall"`
	F1          float64    `json:"f1"`
	PrecisionCI [2]float64 `json:"precision_ci"`
	RecallCI    [2]float64 `json:"recall_ci"`
	F1CI        [2]float64 `json:"f1_ci"`
}

// Rate is a recall over one group of truth items.
type Rate struct {
	Group  string  `json:"group"`
	Hits   int     `json:"hits"`
	Total  int     `json:"total"`
	Recall float64 `json:"recall"`
}

// ReviewerScore is one reviewer's findings matched alone against the truth.
type ReviewerScore struct {
	Reviewer string      `json:"reviewer"`
	Kind     string      `json:"kind"` // lens, persona, rules
	Findings int         `json:"findings"`
	Tiers    []TierScore `json:"tiers"` // micro only: Macro is left zero
	// UpFrontFindings and UpFrontTiers are the same for its findings shown up front only.
	UpFrontFindings int         `json:"up_front_findings"`
	UpFrontTiers    []TierScore `json:"up_front_tiers"`
}

// Spread summarises a per-PR quantity.
type Spread struct {
	Total  float64 `json:"total"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// NotScored is a sample left out of the score, with why.
type NotScored struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// JudgeSummary is what the judge did.
type JudgeSummary struct {
	Model      string  `json:"model"`
	Pairs      int     `json:"pairs"`  // (truth, finding) pairs asked about
	Cached     int     `json:"cached"` // answered from the cache
	Errors     int     `json:"errors"` // unparseable or failed answers: neither hit nor miss
	Plausible  int     `json:"plausible"`
	Fabricated int     `json:"fabricated"`
	CostUSD    float64 `json:"cost_usd"`
}

// SampleScore is one sample's matching: the drill-down of the report.
type SampleScore struct {
	ID          string           `json:"id"`
	Title       string           `json:"title"`
	URL         string           `json:"url,omitempty"`
	CostUSD     float64          `json:"cost_usd"`
	WallSeconds float64          `json:"wall_seconds"`
	Truth       []TruthOutcome   `json:"truth"`
	Findings    []FindingOutcome `json:"findings"`
}

// TruthOutcome is one truth item and, per tier, the finding it was matched to.
type TruthOutcome struct {
	ID        string            `json:"id"`
	Author    string            `json:"author"`
	Path      string            `json:"path,omitempty"`
	Line      int               `json:"line,omitempty"`
	StartLine int               `json:"start_line,omitempty"`
	Kind      string            `json:"kind"`
	Addressed bool              `json:"addressed"`
	Body      string            `json:"body"`
	Source    string            `json:"source,omitempty"` // the truth item's: "feedback" for a change made in answer to review
	Matches   map[string]string `json:"matches"`          // tier -> finding id; a missing tier is a miss
}

// FindingOutcome is one council finding of the sample.
type FindingOutcome struct {
	ID        string            `json:"id"`
	Reviewers []string          `json:"reviewers"` // the first owns it
	Path      string            `json:"path"`
	Line      int               `json:"line,omitempty"`
	StartLine int               `json:"start_line,omitempty"`
	Severity  string            `json:"severity"`
	Category  string            `json:"category"`
	Title     string            `json:"title"`
	Body      string            `json:"body"`
	Placement string            `json:"placement"`           // up_front or collapsed
	Duplicate bool              `json:"duplicate,omitempty"` // repeats an earlier finding of the sample
	Verdict   string            `json:"verdict,omitempty"`   // the judge's, when unmatched: plausible or fabricated
	Matches   map[string]string `json:"matches"`             // tier -> truth id
}
