// Package bench is council's benchmark: samples of real pull requests as the first human
// reviewer saw them, the human comments on them as ground truth, and the scoring that matches
// the council's findings against that truth. Scoring is pure: values in, values out, no git,
// network, clock or environment; the importer and the judge take their effects through
// interfaces the caller fills.
package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// SampleVersion is the version of the sample format (docs/bench.md).
const SampleVersion = "1"

// Sample is one pull request replayed at the commit its first human reviewer saw.
type Sample struct {
	SampleVersion string  `json:"sample_version"`
	ID            string  `json:"id"` // "owner-repo-123": also the file name, <id>.json
	Repo          Repo    `json:"repo"`
	PR            PR      `json:"pr"`
	Base          string  `json:"base"`  // fork point: merge-base of Head with the PR's base branch
	Head          string  `json:"head"`  // the earliest human-reviewed commit
	Merge         string  `json:"merge"` // the merged head SHA; "" (null in JSON) when not merged
	Truth         []Truth `json:"truth"`
	// Dropped are the human comments of the round that are not ground truth, each with why
	// (praise, too short, a reply): nothing is dropped silently.
	Dropped []Dropped `json:"dropped,omitempty"`
}

// Repo says where a sample's repository is: a clone URL, a local path, or both (the path wins).
type Repo struct {
	URL  string `json:"url,omitempty"`
	Path string `json:"path,omitempty"`
	Name string `json:"name,omitempty"` // "owner/repo" on GitHub
}

// PR is the original pull request's metadata.
type PR struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	Author  string `json:"author"`
	BaseRef string `json:"base_ref"`
	URL     string `json:"url,omitempty"`
	// Created is when the pull request was opened; zero (left out) when unknown. A learnings
	// file given to bench run must have been built from pull requests before the earliest.
	Created time.Time `json:"created,omitzero"`
}

// Truth is one human review comment: a thread-starting inline comment, or a review's
// top-level text (ReviewBody, no path or line).
type Truth struct {
	ID         string  `json:"id"` // the GitHub comment or review id, as a string
	Author     string  `json:"author"`
	Path       string  `json:"path,omitempty"`
	Line       int     `json:"line,omitempty"`       // last line of the range; 0 for a file or review-body comment
	StartLine  int     `json:"start_line,omitempty"` // first line of a multi-line range; 0 for one line
	Side       string  `json:"side,omitempty"`       // RIGHT or LEFT; "" when unknown
	Body       string  `json:"body"`
	Kind       string  `json:"kind"` // one of Kinds
	Question   bool    `json:"question,omitempty"`
	Addressed  bool    `json:"addressed"`
	ReviewBody bool    `json:"review_body"`
	URL        string  `json:"url,omitempty"`
	Replies    []Reply `json:"replies,omitempty"` // the thread's answers: context, not truth
	// Source says what the item is: "" a human reviewer's comment, SourceFeedback a change the
	// author made in answer to review (an import from git: Body is the commit message and the
	// hunk).
	Source string `json:"source,omitempty"`
}

// SourceFeedback is the source of a truth item that is a change made in answer to review.
const SourceFeedback = "feedback"

// Reply is an answer in a truth comment's thread.
type Reply struct {
	Author string `json:"author"`
	Body   string `json:"body"`
}

// Dropped is a human comment of the round left out of the truth, with the reason.
type Dropped struct {
	ID     string `json:"id"`
	Author string `json:"author"`
	Body   string `json:"body"`
	Reason string `json:"reason"`
}

// Kinds are the kinds of truth comment, as the sample format names them.
var Kinds = []string{"bug", "concurrency", "error-handling", "security", "performance", "api-design",
	"tests", "docs", "naming", "style", "question", "praise", "other"}

// Lines returns the comment's line range, first to last; 0, 0 for a comment with no line.
func (t Truth) Lines() (first, last int) {
	if t.Line == 0 {
		return 0, 0
	}
	if t.StartLine == 0 || t.StartLine > t.Line {
		return t.Line, t.Line
	}
	return t.StartLine, t.Line
}

var (
	shaRE = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	idRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// Validate checks a sample against the format; the error names the field.
func (s Sample) Validate() error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if s.SampleVersion != SampleVersion {
		bad("sample_version %q: this council reads version %s", s.SampleVersion, SampleVersion)
	}
	if !idRE.MatchString(s.ID) {
		bad("id %q: letters, digits, '.', '_' and '-' only", s.ID)
	}
	if s.Repo.URL == "" && s.Repo.Path == "" {
		bad("repo: needs url or path")
	}
	if !shaRE.MatchString(s.Base) {
		bad("base %q: must be a full commit SHA", s.Base)
	}
	if !shaRE.MatchString(s.Head) {
		bad("head %q: must be a full commit SHA", s.Head)
	}
	if s.Merge != "" && !shaRE.MatchString(s.Merge) {
		bad("merge %q: must be a full commit SHA or null", s.Merge)
	}
	seen := map[string]bool{}
	for i, t := range s.Truth {
		where := fmt.Sprintf("truth[%d]", i)
		switch {
		case t.ID == "":
			bad("%s.id: missing", where)
		case seen[t.ID]:
			bad("%s.id %q: used twice", where, t.ID)
		}
		seen[t.ID] = true
		if !slices.Contains(Kinds, t.Kind) {
			bad("%s.kind %q: must be one of %s", where, t.Kind, strings.Join(Kinds, ", "))
		}
		if t.Source != "" && t.Source != SourceFeedback {
			bad("%s.source %q: must be %q or left out (a reviewer's comment)", where, t.Source, SourceFeedback)
		}
		if t.Side != "" && t.Side != "RIGHT" && t.Side != "LEFT" {
			bad("%s.side %q: must be RIGHT or LEFT", where, t.Side)
		}
		if t.ReviewBody && (t.Path != "" || t.Line != 0) {
			bad("%s: a review_body item has no path or line", where)
		}
		if !t.ReviewBody && t.Path == "" {
			bad("%s.path: missing (only review_body items have no path)", where)
		}
		if t.Line < 0 || t.StartLine < 0 || (t.StartLine > 0 && t.Line == 0) {
			bad("%s: line %d, start_line %d: lines are positive, and start_line needs line", where, t.Line, t.StartLine)
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// MarshalJSON writes merge as null when the pull request was not merged, as the format says,
// in the format's field order.
func (s Sample) MarshalJSON() ([]byte, error) {
	var merge *string
	if s.Merge != "" {
		merge = &s.Merge
	}
	return json.Marshal(struct {
		SampleVersion string    `json:"sample_version"`
		ID            string    `json:"id"`
		Repo          Repo      `json:"repo"`
		PR            PR        `json:"pr"`
		Base          string    `json:"base"`
		Head          string    `json:"head"`
		Merge         *string   `json:"merge"`
		Truth         []Truth   `json:"truth"`
		Dropped       []Dropped `json:"dropped,omitempty"`
	}{s.SampleVersion, s.ID, s.Repo, s.PR, s.Base, s.Head, merge, s.Truth, s.Dropped})
}

// UnmarshalJSON reads a sample strictly: an unknown field is an error.
func (s *Sample) UnmarshalJSON(data []byte) error {
	type plain Sample
	var v struct {
		plain
		Merge *string `json:"merge"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	*s = Sample(v.plain)
	s.Merge = ""
	if v.Merge != nil {
		s.Merge = *v.Merge
	}
	return nil
}

// ReadSample reads and validates one sample file.
func ReadSample(path string) (Sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Sample{}, fmt.Errorf("read sample: %w", err)
	}
	var s Sample
	if err := json.Unmarshal(data, &s); err != nil {
		return Sample{}, fmt.Errorf("sample %s: %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return Sample{}, fmt.Errorf("sample %s: %w", path, err)
	}
	if want := s.ID + ".json"; filepath.Base(path) != want {
		return Sample{}, fmt.Errorf("sample %s: its id is %q, so its file must be named %s", path, s.ID, want)
	}
	return s, nil
}

// LoadDataset reads every sample (*.json but the dataset's own import.json) of a dataset
// directory, sorted by id.
func LoadDataset(dir string) ([]Sample, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read dataset: %w", err)
	}
	var out []Sample
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || e.Name() == ImportManifest {
			continue
		}
		s, err := ReadSample(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dataset %s has no samples (<id>.json files): create one with council bench import", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// WriteSample writes s to dir/<id>.json, indented, with a trailing newline.
func WriteSample(dir string, s Sample) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("sample %s: %w", s.ID, err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode sample %s: %w", s.ID, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write sample: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, s.ID+".json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write sample: %w", err)
	}
	return nil
}

// ImportManifest is the file in a dataset directory that lists what an import took and
// skipped, with reasons.
const ImportManifest = "import.json"

// LocalPath is the sample's repo.path as a path to open: a relative path is relative to the
// dataset directory the sample was read from. "" when the sample has no path.
func (s Sample) LocalPath(datasetDir string) string {
	if s.Repo.Path == "" || filepath.IsAbs(s.Repo.Path) {
		return s.Repo.Path
	}
	return filepath.Join(datasetDir, filepath.FromSlash(s.Repo.Path))
}
