package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// Calibration measures the deterministic tiers against hand labels: a person says, for pairs
// of a truth item and a finding, whether they are the same issue, and each tier's rule is
// compared with that by Cohen's kappa. Sweeping L2's threshold finds the one that agrees best.

// Label is one hand label: a line of the labels file (JSON Lines).
type Label struct {
	Sample  string `json:"sample"`
	Truth   string `json:"truth"`
	Finding string `json:"finding"`
	Same    bool   `json:"same"`
	Pos     string `json:"-"` // "file:line", for errors
}

// jsonLines yields the position ("source:line") and the text of each non-blank line of a JSON
// Lines file.
func jsonLines(source string, data []byte) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for i, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			if !yield(fmt.Sprintf("%s:%d", source, i+1), line) {
				return
			}
		}
	}
}

// decodeLine decodes one line of a JSON Lines file into v, strictly: an unknown field or a
// second value on the line is an error.
func decodeLine(line string, v any) error {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line: one object per line")
	}
	return nil
}

// ParseLabels reads a labels file: one JSON object per line, {"sample", "truth", "finding",
// "same"}; blank lines are skipped. An error names source:line and what is wrong.
func ParseLabels(source string, data []byte) ([]Label, error) {
	var out []Label
	seen := map[PairKey]string{}
	for pos, line := range jsonLines(source, data) {
		var raw struct {
			Sample  *string `json:"sample"`
			Truth   *string `json:"truth"`
			Finding *string `json:"finding"`
			Same    *bool   `json:"same"`
		}
		if err := decodeLine(line, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w (want {\"sample\":\"<id>\",\"truth\":\"<id>\",\"finding\":\"<id>\",\"same\":true|false})", pos, err)
		}
		var missing []string
		for _, f := range []struct {
			name string
			v    *string
		}{{"sample", raw.Sample}, {"truth", raw.Truth}, {"finding", raw.Finding}} {
			if f.v == nil || *f.v == "" {
				missing = append(missing, `"`+f.name+`"`)
			}
		}
		if raw.Same == nil {
			missing = append(missing, `"same"`)
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: missing %s", pos, strings.Join(missing, ", "))
		}
		l := Label{Sample: *raw.Sample, Truth: *raw.Truth, Finding: *raw.Finding, Same: *raw.Same, Pos: pos}
		key := PairKey{Sample: l.Sample, Truth: l.Truth, Finding: l.Finding}
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s: this pair is already labelled at %s", pos, first)
		}
		seen[key] = pos
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no labels: write one JSON object per line", source)
	}
	return out, nil
}

// Calibration is how well each tier's rule agrees with hand labels.
type Calibration struct {
	Labels     int         `json:"labels"`
	Same       int         `json:"same"` // labels that say "the same issue"
	LineWindow int         `json:"line_window"`
	Threshold  float64     `json:"similarity_threshold"` // the threshold L2 was measured at
	Tiers      []Agreement `json:"tiers"`
	// Best is L2's threshold with the highest kappa: the middle of the first run of thresholds
	// that reach it (BestRange), so that the choice keeps a margin on both sides instead of
	// sitting on the similarity of one labelled pair. Sweep is every threshold from 0 to 1 in
	// steps of 0.01.
	Best      SweepPoint   `json:"best"`
	BestRange [2]float64   `json:"best_range"`
	Sweep     []SweepPoint `json:"sweep"`
}

// Agreement compares a tier's rule with the labels. TP: both say same; FP: the rule says same,
// the label not; FN: the label says same, the rule not; TN: both say different.
type Agreement struct {
	Tier        string  `json:"tier"`
	Description string  `json:"description"`
	N           int     `json:"n"`
	TP          int     `json:"tp"`
	FP          int     `json:"fp"`
	FN          int     `json:"fn"`
	TN          int     `json:"tn"`
	Agreement   float64 `json:"agreement"` // (TP+TN)/N
	Kappa       float64 `json:"kappa"`
}

// SweepPoint is L2's agreement at one threshold.
type SweepPoint struct {
	Threshold float64 `json:"threshold"`
	Agreement float64 `json:"agreement"`
	Kappa     float64 `json:"kappa"`
}

// Kappa is Cohen's kappa of two raters' yes/no answers on the same items, from the counts of
// both yes (tp), only the second yes (fp), only the first yes (fn) and both no (tn). When
// chance agreement is total (both raters always gave the same one answer), kappa is undefined
// and reported as 0: the labels cannot tell such a rule from chance.
func Kappa(tp, fp, fn, tn int) float64 {
	// In counts rather than rates, so that a rule no better than chance is exactly 0.
	n := tp + fp + fn + tn
	chance := (tp+fn)*(tp+fp) + (fp+tn)*(fn+tn) // n² times the chance agreement
	if n == 0 || chance == n*n {
		return 0
	}
	return float64(n*(tp+tn)-chance) / float64(n*n-chance)
}

func agreementOf(tier, desc string, labels []Label, said []bool) Agreement {
	a := Agreement{Tier: tier, Description: desc, N: len(labels)}
	for i, l := range labels {
		switch {
		case l.Same && said[i]:
			a.TP++
		case said[i]:
			a.FP++
		case l.Same:
			a.FN++
		default:
			a.TN++
		}
	}
	a.Agreement = safeRatio(a.TP+a.TN, a.N)
	a.Kappa = Kappa(a.TP, a.FP, a.FN, a.TN)
	return a
}

// Calibrate computes each deterministic tier's rule on every labelled pair, at opts'
// LineWindow and Threshold, compares it with the labels, and sweeps L2's threshold. Text
// similarity uses the IDF of the whole run, as scoring does, so the best threshold is one
// score can use. A label naming a sample, truth item or finding the run does not have is an
// error naming the label's position.
func Calibrate(in ScoreInput, labels []Label, opts ScoreOptions) (Calibration, error) {
	items, notScored := in.collect()
	samples := prepareItems(items)
	byID := map[string]*scoredSample{}
	for i := range samples {
		byID[samples[i].sample.ID] = &samples[i]
	}
	why := map[string]string{}
	for _, n := range notScored {
		why[n.ID] = n.Reason
	}
	inDataset := map[string]bool{}
	for _, s := range in.Samples {
		inDataset[s.ID] = true
	}

	type located struct {
		s    *scoredSample
		t, f int
	}
	at := make([]located, len(labels))
	var errs []error
	for i, l := range labels {
		s := byID[l.Sample]
		if s == nil {
			switch {
			case !inDataset[l.Sample]:
				errs = append(errs, fmt.Errorf("%s: unknown sample %q: the dataset has no such sample (\"sample\" is a sample's id, its file name without .json)", l.Pos, l.Sample))
			default:
				errs = append(errs, fmt.Errorf("%s: sample %q was not scored (%s): label reviewed samples only", l.Pos, l.Sample, why[l.Sample]))
			}
			continue
		}
		t := indexWhere(len(s.truth), func(k int) bool { return s.truth[k].ID == l.Truth })
		f := indexWhere(len(s.preds), func(k int) bool { return s.preds[k].ID == l.Finding })
		if t < 0 {
			errs = append(errs, fmt.Errorf("%s: unknown truth %q in sample %q: \"truth\" is the id of one of the sample's truth items", l.Pos, l.Truth, l.Sample))
		}
		if f < 0 {
			hint := ": \"finding\" is the id of a finding in the sample's review JSON (reviews/" + l.Sample + ".json)"
			if filteredFinding(in.Reviews[l.Sample], l.Finding) {
				hint = ": it was filtered, and filtered findings are not predictions"
			}
			errs = append(errs, fmt.Errorf("%s: unknown finding %q in the review of sample %q%s", l.Pos, l.Finding, l.Sample, hint))
		}
		at[i] = located{s: s, t: t, f: f}
	}
	if len(errs) > 0 {
		return Calibration{}, errors.Join(errs...)
	}

	m := tierMatcher{window: opts.LineWindow, threshold: opts.Threshold}
	c := Calibration{Labels: len(labels), LineWindow: opts.LineWindow, Threshold: opts.Threshold}
	for _, l := range labels {
		if l.Same {
			c.Same++
		}
	}
	said := make([]bool, len(labels))
	for _, tier := range []string{TierL0, TierL1, TierL2} {
		for i, a := range at {
			said[i] = m.eligible(tier, a.s, a.t, a.f)
		}
		c.Tiers = append(c.Tiers, agreementOf(tier, TierDescription(tier, m.window, m.threshold), labels, said))
	}
	c.Best.Kappa = math.Inf(-1)
	for step := 0; step <= 100; step++ {
		sm := tierMatcher{window: opts.LineWindow, threshold: float64(step) / 100}
		for i, a := range at {
			said[i] = sm.eligible(TierL2, a.s, a.t, a.f)
		}
		a := agreementOf(TierL2, "", labels, said)
		p := SweepPoint{Threshold: sm.threshold, Agreement: a.Agreement, Kappa: a.Kappa}
		c.Sweep = append(c.Sweep, p)
		if p.Kappa > c.Best.Kappa {
			c.Best = p
		}
	}
	first := indexWhere(len(c.Sweep), func(i int) bool { return c.Sweep[i].Kappa == c.Best.Kappa })
	last := first
	for last+1 < len(c.Sweep) && c.Sweep[last+1].Kappa == c.Best.Kappa {
		last++
	}
	c.BestRange = [2]float64{c.Sweep[first].Threshold, c.Sweep[last].Threshold}
	c.Best = c.Sweep[(first+last)/2]
	return c, nil
}

func indexWhere(n int, is func(int) bool) int {
	for i := range n {
		if is(i) {
			return i
		}
	}
	return -1
}

func filteredFinding(rep report.Report, id string) bool {
	for _, f := range rep.Findings {
		if f.ID == id && f.Status == finding.Filtered {
			return true
		}
	}
	return false
}
