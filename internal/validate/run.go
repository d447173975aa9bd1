package validate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
)

// DefaultMaxOutputTokens is the verdict's output budget when Options leave it at 0: three short
// reasons fit in far less.
const DefaultMaxOutputTokens = 1024

// Options tune a validation run.
type Options struct {
	Model           string                                       // model for every check
	MaxOutputTokens int                                          // DefaultMaxOutputTokens when 0
	Concurrency     int                                          // requests in flight at once; <1 means 1
	Cost            func(model string, u provider.Usage) float64 // may be nil
	// NewToolbox gives each check its read-only repository tools; nil: no tools.
	NewToolbox func() review.Toolbox
	Limits     review.Limits // of each check's conversation with tools
	// WarmCache sends a one-token request per unit before its checks when at least two
	// findings share the unit and its prefix is long enough for providers to cache.
	WarmCache bool
}

// Result is what validation did to the findings.
type Result struct {
	// Findings has the input's length and order. A rejected finding has Status
	// finding.Filtered and FilterReason "validator: <check>: <reason>"; every other finding is
	// unchanged.
	Findings []finding.Finding
	// Checked counts the findings that got a verdict; Rejected, those of them that failed it.
	// Findings already filtered on input and those in Errors are not checked.
	Checked, Rejected int
	// Errors are the checks that failed (a transport error, a malformed verdict), one line per
	// finding, in input order. Those findings are kept unchanged, never dropped.
	Errors []string
	// WarmupErrors are failed cache warm-ups. They cost only the cache: the checks still ran.
	WarmupErrors []string
	Usage        provider.Usage // every request, the warm-ups' included, priced with Options.Cost
	Verdicts     []Verdict      // per finding; the zero value when it was not checked
}

// ErrNoDiff is the error of every check when the input has no unit to check against.
var ErrNoDiff = errors.New("no diff to check the finding against")

// Run checks every finding not already filtered, concurrently under o.Concurrency. It never
// fails as a whole and never drops a finding: what could not be checked is in Result.Errors
// and kept as it was.
func Run(ctx context.Context, c review.Completer, in review.Input, fs []finding.Finding, o Options) Result {
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	if o.MaxOutputTokens <= 0 {
		o.MaxOutputTokens = DefaultMaxOutputTokens
	}
	type outcome struct {
		verdict Verdict
		usage   provider.Usage
		err     error
		checked bool
	}
	outs := make([]outcome, len(fs))
	byUnit := make([][]int, len(in.Units))
	for i, f := range fs {
		switch {
		case f.Status == finding.Filtered:
		case len(in.Units) == 0:
			outs[i] = outcome{err: ErrNoDiff, checked: true}
		default:
			u, _ := unitOf(in, f.Path)
			byUnit[u] = append(byUnit[u], i)
		}
	}
	price := func(u provider.Usage) provider.Usage {
		if o.Cost != nil {
			u.CostUSD = o.Cost(o.Model, u)
		}
		return u
	}

	var (
		res = Result{Findings: slices.Clone(fs), Verdicts: make([]Verdict, len(fs))}
		sem = make(chan struct{}, o.Concurrency)
		mu  sync.Mutex // guards res.Usage and res.WarmupErrors
		wg  sync.WaitGroup
	)
	for u, idx := range byUnit {
		if len(idx) == 0 {
			continue
		}
		wg.Go(func() {
			if o.WarmCache && len(idx) > 1 {
				first := o.firstTurn(Request(in, u, fs[idx[0]], o.Model, o.MaxOutputTokens))
				if prefixTokens(first) >= review.MinCachedPrefixTokens {
					sem <- struct{}{}
					resp, err := c.Complete(ctx, warmup(first))
					<-sem
					mu.Lock()
					if err != nil {
						res.WarmupErrors = append(res.WarmupErrors, fmt.Sprintf("unit %d: %v", u+1, err))
					} else {
						res.Usage = res.Usage.Add(price(resp.Usage))
					}
					mu.Unlock()
				}
			}
			var cwg sync.WaitGroup
			for _, i := range idx {
				cwg.Go(func() {
					req := Request(in, u, fs[i], o.Model, o.MaxOutputTokens)
					var box review.Toolbox
					if o.NewToolbox != nil {
						box = o.NewToolbox()
					}
					sem <- struct{}{}
					defer func() { <-sem }()
					resp, usage, err := review.Converse(ctx, c, req, box, VerdictTool, o.Limits, price)
					out := outcome{usage: usage, err: err, checked: true}
					if err == nil {
						out.verdict, out.err = ParseVerdict(resp)
					}
					outs[i] = out
				})
			}
			cwg.Wait()
		})
	}
	wg.Wait()

	for i, out := range outs {
		res.Usage = res.Usage.Add(out.usage)
		switch {
		case !out.checked:
		case out.err != nil:
			res.Errors = append(res.Errors, fmt.Sprintf("finding %d of %d (%s): %v", i+1, len(fs), where(fs[i]), out.err))
		default:
			res.Checked++
			res.Verdicts[i] = out.verdict
			if !out.verdict.Passed() {
				res.Rejected++
				res.Findings[i].Status = finding.Filtered
				res.Findings[i].FilterReason = out.verdict.FilterReason()
			}
		}
	}
	return res
}

// firstTurn is the first request of a check as it will be sent: with the repository tools when
// there are any. The warm-up copies it, so that its cached prefix matches.
func (o Options) firstTurn(req provider.Request) provider.Request {
	if o.NewToolbox == nil {
		return req
	}
	return review.WithTools(req, o.NewToolbox())
}

// where names a finding in an error line: its place and title.
func where(f finding.Finding) string {
	s := oneLine(f.Path)
	if f.Line > 0 {
		s += fmt.Sprintf(":%d", f.Line)
	}
	if t := oneLine(f.Title); t != "" {
		s += fmt.Sprintf(" %q", excerptShort(t))
	}
	return s
}
