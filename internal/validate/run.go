package validate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
)

// DefaultMaxIssues is how many issues one request checks when Options leave it at 0. The
// issues of a unit of the change are checked together, a file's side by side, so that the
// validator can tell two of them are one point; more than this many are split.
const DefaultMaxIssues = 10

// DefaultMaxOutputTokens is the output budget of a check of one issue when Options leave it
// at 0; a request of n issues gets n times this, plus room for reasoning.
const DefaultMaxOutputTokens = 600

// maxRequestOutputTokens caps a request's output budget, whatever the number of issues.
const maxRequestOutputTokens = 8192

// Options tune a validation run.
type Options struct {
	Model           string                                       // model for every check
	MaxOutputTokens int                                          // per issue; DefaultMaxOutputTokens when 0
	MaxIssues       int                                          // per request; DefaultMaxIssues when 0
	Concurrency     int                                          // requests in flight at once; <1 means 1
	Cost            func(model string, u provider.Usage) float64 // may be nil
	// NewToolbox gives each check its read-only repository tools; nil: no tools.
	NewToolbox func() review.Toolbox
	Limits     review.Limits // of each check's conversation with tools
	// Unchecked names the reviewers whose findings are not checked (the repository's
	// deterministic rules).
	Unchecked []string
}

// Result is what validation did to the findings.
type Result struct {
	// Findings are the input's, in its order, less the duplicates folded into another finding.
	// A rejected finding has Status finding.Filtered and FilterReason "validator: <check>:
	// <reason>"; a minor one, Status finding.Minor; each checked finding has its Validation.
	Findings []finding.Finding
	// Checked counts the findings that got a verdict; the others count what the verdicts did.
	Checked, Rejected, Lowered, Narrowed, Minor, Merged int
	// Requests counts the checks sent (one per batch of a file's issues), tool rounds aside.
	Requests int
	// Errors are the checks that failed (a transport error, a malformed verdict), one line per
	// finding, in input order. Those findings are kept unchanged, never dropped.
	Errors []string
	Usage  provider.Usage // every request, priced with Options.Cost
}

// batch is one request's issues: indices into the findings, all in one unit of the change.
type batch struct {
	unit int
	idx  []int
}

// Run checks the findings not already filtered, a unit's issues together, concurrently under
// o.Concurrency. It never fails as a whole and never drops a finding except a duplicate it
// folds into the finding that owns its point: what could not be checked is in Result.Errors
// and kept as it was.
func Run(ctx context.Context, c review.Completer, in review.Input, fs []finding.Finding, o Options) Result {
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	if o.MaxOutputTokens <= 0 {
		o.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if o.MaxIssues <= 0 {
		o.MaxIssues = DefaultMaxIssues
	}
	batches := makeBatches(in, fs, o)
	price := func(u provider.Usage) provider.Usage {
		if o.Cost != nil {
			u.CostUSD = o.Cost(o.Model, u)
		}
		return u
	}

	type outcome struct {
		verdicts map[int]Verdict
		errs     map[int]error
		usage    provider.Usage
	}
	outs := make([]outcome, len(batches))
	sem := make(chan struct{}, o.Concurrency)
	var wg sync.WaitGroup
	for k, b := range batches {
		wg.Go(func() {
			issues := make([]finding.Finding, len(b.idx))
			for j, i := range b.idx {
				issues[j] = fs[i]
			}
			maxTokens := min(o.MaxOutputTokens*len(issues)+512, maxRequestOutputTokens)
			req := Request(in, b.unit, issues, o.Model, maxTokens)
			var box review.Toolbox
			if o.NewToolbox != nil {
				box = o.NewToolbox()
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			resp, usage, err := review.Converse(ctx, c, req, box, VerdictTool, o.Limits, price)
			out := outcome{usage: usage}
			if err != nil {
				out.errs = map[int]error{}
				for j := range issues {
					out.errs[j+1] = err
				}
			} else {
				out.verdicts, out.errs = ParseVerdicts(resp, len(issues))
			}
			outs[k] = out
		})
	}
	wg.Wait()

	res := Result{Requests: len(batches)}
	work := slices.Clone(fs)
	gone := make([]bool, len(fs))
	errAt := map[int]error{}
	for k, b := range batches {
		out := outs[k]
		res.Usage = res.Usage.Add(out.usage)
		for j, i := range b.idx {
			if err := out.errs[j+1]; err != nil {
				errAt[i] = err
				work[i].Validation = &finding.Validation{Decision: "error", Reason: oneLine(err.Error())}
			}
		}
		for j, i := range b.idx {
			v, ok := out.verdicts[j+1]
			if !ok {
				continue
			}
			res.Checked++
			if v.Decision == Duplicate {
				t := owner(out.verdicts, j+1)
				if t == 0 {
					v.Decision = Keep // a ring of duplicates: the first of it stands
				} else {
					into := &work[b.idx[t-1]]
					for _, l := range work[i].Lenses {
						if !slices.Contains(into.Lenses, l) {
							into.Lenses = append(into.Lenses, l)
						}
					}
					if into.Validation == nil {
						into.Validation = &finding.Validation{}
					}
					into.Validation.Merged = append(into.Validation.Merged, work[i].ID)
					gone[i] = true
					res.Merged++
					continue
				}
			}
			apply(&work[i], v, &res)
		}
	}
	for i, f := range work {
		if err, ok := errAt[i]; ok {
			res.Errors = append(res.Errors, fmt.Sprintf("finding %d of %d (%s): %v", i+1, len(fs), whereShort(fs[i]), err))
		}
		if !gone[i] {
			res.Findings = append(res.Findings, f)
		}
	}
	return res
}

// makeBatches groups the findings to check by the unit of the change their file is in (the
// first unit for a file none holds), in order of first appearance, a file's issues side by
// side, at most o.MaxIssues to a batch.
func makeBatches(in review.Input, fs []finding.Finding, o Options) []batch {
	var order []int
	byUnit := map[int][]int{}
	for i, f := range fs {
		if f.Status == finding.Filtered || slices.Contains(o.Unchecked, f.Owner()) {
			continue
		}
		u := max(0, review.UnitOf(in, f.Path))
		if _, ok := byUnit[u]; !ok {
			order = append(order, u)
		}
		byUnit[u] = append(byUnit[u], i)
	}
	var out []batch
	for _, u := range order {
		idx := byUnit[u]
		slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(fs[a].Path, fs[b].Path) })
		// Split evenly: 11 issues make batches of 6 and 5, not 10 and 1.
		n := (len(idx) + o.MaxIssues - 1) / o.MaxIssues
		size := (len(idx) + n - 1) / n
		for len(idx) > 0 {
			k := min(size, len(idx))
			out = append(out, batch{unit: u, idx: idx[:k]})
			idx = idx[k:]
		}
	}
	return out
}

// owner follows a duplicate's same_as to the issue that owns the point: one whose own
// verdict is not a duplicate. It is 0 when the chain comes back on itself.
func owner(vs map[int]Verdict, issue int) int {
	seen := map[int]bool{}
	for {
		if seen[issue] {
			return 0
		}
		seen[issue] = true
		v, ok := vs[issue]
		if !ok || v.Decision != Duplicate {
			return issue
		}
		issue = v.SameAs
	}
}

// apply makes a verdict's decision on f.
func apply(f *finding.Finding, v Verdict, res *Result) {
	val := &finding.Validation{Decision: v.Decision, Reason: oneLine(v.Reason), Ask: v.Ask}
	if f.Validation != nil {
		val.Merged = f.Validation.Merged
	}
	f.Validation = val
	if v.Decision == Reject {
		res.Rejected++
		f.Status = finding.Filtered
		f.FilterReason = v.FilterReason()
		return
	}
	if v.Decision == Narrow {
		res.Narrowed++
		if v.Title != "" {
			f.Title = oneLine(v.Title)
		}
		f.Body = v.Body
	}
	// The validator may lower a severity, never raise one.
	if v.Severity != "" && v.Severity.Rank() < f.Severity.Rank() {
		val.SeverityBefore = f.Severity
		f.Severity = v.Severity
		if v.Decision == Keep {
			val.Decision = Lower
		}
		res.Lowered++
	} else if v.Decision == Lower {
		val.Decision = Keep
	}
	if !v.Attention && (f.Status == finding.Reported || f.Status == finding.OtherNote) {
		f.Status = finding.Minor
		res.Minor++
	}
}

// whereShort names a finding in an error line: its place and title.
func whereShort(f finding.Finding) string {
	s := oneLine(f.Path)
	if f.Line > 0 {
		s += fmt.Sprintf(":%d", f.Line)
	}
	if t := oneLine(f.Title); t != "" {
		s += fmt.Sprintf(" %q", excerptShort(t))
	}
	return s
}
