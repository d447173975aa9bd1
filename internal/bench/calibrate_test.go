package bench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/finding"
)

func TestKappa(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		tp, fp, fn, tn int
		want           float64
	}{
		// po = 35/50 = 0.7; the raters say yes 30/50 and 25/50: pe = 0.6*0.5 + 0.4*0.5 = 0.5.
		{name: "textbook table", tp: 20, fp: 5, fn: 10, tn: 15, want: 0.4},
		{name: "perfect agreement", tp: 10, tn: 5, want: 1},
		{name: "perfect disagreement", fp: 5, fn: 5, want: -1},
		// po = 0.5, pe = 0.5*1 + 0.5*0: a rule that always says yes is chance.
		{name: "always yes", tp: 5, fp: 5, want: 0},
		{name: "undefined when both never vary", tp: 8, want: 0},
		{name: "no labels", want: 0},
		// po = 0.9; yes 0.5 and 0.4: pe = 0.2 + 0.3 = 0.5.
		{name: "asymmetric", tp: 40, fp: 0, fn: 10, tn: 50, want: 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Kappa(tt.tp, tt.fp, tt.fn, tt.tn); !cmp.Equal(tt.want, got, cmpopts.EquateApprox(0, 1e-12)) {
				t.Errorf("Kappa = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseLabels(t *testing.T) {
	t.Parallel()
	good := `{"sample":"s0","truth":"t1","finding":"f1","same":true}`
	tests := []struct {
		name    string
		data    string
		want    []Label
		wantErr string
	}{
		{
			name: "labels, with a blank line",
			data: good + "\n\n" + `{"sample":"s0","truth":"t1","finding":"f2","same":false}` + "\n",
			want: []Label{
				{Sample: "s0", Truth: "t1", Finding: "f1", Same: true, Pos: "l.jsonl:1"},
				{Sample: "s0", Truth: "t1", Finding: "f2", Same: false, Pos: "l.jsonl:3"},
			},
		},
		{name: "not JSON", data: good + "\n{sample: s0}", wantErr: "l.jsonl:2: invalid character"},
		{name: "a missing field", data: `{"sample":"s0","truth":"t1","same":true}`, wantErr: `l.jsonl:1: missing "finding"`},
		{name: "same is required", data: `{"sample":"s0","truth":"t1","finding":"f1"}`, wantErr: `l.jsonl:1: missing "same"`},
		{name: "an unknown field", data: `{"sample":"s0","truth":"t1","finding":"f1","same":true,"note":"x"}`, wantErr: `l.jsonl:1: json: unknown field "note"`},
		{name: "a wrong type", data: `{"sample":"s0","truth":"t1","finding":"f1","same":"yes"}`, wantErr: "l.jsonl:1: json: cannot unmarshal"},
		{name: "two values on a line", data: good + good, wantErr: "l.jsonl:1: more than one JSON value"},
		{name: "a pair labelled twice", data: good + "\n" + good, wantErr: "l.jsonl:2: this pair is already labelled at l.jsonl:1"},
		{name: "empty", data: "\n", wantErr: "l.jsonl: no labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLabels("l.jsonl", []byte(tt.data))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}

// calibrationRun has, in one sample, a finding that says what t1 says (f1) and one at the same
// line about something else (f2); f3 is in another file and f4 was filtered.
func calibrationRun() ScoreInput {
	filtered := findingAt("f4", "a.go", 10, nilTitle, nilBody2)
	filtered.Status = finding.Filtered
	in := runOf(pr{
		truth: []Truth{truthAt("t1", "a.go", 10, nilBody)},
		findings: []finding.Finding{
			findingAt("f1", "a.go", 11, nilTitle, nilBody2),
			findingAt("f2", "a.go", 10, lockTitle, lockBody),
			findingAt("f3", "b.go", 10, lockTitle, lockBody),
			filtered,
		},
	})
	in.Samples = append(in.Samples, Sample{ID: "s9"})
	in.Run.Samples = append(in.Run.Samples, RunSample{ID: "s9", Status: StatusStopped})
	return in
}

func TestCalibrate(t *testing.T) {
	t.Parallel()
	labels := []Label{
		{Sample: "s0", Truth: "t1", Finding: "f1", Same: true, Pos: "l:1"},
		{Sample: "s0", Truth: "t1", Finding: "f2", Same: false, Pos: "l:2"},
		{Sample: "s0", Truth: "t1", Finding: "f3", Same: false, Pos: "l:3"},
	}
	got, err := Calibrate(calibrationRun(), labels, noCI())
	if err != nil {
		t.Fatal(err)
	}
	// L0 and L1 say "same" for f1 and f2: TP 1, FP 1, TN 1. po = 2/3; the labels say yes 1/3,
	// the rule 2/3: pe = 2/9 + 2/9 = 4/9, kappa = (6/9 - 4/9) / (5/9) = 0.4. L2 is right on all.
	want := []Agreement{
		{Tier: "L0", Description: "same file", N: 3, TP: 1, FP: 1, TN: 1, Agreement: 2.0 / 3, Kappa: 0.4},
		{Tier: "L1", Description: "same file, within 3 lines", N: 3, TP: 1, FP: 1, TN: 1, Agreement: 2.0 / 3, Kappa: 0.4},
		{Tier: "L2", Description: "L1 and text similarity >= 0.20", N: 3, TP: 1, TN: 2, Agreement: 1, Kappa: 1},
	}
	approx := cmpopts.EquateApprox(0, 1e-12)
	if d := cmp.Diff(want, got.Tiers, approx); d != "" {
		t.Errorf("tiers (-want +got):\n%s", d)
	}
	// At 0 every pair within the window is "similar enough"; from 0.01 only f1 is, up to its
	// own similarity (0.79). The middle of that range wins.
	if d := cmp.Diff(SweepPoint{Threshold: 0.40, Agreement: 1, Kappa: 1}, got.Best, approx); d != "" {
		t.Errorf("best (-want +got):\n%s", d)
	}
	if got.BestRange != [2]float64{0.01, 0.79} {
		t.Errorf("best range = %v, want [0.01 0.79]", got.BestRange)
	}
	if len(got.Sweep) != 101 || !cmp.Equal(got.Sweep[0].Kappa, 0.4, approx) || got.Sweep[100].Threshold != 1 {
		t.Errorf("sweep = %d points, first %+v, last %+v: want 0.00..1.00, kappa 0.4 at 0", len(got.Sweep), got.Sweep[0], got.Sweep[len(got.Sweep)-1])
	}
	if got.Labels != 3 || got.Same != 1 {
		t.Errorf("labels = %d, same = %d, want 3 and 1", got.Labels, got.Same)
	}
}

func TestCalibrateUnknownIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		label   Label
		wantErr string
	}{
		{name: "sample", label: Label{Sample: "nope", Truth: "t1", Finding: "f1", Pos: "l:4"}, wantErr: `l:4: unknown sample "nope": the dataset has no such sample ("sample" is a sample's id, its file name without .json)`},
		{name: "sample not scored", label: Label{Sample: "s9", Truth: "t1", Finding: "f1", Pos: "l:4"}, wantErr: `l:4: sample "s9" was not scored (stopped before its review finished)`},
		{name: "truth", label: Label{Sample: "s0", Truth: "t7", Finding: "f1", Pos: "l:4"}, wantErr: `l:4: unknown truth "t7" in sample "s0": "truth" is the id of one of the sample's truth items`},
		{name: "finding", label: Label{Sample: "s0", Truth: "t1", Finding: "f7", Pos: "l:4"}, wantErr: `l:4: unknown finding "f7" in the review of sample "s0": "finding" is the id of a finding in the sample's review JSON (reviews/s0.json)`},
		{name: "filtered finding", label: Label{Sample: "s0", Truth: "t1", Finding: "f4", Pos: "l:4"}, wantErr: "it was filtered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Calibrate(calibrationRun(), []Label{tt.label}, noCI())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
