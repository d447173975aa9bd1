package bench

// Prediction is one council finding as scoring sees it: a finding of the review JSON that was
// shown to the user (reported, an other note or a minor note; filtered ones are not
// predictions).
type Prediction struct {
	ID        string   `json:"id"`
	Reviewers []string `json:"reviewers"` // the first owns it
	Path      string   `json:"path"`
	Line      int      `json:"line,omitempty"`
	StartLine int      `json:"start_line,omitempty"`
	Side      string   `json:"side,omitempty"`
	Severity  string   `json:"severity"`
	Category  string   `json:"category"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Quote     string   `json:"quote,omitempty"`
	Placement string   `json:"placement"` // PlacementUpFront or PlacementCollapsed
}

// PairKey names a (truth item, finding) pair of a sample.
type PairKey struct{ Sample, Truth, Finding string }

// FindingKey names a finding of a sample.
type FindingKey struct{ Sample, Finding string }

// JudgePair is a pair the judge is asked about: "the same underlying issue?".
type JudgePair struct {
	Key     PairKey
	Truth   Truth
	Finding Prediction
}

// JudgeFinding is a finding the judge labels plausible or fabricated (it matched no truth item).
type JudgeFinding struct {
	Key     FindingKey
	Finding Prediction
}

// Verdicts are the judge's answers, gathered before scoring so that scoring stays pure. A pair
// or finding that is absent was not asked about, or the judge failed on it: an error is never
// counted as a miss.
type Verdicts struct {
	Same      map[PairKey]bool
	Plausible map[FindingKey]bool
	Summary   JudgeSummary
}
