package cli

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/bench"
)

func TestNewCmdBenchCalibrateFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    string
		want    BenchCalibrateOptions
		wantErr string
	}{
		{name: "defaults", args: "r --truth ds --labels l.jsonl", want: BenchCalibrateOptions{RunDir: "r", Truth: "ds", Labels: "l.jsonl", Format: "text"}},
		{
			name: "everything",
			args: "r --truth ds --labels l.jsonl --format json --threshold 0.3 --line-window 4 --config c.yaml",
			want: BenchCalibrateOptions{RunDir: "r", Truth: "ds", Labels: "l.jsonl", Format: "json", Threshold: 0.3, LineWindow: 4, ConfigPath: "c.yaml"},
		},
		{name: "labels are required", args: "r --truth ds", wantErr: "--labels FILE is required"},
		{name: "truth is required", args: "r --labels l", wantErr: "--truth DATASET is required"},
		{name: "format enum", args: "r --truth ds --labels l --format yaml", wantErr: `--format "yaml": must be one of text, json`},
		{name: "threshold range", args: "r --truth ds --labels l --threshold -0.1", wantErr: "--threshold -0.1: must be between 0 and 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *BenchCalibrateOptions
			cmd := NewCmdBenchCalibrate(&Factory{}, func(_ context.Context, o *BenchCalibrateOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreUnexported(BenchCalibrateOptions{})); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestBenchCalibrateHelp: the help says which threshold is proposed as docs/bench.md and
// bench.Calibrate do: the middle of the first run of best thresholds, not its smallest.
func TestBenchCalibrateHelp(t *testing.T) {
	t.Parallel()
	long := NewCmdBenchCalibrate(&Factory{}, nil).Long
	if !strings.Contains(long, "the middle of the first run of\nthresholds with the highest kappa") || strings.Contains(long, "smallest") {
		t.Errorf("the help does not say the middle of the best range is proposed:\n%s", long)
	}
}

// calibrationLabels: f1 is the same issue as 101 and f2 is not, though both are in its file
// (and 20 lines apart: within a window of 20, only the text tells them apart).
const calibrationLabels = `{"sample":"s1","truth":"101","finding":"f1","same":true}
{"sample":"s1","truth":"101","finding":"f2","same":false}
{"sample":"s2","truth":"201","finding":"f1","same":false}
`

func TestBenchCalibrate(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	writeScoreTestFile(t, labels, calibrationLabels)

	r := council(t, nil, "bench", "calibrate", s.runDir, "--truth", s.dataset, "--labels", labels, "--line-window", "20")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{
		"run sonnet: 3 labelled pairs, 1 the same issue, 2 not",
		"L0    same file                             3       0.67    0.40",
		"L1    same file, within 20 lines            3       0.67    0.40",
		"L2    L1 and text similarity >= 0.11        3       1.00    1.00",
		"best L2 threshold: 0.46 (kappa 1.00, agreement 1.00; every threshold from 0.01 to 0.91 reaches that kappa",
		"bench:\n  similarity_threshold: 0.46\n",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.out)
		}
	}

	r = council(t, nil, "bench", "calibrate", s.runDir, "--truth", s.dataset, "--labels", labels, "--line-window", "20", "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	var c bench.Calibration
	if err := json.Unmarshal([]byte(r.out), &c); err != nil {
		t.Fatalf("--format json is not JSON: %v\n%s", err, r.out)
	}
	if c.Labels != 3 || len(c.Tiers) != 3 || len(c.Sweep) != 101 || c.Best.Threshold != 0.46 {
		t.Errorf("calibration = %d labels, %d tiers, %d sweep points, best %+v", c.Labels, len(c.Tiers), len(c.Sweep), c.Best)
	}
}

func TestBenchCalibrateBadLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		labels  string
		wantErr string
	}{
		{name: "a bad line", labels: calibrationLabels + "{\"sample\":\"s1\",\"truth\":\"101\"\n", wantErr: "labels.jsonl:4: unexpected EOF"},
		{name: "a missing field", labels: `{"sample":"s1","truth":"101","finding":"f1"}`, wantErr: `labels.jsonl:1: missing "same"`},
		{name: "an unknown finding", labels: "\n" + `{"sample":"s1","truth":"101","finding":"f9","same":true}`, wantErr: `labels.jsonl:2: unknown finding "f9" in the review of sample "s1"`},
		{name: "a filtered finding", labels: `{"sample":"s1","truth":"101","finding":"f3","same":true}`, wantErr: "labels.jsonl:1: unknown finding \"f3\" in the review of sample \"s1\": it was filtered"},
		{name: "a sample not scored", labels: `{"sample":"s3","truth":"301","finding":"f1","same":true}`, wantErr: `labels.jsonl:1: sample "s3" was not scored (the review failed: clone failed)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setupScore(t)
			labels := filepath.Join(t.TempDir(), "labels.jsonl")
			writeScoreTestFile(t, labels, tt.labels)
			r := council(t, nil, "bench", "calibrate", s.runDir, "--truth", s.dataset, "--labels", labels)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q: want %d and %q", r.code, r.err, ExitUsage, tt.wantErr)
			}
		})
	}
}
