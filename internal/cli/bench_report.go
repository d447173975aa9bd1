package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/bench/benchreport"
)

// BenchReportOptions are the flags of `council bench report`.
type BenchReportOptions struct {
	Runs     []string // run directories, or score.json files
	Out      string   // the report file; "" is Markdown on stdout
	Markdown string   // a Markdown copy, besides --out
	Format   string   // html or markdown; "" chooses by --out's extension
}

var reportFormats = []string{"html", "markdown"}

// NewCmdBenchReport declares `council bench report`.
func NewCmdBenchReport(f *Factory, runF func(context.Context, *BenchReportOptions) error) *cobra.Command {
	opts := &BenchReportOptions{}
	cmd := &cobra.Command{
		Use:   "report RUN_DIR [RUN_DIR...]",
		Short: "Compare scored runs side by side, as Markdown or a self-contained HTML page",
		Long: `Read the score.json of each RUN_DIR (written by council bench score; a score.json path works
too) and write one report over all of them, side by side: the headline table of the findings
shown up front, the collapsed minor notes and all shown (recall, precision, PRs with a human
comment caught and, for runs scored with --labels, the judges' figures), precision, recall and F1
per tier with confidence intervals, every tier by placement, recall by kind, by addressed, by
author and by reviewer (up front and in all), cost and time per PR with the cost by part, the
judge, redundancy, and the samples not scored.

The HTML page adds a precision-recall chart per run, a recall-by-kind chart, and every sample's
human comments beside the finding each run matched to them, with a tier selector. It loads
nothing from the network: open it from disk, attach it to a CI run or mail it.

The format follows --out's extension (.html, .md); --format overrides it. Without --out the
Markdown goes to stdout.`,
		Example: `  council bench report runs/sonnet runs/haiku --out report.html
  council bench report runs/sonnet --out report.html --markdown report.md
  council bench report runs/*/score.json > report.md`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Runs = args
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchReportRun(f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Out, "out", "", "write the report to `FILE` (.html or .md; default: Markdown on stdout)")
	fl.StringVar(&opts.Markdown, "markdown", "", "also write the report as Markdown to `FILE`")
	fl.StringVar(&opts.Format, "format", "", "report format: "+strings.Join(reportFormats, "|")+" (default: from --out's extension)")
	return cmd
}

func (o *BenchReportOptions) validate() error {
	switch o.Format {
	case "":
		if o.Out == "" {
			o.Format = "markdown"
			break
		}
		switch strings.ToLower(filepath.Ext(o.Out)) {
		case ".html", ".htm":
			o.Format = "html"
		case ".md", ".markdown":
			o.Format = "markdown"
		default:
			return fmt.Errorf("--out %s: cannot tell the format from the extension: name it .html or .md, or add --format %s",
				o.Out, strings.Join(reportFormats, "|"))
		}
	case "html", "markdown":
	default:
		return fmt.Errorf("--format %q: must be one of %s", o.Format, strings.Join(reportFormats, ", "))
	}
	return nil
}

func benchReportRun(f *Factory, o *BenchReportOptions) error {
	runs, err := readRuns(o.Runs)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	render := benchreport.Markdown
	if o.Format == "html" {
		render = benchreport.HTML
	}
	if err := render(&buf, runs); err != nil {
		return err
	}
	if o.Out == "" {
		_, err := f.Out.Write(buf.Bytes())
		return err
	}
	if err := writeReportFile(o.Out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "council: wrote %s (%s)\n", o.Out, plural(len(runs), "run"))
	if o.Markdown != "" {
		buf.Reset()
		if err := benchreport.Markdown(&buf, runs); err != nil {
			return err
		}
		if err := writeReportFile(o.Markdown, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(f.Err, "council: wrote %s\n", o.Markdown)
	}
	return nil
}

func writeReportFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// readRuns reads each argument's score.json and names the runs: the score's run name, else
// the directory's; a name given twice gets its directory added so the columns stay apart.
func readRuns(args []string) ([]benchreport.Run, error) {
	runs := make([]benchreport.Run, 0, len(args))
	dirs := make([]string, 0, len(args))
	for _, arg := range args {
		path, dir := arg, arg
		st, err := os.Stat(arg)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%s does not exist: give a run directory (council bench run --out) or its score.json", arg)
		case err == nil && st.IsDir():
			path = filepath.Join(arg, "score.json")
		default:
			dir = filepath.Dir(arg)
		}
		s, err := readScore(path, dir)
		if err != nil {
			return nil, err
		}
		name := s.Run
		if name == "" {
			name = filepath.Base(filepath.Clean(dir))
		}
		runs = append(runs, benchreport.Run{Name: name, Score: s})
		dirs = append(dirs, dir)
	}
	disambiguate(runs, dirs)
	return runs, nil
}

func readScore(path, dir string) (bench.Score, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return bench.Score{}, fmt.Errorf("no score at %s: run `council bench score %s --truth DATASET` first", path, dir)
	}
	if err != nil {
		return bench.Score{}, fmt.Errorf("read score: %w", err)
	}
	var s bench.Score
	if err := json.Unmarshal(data, &s); err != nil {
		return bench.Score{}, fmt.Errorf("read score %s: %w", path, err)
	}
	if s.ScoreVersion != bench.ScoreVersion {
		return bench.Score{}, fmt.Errorf("read score %s: score_version %q: this council reads version %s; score the run again with this council",
			path, s.ScoreVersion, bench.ScoreVersion)
	}
	return s, nil
}

// disambiguate renames runs that share a name with their directory's name, "sonnet (a)" beside
// "sonnet (b)", or its path when those are the same too; the same directory given twice gets
// a number.
func disambiguate(runs []benchreport.Run, dirs []string) {
	count := func(name func(int) string) map[string]int {
		n := map[string]int{}
		for i := range runs {
			n[name(i)]++
		}
		return n
	}
	n := count(func(i int) string { return runs[i].Name })
	withBase := func(i int) string {
		return fmt.Sprintf("%s (%s)", runs[i].Name, filepath.Base(filepath.Clean(dirs[i])))
	}
	nb := count(withBase)
	for i := range runs {
		if n[runs[i].Name] > 1 {
			if name := withBase(i); nb[name] == 1 {
				runs[i].Name = name
			} else {
				runs[i].Name = fmt.Sprintf("%s (%s)", runs[i].Name, filepath.Clean(dirs[i]))
			}
		}
	}
	n, seen := count(func(i int) string { return runs[i].Name }), map[string]int{}
	for i := range runs {
		if name := runs[i].Name; n[name] > 1 {
			seen[name]++
			runs[i].Name = fmt.Sprintf("%s #%d", name, seen[name])
		}
	}
}
