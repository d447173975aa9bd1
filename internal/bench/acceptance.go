package bench

// Acceptance is the share of council's posted comments that people acted on: addressed before
// the merge, or a positive reaction (`council learn`'s signals, outcome accepted), overall and
// per reviewer. Recall says whether council finds what humans find; acceptance says whether
// what it posts is wanted.
type Acceptance struct {
	Signals    string            `json:"signals"` // the signals file, as given to --signals
	Overall    AcceptanceCount   `json:"overall"`
	ByReviewer []AcceptanceCount `json:"by_reviewer"` // most comments first, then by name
}

// AcceptanceCount is the outcomes of one group of posted comments; Rate is Accepted / Total
// (0 when Total is 0).
type AcceptanceCount struct {
	Reviewer string  `json:"reviewer,omitempty"` // "" for the overall count
	Accepted int     `json:"accepted"`
	Rejected int     `json:"rejected"`
	Ignored  int     `json:"ignored"`
	Total    int     `json:"total"`
	Rate     float64 `json:"rate"`
}
