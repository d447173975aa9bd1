package bench

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// PersonaEvalInput is what a persona's evaluation is computed from: the same dataset reviewed
// by the lenses alone and by the lenses with the persona, the persona's name and voice
// markers, and the bodies of the maintainer's held-out comments.
type PersonaEvalInput struct {
	Lenses, WithPersona ScoreInput
	Persona             string
	Voice               []string
	AuthorBodies        []string
	// LensesVerdicts and WithPersonaVerdicts are the judge's answers on each run, gathered
	// beforehand; with both, every score gains tier L3. The persona alone is scored with the
	// with-persona run's answers: its findings are that run's.
	LensesVerdicts, WithPersonaVerdicts *Verdicts
}

// PersonaEval is the outcome of council persona eval: report.json.
type PersonaEval struct {
	Persona    string `json:"persona"`
	Samples    int    `json:"samples"`
	TruthItems int    `json:"truth_items"` // the maintainer's held-out first-round comments
	// Tiers holds, per tier, the persona's numbers (its own findings matched alone) and the
	// lenses'.
	Tiers []PersonaTier `json:"tiers"`
	Voice VoiceScore    `json:"voice"`
	// Adds are the truth items the persona matched and the lenses-only run did not, at L2.
	Adds []TruthOutcome `json:"adds"`
}

// PersonaTier compares the persona and the lenses at one tier.
type PersonaTier struct {
	Tier              string  `json:"tier"`
	PersonaRecall     float64 `json:"persona_recall"`
	PersonaPrecision  float64 `json:"persona_precision"`
	PersonaFindings   int     `json:"persona_findings"`
	PersonaHits       int     `json:"persona_hits"`
	LensesRecall      float64 `json:"lenses_recall"`
	LensesPrecision   float64 `json:"lenses_precision"`
	LensesHits        int     `json:"lenses_hits"`
	WithPersonaRecall float64 `json:"with_persona_recall"` // the whole council with the persona
	Adds              int     `json:"adds"`                // matched by the persona, missed by the lenses
}

// VoiceScore says how much the persona's findings sound like the maintainer.
type VoiceScore struct {
	Markers  []string `json:"markers"`
	Findings int      `json:"findings"`
	// WithMarker counts the persona's findings whose title or body holds a marker
	// (case-insensitive); Share is WithMarker / Findings.
	WithMarker int     `json:"with_marker"`
	Share      float64 `json:"share"`
	// Median lengths in characters: the persona's finding bodies, the maintainer's comments.
	PersonaMedian int `json:"persona_median_chars"`
	AuthorMedian  int `json:"author_median_chars"`
}

// OnlyReviewer keeps, in every review of in, only the findings reviewer took part in: the
// reviewer's findings scored alone.
func OnlyReviewer(in ScoreInput, reviewer string) ScoreInput {
	out := in
	out.Reviews = make(map[string]report.Report, len(in.Reviews))
	for id, rep := range in.Reviews {
		var kept []finding.Finding
		for _, f := range rep.Findings {
			if slices.Contains(f.Lenses, reviewer) {
				kept = append(kept, f)
			}
		}
		rep.Findings = kept
		out.Reviews[id] = rep
	}
	return out
}

// EvalPersona scores the persona alone, the lenses alone and the council with the persona on
// the same truth, and measures the persona's voice. It is pure: the caller reads the runs.
func EvalPersona(in PersonaEvalInput, opts ScoreOptions) PersonaEval {
	lv, wv := in.LensesVerdicts, in.WithPersonaVerdicts
	if lv == nil || wv == nil {
		lv, wv = nil, nil // L3 for one run only would compare a judged tier with nothing
	}
	alone := ScoreRun(OnlyReviewer(in.WithPersona, in.Persona), opts, wv)
	lenses := ScoreRun(in.Lenses, opts, lv)
	whole := ScoreRun(in.WithPersona, opts, wv)
	ev := PersonaEval{Persona: in.Persona, Samples: alone.Samples, TruthItems: alone.TruthItems, Adds: []TruthOutcome{}}

	lensHit := map[string]map[string]bool{} // tier -> sample/truth id
	for _, ss := range lenses.PerSample {
		for _, t := range ss.Truth {
			for tier := range t.Matches {
				if lensHit[tier] == nil {
					lensHit[tier] = map[string]bool{}
				}
				lensHit[tier][ss.ID+"/"+t.ID] = true
			}
		}
	}
	for i, ts := range alone.Tiers {
		pt := PersonaTier{
			Tier: ts.Tier, PersonaRecall: ts.Micro.Recall, PersonaPrecision: ts.Micro.Precision,
			PersonaFindings: alone.Findings, PersonaHits: ts.TP,
		}
		if i < len(lenses.Tiers) {
			pt.LensesRecall, pt.LensesPrecision, pt.LensesHits = lenses.Tiers[i].Micro.Recall, lenses.Tiers[i].Micro.Precision, lenses.Tiers[i].TP
		}
		if i < len(whole.Tiers) {
			pt.WithPersonaRecall = whole.Tiers[i].Micro.Recall
		}
		for _, ss := range alone.PerSample {
			for _, t := range ss.Truth {
				if t.Matches[ts.Tier] != "" && !lensHit[ts.Tier][ss.ID+"/"+t.ID] {
					pt.Adds++
					if ts.Tier == TierL2 {
						ev.Adds = append(ev.Adds, t)
					}
				}
			}
		}
		ev.Tiers = append(ev.Tiers, pt)
	}
	ev.Voice = voiceOf(alone, in.Voice, in.AuthorBodies)
	return ev
}

func voiceOf(alone Score, markers, authorBodies []string) VoiceScore {
	v := VoiceScore{Markers: slices.Clone(markers)}
	if v.Markers == nil {
		v.Markers = []string{}
	}
	var lens []int
	for _, ss := range alone.PerSample {
		for _, f := range ss.Findings {
			v.Findings++
			lens = append(lens, utf8.RuneCountInString(f.Body))
			text := strings.ToLower(f.Title + "\n" + f.Body)
			if slices.ContainsFunc(markers, func(m string) bool {
				m = strings.ToLower(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(m), ".…")))
				return m != "" && strings.Contains(text, m)
			}) {
				v.WithMarker++
			}
		}
	}
	v.Share = safeRatio(v.WithMarker, v.Findings)
	v.PersonaMedian = medianInt(lens)
	var al []int
	for _, b := range authorBodies {
		al = append(al, utf8.RuneCountInString(b))
	}
	v.AuthorMedian = medianInt(al)
	return v
}

// medianInt is the median of xs, the lower middle for an even count; 0 for none.
func medianInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
