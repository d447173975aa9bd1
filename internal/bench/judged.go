package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Judged labels: people (or agents) who see the findings blind, without run, status or
// reviewer, label each one valid, minor (true, but of low value) or wrong, and then, having
// read the sample's truth, name the truth items it asks for. Matching by place and text says
// whether a finding sits where a human commented; the labels say whether it is worth reading
// and whether it asks for what the humans asked for, however it is worded or placed.

// The labels a judge gives a finding.
const (
	LabelValid = "valid" // true of the code and worth a maintainer's attention
	LabelMinor = "minor" // true, of low value
	LabelWrong = "wrong" // not true of the code
)

var findingLabels = []string{LabelValid, LabelMinor, LabelWrong}

// FindingLabel is one line of bench score's --labels file: a judge's label of one finding of
// a sample. (bench calibrate's --labels are pairs: Label.)
type FindingLabel struct {
	Sample  string   `json:"sample"`
	Finding string   `json:"finding"`       // the finding's id in the sample's review JSON
	Label   string   `json:"label"`         // valid, minor or wrong
	Truth   []string `json:"truth"`         // the sample's truth items the finding asks for
	Why     string   `json:"why,omitempty"` // the judge's reason, for people
	Pos     string   `json:"-"`             // "file:line", for errors
}

// ParseFindingLabels reads a --labels file of bench score: one JSON object per line,
// {"sample", "finding", "label", "truth", "why"}; blank lines are skipped. A finding labelled
// twice the same way (two runs that showed the same finding) counts once; labelled two ways,
// it is an error. An error names source:line and what is wrong.
func ParseFindingLabels(source string, data []byte) ([]FindingLabel, error) {
	var out []FindingLabel
	seen := map[FindingKey]int{}
	const want = `want {"sample":"<id>","finding":"<id>","label":"valid|minor|wrong","truth":["<truth id>",...],"why":"..."}`
	for pos, line := range jsonLines(source, data) {
		var raw struct {
			Sample  *string   `json:"sample"`
			Finding *string   `json:"finding"`
			Label   *string   `json:"label"`
			Truth   []*string `json:"truth"`
			Why     string    `json:"why"`
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &keys) == nil && keys["same"] != nil {
			return nil, fmt.Errorf("%s: a pair label, as bench calibrate --labels reads: bench score --labels labels findings (%s)", pos, want)
		}
		if err := decodeLine(line, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w (%s)", pos, err, want)
		}
		var missing []string
		for _, f := range []struct {
			name string
			v    *string
		}{{"sample", raw.Sample}, {"finding", raw.Finding}, {"label", raw.Label}} {
			if f.v == nil || *f.v == "" {
				missing = append(missing, `"`+f.name+`"`)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: missing %s (%s)", pos, strings.Join(missing, ", "), want)
		}
		if !slices.Contains(findingLabels, *raw.Label) {
			return nil, fmt.Errorf("%s: label %q: must be one of %s", pos, *raw.Label, strings.Join(findingLabels, ", "))
		}
		l := FindingLabel{Sample: *raw.Sample, Finding: *raw.Finding, Label: *raw.Label, Truth: []string{}, Why: raw.Why, Pos: pos}
		for _, t := range raw.Truth {
			if t == nil || *t == "" {
				return nil, fmt.Errorf("%s: an empty truth id: \"truth\" lists the ids of the sample's truth items the finding asks for", pos)
			}
			if !slices.Contains(l.Truth, *t) {
				l.Truth = append(l.Truth, *t)
			}
		}
		sort.Strings(l.Truth)
		key := FindingKey{Sample: l.Sample, Finding: l.Finding}
		if j, dup := seen[key]; dup {
			if first := out[j]; first.Label != l.Label || !slices.Equal(first.Truth, l.Truth) {
				return nil, fmt.Errorf("%s: finding %s of sample %s is labelled otherwise at %s: one label per finding", pos, l.Finding, l.Sample, first.Pos)
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no labels: write one JSON object per line (%s)", source, want)
	}
	return out, nil
}

// LabelScore is what the judges' labels say of the run's shown findings (score.json's
// "labels").
type LabelScore struct {
	File string `json:"file"` // the labels file, as given to --labels
	// Labels counts the file's labels; Counted those of findings this run shows; the others
	// (NotInRun) name findings of other runs, or findings this run filtered.
	Labels   int `json:"labels"`
	Counted  int `json:"counted"`
	NotInRun int `json:"not_in_run"`
	// Unlabelled are the shown findings no label names: left out of every share, never guessed.
	Unlabelled []FindingRef     `json:"unlabelled"`
	Placements []LabelPlacement `json:"placements"`  // up front, collapsed, all shown
	ByReviewer []ReviewerLabels `json:"by_reviewer"` // by the findings' owner, sorted by name
}

// FindingRef names a shown finding of the run.
type FindingRef struct {
	Sample    string `json:"sample"`
	Finding   string `json:"finding"`
	Placement string `json:"placement"`
}

// LabelCounts are the labels of one group of shown findings. JudgedValid is the share of the
// labelled ones labelled valid; Useful the share labelled valid or asking for a truth item
// (what the humans asked for, even if the judge thought it minor).
type LabelCounts struct {
	Findings    int   `json:"findings"` // shown, labelled or not
	Labelled    int   `json:"labelled"`
	Valid       int   `json:"valid"`
	Minor       int   `json:"minor"`
	Wrong       int   `json:"wrong"`
	JudgedValid Share `json:"judged_valid"`
	Useful      Share `json:"useful"`
}

// LabelPlacement is the labels of one placement's findings, and the truth items they ask for:
// AsksCaught is the share of the scored samples' truth items some labelled finding of the
// placement names in its "truth"; PRsAsksCaught the share of samples with truth where at
// least one is.
type LabelPlacement struct {
	Placement string `json:"placement"`
	LabelCounts
	AsksCaught    Share `json:"asks_caught"`
	PRsAsksCaught Share `json:"prs_asks_caught"`
}

// ReviewerLabels is the labels of the shown findings a reviewer owns (the first of their
// reviewers), up front and in all.
type ReviewerLabels struct {
	Reviewer string      `json:"reviewer"`
	UpFront  LabelCounts `json:"up_front"`
	AllShown LabelCounts `json:"all_shown"`
}

// ScoreLabels counts the labels of the findings the run shows, per placement and per owning
// reviewer. A label of a sample the dataset does not have, or naming a truth item its sample
// does not have, is an error naming the label's position; so is a file none of whose labels
// names a finding of this run. A label of a finding the run does not show is another run's:
// counted in NotInRun, not an error, so that one file can hold the labels of several runs;
// source names the labels file, as given.
func ScoreLabels(in ScoreInput, source string, labels []FindingLabel) (LabelScore, error) {
	truthOf := map[string][]string{}
	for _, s := range in.Samples {
		ids := []string{}
		for _, t := range s.Truth {
			ids = append(ids, t.ID)
		}
		truthOf[s.ID] = ids
	}
	items, _ := in.collect()
	shown := map[FindingKey]Prediction{}
	var keys []FindingKey
	var truthItems, withTruth int
	owners := map[string]bool{}
	for _, it := range items {
		truthItems += len(it.sample.Truth)
		if len(it.sample.Truth) > 0 {
			withTruth++
		}
		for _, r := range it.rep.Reviewers {
			owners[r.Name] = true
		}
		for _, p := range Predictions(it.rep) {
			k := FindingKey{Sample: it.sample.ID, Finding: p.ID}
			if _, dup := shown[k]; !dup {
				keys = append(keys, k)
			}
			shown[k] = p
			if o := owner(p); o != "" {
				owners[o] = true
			}
		}
	}

	ls := LabelScore{File: source, Labels: len(labels), Unlabelled: []FindingRef{}}
	labelOf := map[FindingKey]FindingLabel{}
	var errs []error
	for _, l := range labels {
		ids, ok := truthOf[l.Sample]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: unknown sample %q: the dataset has no such sample (\"sample\" is a sample's id, its file name without .json)", l.Pos, l.Sample))
			continue
		}
		for _, t := range l.Truth {
			if !slices.Contains(ids, t) {
				errs = append(errs, fmt.Errorf("%s: unknown truth %q in sample %q: \"truth\" lists ids of the sample's truth items", l.Pos, t, l.Sample))
			}
		}
		k := FindingKey{Sample: l.Sample, Finding: l.Finding}
		if _, ok := shown[k]; !ok {
			ls.NotInRun++
			continue
		}
		labelOf[k] = l
		ls.Counted++
	}
	if len(errs) > 0 {
		return LabelScore{}, errors.Join(errs...)
	}
	if ls.Counted == 0 && len(shown) > 0 {
		return LabelScore{}, fmt.Errorf("%s: none of its %d labels names a finding run %s shows (\"finding\" is a finding's id in reviews/<sample>.json): are they another run's?",
			source, len(labels), in.Run.Name)
	}

	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Sample != keys[j].Sample {
			return keys[i].Sample < keys[j].Sample
		}
		return keys[i].Finding < keys[j].Finding
	})
	for _, k := range keys {
		if _, ok := labelOf[k]; !ok {
			ls.Unlabelled = append(ls.Unlabelled, FindingRef{Sample: k.Sample, Finding: k.Finding, Placement: shown[k].Placement})
		}
	}
	inPlacement := func(place string) func(Prediction) bool {
		return func(p Prediction) bool { return place == PlacementAllShown || p.Placement == place }
	}
	for _, place := range Placements {
		keep := inPlacement(place)
		lp := LabelPlacement{Placement: place, LabelCounts: countLabels(keys, shown, labelOf, keep)}
		asked := map[[2]string]bool{}
		prs := map[string]bool{}
		for _, k := range keys {
			l, ok := labelOf[k]
			if !ok || !keep(shown[k]) {
				continue
			}
			for _, t := range l.Truth {
				asked[[2]string{k.Sample, t}] = true
				prs[k.Sample] = true
			}
		}
		lp.AsksCaught = shareOf(len(asked), truthItems)
		lp.PRsAsksCaught = shareOf(len(prs), withTruth)
		ls.Placements = append(ls.Placements, lp)
	}
	names := make([]string, 0, len(owners))
	for n := range owners {
		names = append(names, n)
	}
	sort.Strings(names)
	ls.ByReviewer = []ReviewerLabels{}
	for _, name := range names {
		owns := func(place string) func(Prediction) bool {
			keep := inPlacement(place)
			return func(p Prediction) bool { return owner(p) == name && keep(p) }
		}
		ls.ByReviewer = append(ls.ByReviewer, ReviewerLabels{Reviewer: name,
			UpFront:  countLabels(keys, shown, labelOf, owns(PlacementUpFront)),
			AllShown: countLabels(keys, shown, labelOf, owns(PlacementAllShown))})
	}
	return ls, nil
}

// owner is the reviewer that owns a finding: the first of its reviewers.
func owner(p Prediction) string {
	if len(p.Reviewers) == 0 {
		return ""
	}
	return p.Reviewers[0]
}

// countLabels counts the labels of the shown findings keep keeps.
func countLabels(keys []FindingKey, shown map[FindingKey]Prediction, labelOf map[FindingKey]FindingLabel, keep func(Prediction) bool) LabelCounts {
	var c LabelCounts
	useful := 0
	for _, k := range keys {
		if !keep(shown[k]) {
			continue
		}
		c.Findings++
		l, ok := labelOf[k]
		if !ok {
			continue
		}
		c.Labelled++
		switch l.Label {
		case LabelValid:
			c.Valid++
		case LabelMinor:
			c.Minor++
		case LabelWrong:
			c.Wrong++
		}
		if l.Label == LabelValid || len(l.Truth) > 0 {
			useful++
		}
	}
	c.JudgedValid = shareOf(c.Valid, c.Labelled)
	c.Useful = shareOf(useful, c.Labelled)
	return c
}
