package review

// Provenance is the optional source block of a persona built by council persona build: whose
// review comments it was distilled from, when, and by what. It is informational (council
// persona show prints it); it never reaches a prompt. It holds no email address and, for an
// anonymized persona, no login: Login is then the persona's own name.
type Provenance struct {
	Repositories []string `yaml:"repositories,omitempty"` // "owner/name", sorted
	Login        string   `yaml:"login,omitempty"`        // whose comments; the persona's name when Anonymized
	Anonymized   bool     `yaml:"anonymized,omitempty"`
	From         string   `yaml:"from,omitempty"`     // first comment's date, YYYY-MM-DD (UTC)
	To           string   `yaml:"to,omitempty"`       // last comment's date
	Comments     int      `yaml:"comments,omitempty"` // comments the persona was built from
	// Sampled is how many of Comments the model was shown, when the history was too large to
	// show whole; 0 when it saw them all.
	Sampled  int          `yaml:"sampled,omitempty"`
	Council  string       `yaml:"council_version,omitempty"`
	Model    string       `yaml:"model,omitempty"`
	BuiltAt  string       `yaml:"built_at,omitempty"` // RFC 3339
	Themes   []ThemeCount `yaml:"themes,omitempty"`   // ranked, with how many comments each covers
	Excluded []Count      `yaml:"excluded,omitempty"` // comments left out, by reason
	Stats    HistoryStats `yaml:"stats,omitempty"`
}

// IsZero reports whether the document has no source block.
func (p Provenance) IsZero() bool {
	return len(p.Repositories) == 0 && p.Login == "" && !p.Anonymized && p.From == "" && p.To == "" &&
		p.Comments == 0 && p.Sampled == 0 && p.Council == "" && p.Model == "" && p.BuiltAt == "" &&
		len(p.Themes) == 0 && len(p.Excluded) == 0 && p.Stats.Comments == 0
}

// ThemeCount is one theme of a maintainer's reviews and how many of their comments the model
// counted under it.
type ThemeCount struct {
	Name     string `yaml:"name"`
	Comments int    `yaml:"comments"`
}

// Count is a labelled number: a reason and the comments it excluded, a path prefix or an
// opening phrase and how many comments have it.
type Count struct {
	Name  string `yaml:"name"`
	Count int    `yaml:"count"`
}

// HistoryStats are the figures of a maintainer's review comments computed without a model
// (persona.ComputeStats). They live here, not in package persona, so that a persona document
// that stores them still decodes strictly.
type HistoryStats struct {
	Comments     int     `yaml:"comments"`
	PullRequests int     `yaml:"pull_requests"`
	From         string  `yaml:"from,omitempty"` // YYYY-MM-DD (UTC)
	To           string  `yaml:"to,omitempty"`
	Paths        []Count `yaml:"paths,omitempty"` // comments per first path segment, top 10
	Length       Lengths `yaml:"length"`          // body length in characters
	Questions    int     `yaml:"questions"`       // comments with a sentence ending in "?"
	Suggestions  int     `yaml:"suggestions"`     // comments with a ```suggestion block
	Nits         int     `yaml:"nits"`            // comments that start with "nit"
	Openings     []Count `yaml:"openings,omitempty"`
}

// Lengths is a distribution of comment lengths, in characters.
type Lengths struct {
	Min    int `yaml:"min"`
	Median int `yaml:"median"`
	P90    int `yaml:"p90"`
	Max    int `yaml:"max"`
}
