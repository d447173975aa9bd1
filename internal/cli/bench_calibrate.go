package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
)

// BenchCalibrateOptions are the flags of `council bench calibrate`.
type BenchCalibrateOptions struct {
	RunDir     string
	Truth      string
	Labels     string
	Format     string
	Threshold  float64
	LineWindow int
	ConfigPath string

	thresholdSet bool
	windowSet    bool
}

var calibrateFormats = []string{"text", "json"}

// NewCmdBenchCalibrate declares `council bench calibrate`. runF replaces the behaviour in
// flag-parsing tests.
func NewCmdBenchCalibrate(f *Factory, runF func(context.Context, *BenchCalibrateOptions) error) *cobra.Command {
	opts := &BenchCalibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate RUN_DIR --truth DATASET --labels FILE",
		Short: "Measure how well the score's tiers agree with hand labels, and pick L2's threshold",
		Long: `Compare the matching rules of council bench score with a person's judgement. --labels is a
JSON Lines file, one labelled (human comment, finding) pair of the run per line:

  {"sample":"owner-repo-12","truth":"1234567","finding":"f3","same":true}

For every labelled pair, each tier's rule (L0 same file; L1 within the line window; L2 L1 and
text similarity >= the threshold) is compared with the label: agreement and Cohen's kappa. Then
L2's threshold is swept from 0.00 to 1.00 in steps of 0.01, and the middle of the first run of
thresholds with the highest kappa is printed with the .council.yaml lines that set it.

(council bench score --labels takes another file: blind judges' labels of single findings,
valid, minor or wrong.)`,
		Example: `  council bench calibrate runs/sonnet --truth bench/mine --labels labels.jsonl
  council bench calibrate runs/sonnet --truth bench/mine --labels labels.jsonl --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDir = args[0]
			opts.thresholdSet = cmd.Flags().Changed("threshold")
			opts.windowSet = cmd.Flags().Changed("line-window")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchCalibrateRun(f, opts)
		},
	}
	def := bench.DefaultScoreOptions()
	fl := cmd.Flags()
	fl.StringVar(&opts.Truth, "truth", "", "the dataset `DIR` the run reviewed (required)")
	fl.StringVar(&opts.Labels, "labels", "", "hand-labelled pairs: a JSON Lines `FILE` of {sample, truth, finding, same} (required;\nnot bench score's --labels, which labels findings)")
	fl.StringVar(&opts.Format, "format", "text", "output format: "+strings.Join(calibrateFormats, "|"))
	fl.Float64Var(&opts.Threshold, "threshold", 0, fmt.Sprintf("L2's threshold to measure, 0..1 (default: config, else %.2f)", def.Threshold))
	fl.IntVar(&opts.LineWindow, "line-window", 0, fmt.Sprintf("L1's largest line distance (default: config, else %d)", def.LineWindow))
	fl.StringVar(&opts.ConfigPath, "config", "", "config `FILE` for the defaults (default ./.council.yaml when present)")
	return cmd
}

func (o *BenchCalibrateOptions) validate() error {
	switch {
	case o.Truth == "":
		return errors.New("--truth DATASET is required: the dataset directory the run reviewed")
	case o.Labels == "":
		return errors.New(`--labels FILE is required: one {"sample","truth","finding","same"} object per line`)
	case !slices.Contains(calibrateFormats, o.Format):
		return fmt.Errorf("--format %q: must be one of %s", o.Format, strings.Join(calibrateFormats, ", "))
	case o.thresholdSet && (o.Threshold < 0 || o.Threshold > 1):
		return fmt.Errorf("--threshold %v: must be between 0 and 1", o.Threshold)
	case o.windowSet && (o.LineWindow < 0 || o.LineWindow > 1000):
		return fmt.Errorf("--line-window %d: must be between 0 and 1000", o.LineWindow)
	}
	return nil
}

func benchCalibrateRun(f *Factory, o *BenchCalibrateOptions) error {
	cfg, err := benchConfig(o.ConfigPath)
	if err != nil {
		return err
	}
	opts := bench.ScoreOptions{LineWindow: cfg.Bench.LineWindow, Threshold: cfg.Bench.SimilarityThreshold}
	if o.thresholdSet {
		opts.Threshold = o.Threshold
	}
	if o.windowSet {
		opts.LineWindow = o.LineWindow
	}
	data, err := os.ReadFile(o.Labels)
	if err != nil {
		return fmt.Errorf("read the labels: %w", err)
	}
	labels, err := bench.ParseLabels(o.Labels, data)
	if err != nil {
		return err
	}
	in, err := loadScoreInput(o.RunDir, o.Truth)
	if err != nil {
		return err
	}
	c, err := bench.Calibrate(in, labels, opts)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		out, err := marshalIndent(c)
		if err != nil {
			return fmt.Errorf("encode the calibration: %w", err)
		}
		_, err = f.Out.Write(out)
		return err
	}
	printCalibration(f.Out, in.Run.Name, c)
	return nil
}

func printCalibration(w io.Writer, run string, c bench.Calibration) {
	fmt.Fprintf(w, "run %s: %d labelled pairs, %d the same issue, %d not\n\n", run, c.Labels, c.Same, c.Labels-c.Same)
	fmt.Fprintf(w, "%-4s  %-32s  %5s  %9s  %6s  %4s  %4s  %4s  %4s\n", "tier", "hit when", "n", "agreement", "kappa", "TP", "FP", "FN", "TN")
	for _, a := range c.Tiers {
		fmt.Fprintf(w, "%-4s  %-32s  %5d  %9.2f  %6.2f  %4d  %4d  %4d  %4d\n", a.Tier, a.Description, a.N, a.Agreement, a.Kappa, a.TP, a.FP, a.FN, a.TN)
	}
	fmt.Fprintf(w, "\nbest L2 threshold: %.2f (kappa %.2f, agreement %.2f; every threshold from %.2f to %.2f reaches that kappa, this is the middle); measured above at %.2f (kappa %.2f)\n",
		c.Best.Threshold, c.Best.Kappa, c.Best.Agreement, c.BestRange[0], c.BestRange[1], c.Threshold, c.Tiers[2].Kappa)
	fmt.Fprintf(w, "\nto score with it, put this in .council.yaml:\n\nbench:\n  similarity_threshold: %.2f\n", c.Best.Threshold)
}
