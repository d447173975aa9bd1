package cli

import (
	"github.com/spf13/cobra"
)

// NewCmdBench declares `council bench` and its subcommands.
func NewCmdBench(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Replay human-reviewed pull requests and score the council against the humans",
		Long: `council bench measures the council against human reviewers. It imports real pull requests
as samples (the diff the first human reviewer saw, and what the humans said), runs the council on
each, scores the findings against the human comments (precision, recall, F1 at several tiers,
with confidence intervals, and cost per PR), and writes a report. See docs/bench.md.`,
		Example: `  council bench import --pr projectcalico/calico#10736 --out bench/calico
  council bench import --repo owner/repo --since 2026-01-01 --limit 50 --out bench/mine
  council bench run bench/mine --out runs/sonnet --concurrency 4 --max-cost 20
  council bench score runs/sonnet --truth bench/mine --out runs/sonnet/score.json
  council bench report runs/sonnet runs/haiku --out report.html`,
		Args: cobra.NoArgs,
	}
	// Each subcommand lives in its own bench_<name>.go file.
	cmd.AddCommand(NewCmdBenchRun(f, nil), NewCmdBenchReport(f, nil), NewCmdBenchMirror(f, nil), NewCmdBenchScore(f, nil), NewCmdBenchCalibrate(f, nil), NewCmdBenchImport(f, nil))
	return cmd
}
