package bench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseFindingLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		want    []FindingLabel
		wantErr string
	}{
		{
			name: "every field, blank lines, truth sorted and deduplicated",
			data: `{"sample":"s0","finding":"f1","label":"valid","truth":["t2","t1","t2"],"why":"a real leak"}` + "\n\n" +
				`{"sample":"s0","finding":"f2","label":"wrong"}` + "\n",
			want: []FindingLabel{
				{Sample: "s0", Finding: "f1", Label: "valid", Truth: []string{"t1", "t2"}, Why: "a real leak", Pos: "l.jsonl:1"},
				{Sample: "s0", Finding: "f2", Label: "wrong", Truth: []string{}, Pos: "l.jsonl:3"},
			},
		},
		{
			name: "the same label twice counts once",
			data: `{"sample":"s0","finding":"f1","label":"minor","truth":["t1"]}` + "\n" + `{"sample":"s0","finding":"f1","label":"minor","truth":["t1"],"why":"again"}`,
			want: []FindingLabel{{Sample: "s0", Finding: "f1", Label: "minor", Truth: []string{"t1"}, Pos: "l.jsonl:1"}},
		},
		{
			name:    "two labels of one finding",
			data:    `{"sample":"s0","finding":"f1","label":"minor"}` + "\n" + `{"sample":"s0","finding":"f1","label":"valid"}`,
			wantErr: "l.jsonl:2: finding f1 of sample s0 is labelled otherwise at l.jsonl:1",
		},
		{name: "not JSON", data: "{\"sample\":", wantErr: "l.jsonl:1: unexpected EOF"},
		{name: "calibrate's pair labels", data: `{"sample":"s0","truth":"t1","finding":"f1","same":true}`, wantErr: "l.jsonl:1: a pair label, as bench calibrate --labels reads"},
		{name: "an unknown field", data: `{"sample":"s0","finding":"f1","label":"valid","lable":"x"}`, wantErr: `l.jsonl:1: json: unknown field "lable"`},
		{name: "a missing field", data: `{"sample":"s0","label":"valid"}`, wantErr: `l.jsonl:1: missing "finding"`},
		{name: "a label outside the set", data: `{"sample":"s0","finding":"f1","label":"good"}`, wantErr: `l.jsonl:1: label "good": must be one of valid, minor, wrong`},
		{name: "an empty truth id", data: `{"sample":"s0","finding":"f1","label":"valid","truth":[""]}`, wantErr: "l.jsonl:1: an empty truth id"},
		{name: "two objects on a line", data: `{"sample":"s0","finding":"f1","label":"valid"} {}`, wantErr: "l.jsonl:1: more than one JSON value"},
		{name: "empty", data: "\n\n", wantErr: "l.jsonl: no labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFindingLabels("l.jsonl", []byte(tt.data))
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

func labelsOf(t *testing.T, lines ...string) []FindingLabel {
	t.Helper()
	ls, err := ParseFindingLabels("l.jsonl", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestScoreLabels on placementRun: f1 (up front) valid; f2 and f4 (collapsed) minor but each
// asks for a truth item; f3 (collapsed) wrong; f5 (up front) unlabelled; and one label of a
// finding of another run.
func TestScoreLabels(t *testing.T) {
	t.Parallel()
	ls, err := ScoreLabels(placementRun(), "l.jsonl", labelsOf(t,
		`{"sample":"s0","finding":"f1","label":"valid","truth":[]}`,
		`{"sample":"s0","finding":"f2","label":"minor","truth":["t1"]}`,
		`{"sample":"s0","finding":"f3","label":"wrong"}`,
		`{"sample":"s1","finding":"f4","label":"minor","truth":["t3"]}`,
		`{"sample":"s0","finding":"other-run","label":"valid","truth":["t2"]}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	// Unlabelled f5 is in no denominator; the other run's t2 is no ask caught.
	want := LabelScore{
		File: "l.jsonl", Labels: 5, Counted: 4, NotInRun: 1,
		Unlabelled: []FindingRef{{Sample: "s2", Finding: "f5", Placement: PlacementUpFront}},
		Placements: []LabelPlacement{
			{Placement: PlacementUpFront, LabelCounts: LabelCounts{Findings: 2, Labelled: 1, Valid: 1,
				JudgedValid: Share{1, 1, 1}, Useful: Share{1, 1, 1}},
				AsksCaught: Share{0, 4, 0}, PRsAsksCaught: Share{0, 3, 0}},
			{Placement: PlacementCollapsed, LabelCounts: LabelCounts{Findings: 3, Labelled: 3, Minor: 2, Wrong: 1,
				JudgedValid: Share{0, 3, 0}, Useful: Share{2, 3, 2.0 / 3}},
				AsksCaught: Share{2, 4, 0.5}, PRsAsksCaught: Share{2, 3, 2.0 / 3}},
			{Placement: PlacementAllShown, LabelCounts: LabelCounts{Findings: 5, Labelled: 4, Valid: 1, Minor: 2, Wrong: 1,
				JudgedValid: Share{1, 4, 0.25}, Useful: Share{3, 4, 0.75}},
				AsksCaught: Share{2, 4, 0.5}, PRsAsksCaught: Share{2, 3, 2.0 / 3}},
		},
		ByReviewer: []ReviewerLabels{
			{Reviewer: "correctness",
				UpFront:  LabelCounts{Findings: 2, Labelled: 1, Valid: 1, JudgedValid: Share{1, 1, 1}, Useful: Share{1, 1, 1}},
				AllShown: LabelCounts{Findings: 3, Labelled: 2, Valid: 1, Wrong: 1, JudgedValid: Share{1, 2, 0.5}, Useful: Share{1, 2, 0.5}}},
			{Reviewer: "security",
				AllShown: LabelCounts{Findings: 2, Labelled: 2, Minor: 2, JudgedValid: Share{0, 2, 0}, Useful: Share{2, 2, 1}}},
		},
	}
	if d := cmp.Diff(want, ls, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
}

// TestScoreLabelsAsksCountOnce: two findings asking for the same truth item catch one ask.
func TestScoreLabelsAsksCountOnce(t *testing.T) {
	t.Parallel()
	ls, err := ScoreLabels(placementRun(), "l.jsonl", labelsOf(t,
		`{"sample":"s0","finding":"f1","label":"valid","truth":["t1"]}`,
		`{"sample":"s0","finding":"f2","label":"valid","truth":["t1"]}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	if got := ls.Placements[2].AsksCaught; got != (Share{1, 4, 0.25}) {
		t.Errorf("all shown asks caught = %+v, want 1 of 4", got)
	}
}

func TestScoreLabelsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		lines   []string
		wantErr []string
	}{
		{
			name:    "a sample the dataset does not have",
			lines:   []string{`{"sample":"s9","finding":"f1","label":"valid"}`},
			wantErr: []string{`l.jsonl:1: unknown sample "s9"`},
		},
		{
			name: "a truth item its sample does not have, every one said",
			lines: []string{`{"sample":"s0","finding":"f1","label":"valid","truth":["t3"]}`,
				`{"sample":"s1","finding":"f4","label":"valid","truth":["t9"]}`},
			wantErr: []string{`l.jsonl:1: unknown truth "t3" in sample "s0"`, `l.jsonl:2: unknown truth "t9" in sample "s1"`},
		},
		{
			name:    "no label of this run",
			lines:   []string{`{"sample":"s0","finding":"zz","label":"valid"}`},
			wantErr: []string{"l.jsonl: none of its 1 labels names a finding run run shows"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ScoreLabels(placementRun(), "l.jsonl", labelsOf(t, tt.lines...))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}
