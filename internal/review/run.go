package review

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
)

// Completer sends one request to a model.
type Completer interface {
	Complete(ctx context.Context, req provider.Request) (provider.Response, error)
}

// Options tune a run of reviewers.
type Options struct {
	Model           func(Reviewer) string // the model a reviewer uses
	MaxOutputTokens int
	Concurrency     int                                          // requests in flight at once; <1 means 1
	Cost            func(model string, u provider.Usage) float64 // may be nil
	// WarmCache sends a one-token request per unit before the reviewers, when several of them
	// share a model and the prefix is long enough for providers to cache it.
	WarmCache bool
	Clock     func() time.Time // time.Now when nil
	// NewToolbox gives each conversation (reviewer × unit) its repository tools; nil turns
	// the tool loop off.
	NewToolbox func() Toolbox
	Limits     Limits // of each conversation with tools
}

// MinCachedPrefixTokens is the shortest prefix providers cache (Anthropic's and OpenAI's
// minimum for their main models); warming a shorter one would be a wasted request.
const MinCachedPrefixTokens = 1024

// Result is one reviewer's part of a run.
type Result struct {
	Reviewer    Reviewer
	Model       string
	Findings    []finding.Finding
	Summary     string
	Errors      []string // failed units and malformed answers
	FailedUnits []int    // indexes of the units in Errors
	Warnings    []string // findings the answer parser had to drop or repair
	Units       int
	Boxes       []Toolbox // each unit's toolbox (nil entries without tools), for the ledger
	Usage       provider.Usage
	Wall        time.Duration
	Succeeded   bool // at least one unit answered and parsed
}

// Warmup is what the cache warm-up requests used and how they failed; they belong to no
// reviewer. A failed warm-up costs only the cache: the reviews still run.
type Warmup struct {
	Usage  provider.Usage
	Errors []string
}

// Run has every reviewer review every unit, concurrently under o.Concurrency. It never fails
// as a whole: each reviewer's errors are in its Result.
func Run(ctx context.Context, c Completer, in Input, rs []Reviewer, o Options) ([]Result, Warmup) {
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	now := o.Clock
	if now == nil {
		now = time.Now
	}
	type outcome struct {
		answer Answer
		usage  provider.Usage
		err    error
		wall   time.Duration
		box    Toolbox
	}
	outs := make([][]outcome, len(rs))
	for i := range outs {
		outs[i] = make([]outcome, len(in.Units))
	}
	sem := make(chan struct{}, o.Concurrency)
	var warm Warmup
	var mu sync.Mutex
	var wg sync.WaitGroup

	models, byModel := byModel(rs, o.Model)
	for u := range in.Units {
		for _, m := range models {
			idx := byModel[m]
			wg.Add(1)
			go func(u int, m string, idx []int) {
				defer wg.Done()
				first := o.FirstTurn(Request(in, u, rs[idx[0]], m, o.MaxOutputTokens))
				if o.WarmCache && warms(first, len(idx)) {
					sem <- struct{}{}
					resp, err := c.Complete(ctx, warmup(first))
					<-sem
					mu.Lock()
					if err != nil {
						warm.Errors = append(warm.Errors, fmt.Sprintf("unit %d, %s: %v", u+1, m, err))
					} else {
						warm.Usage = warm.Usage.Add(priced(o, m, resp.Usage))
					}
					mu.Unlock()
				}
				var rwg sync.WaitGroup
				for _, i := range idx {
					rwg.Add(1)
					go func(i int) {
						defer rwg.Done()
						req := Request(in, u, rs[i], m, o.MaxOutputTokens)
						var box Toolbox
						if o.NewToolbox != nil {
							box = o.NewToolbox()
						}
						sem <- struct{}{}
						defer func() { <-sem }()
						start := now()
						resp, usage, err := Converse(ctx, c, req, box, SubmitTool, o.Limits,
							func(u provider.Usage) provider.Usage { return priced(o, m, u) })
						out := outcome{wall: now().Sub(start), usage: usage, box: box, err: err}
						if err == nil {
							out.answer, out.err = ParseAnswer(rs[i].Name, resp)
						}
						outs[i][u] = out
					}(i)
				}
				rwg.Wait()
			}(u, m, idx)
		}
	}
	wg.Wait()

	results := make([]Result, len(rs))
	for i, r := range rs {
		res := Result{Reviewer: r, Model: o.Model(r), Units: len(in.Units)}
		var summaries []string
		for u, out := range outs[i] {
			res.Usage = res.Usage.Add(out.usage)
			res.Wall += out.wall
			res.Boxes = append(res.Boxes, out.box)
			where := ""
			if len(in.Units) > 1 {
				where = fmt.Sprintf("unit %d/%d: ", u+1, len(in.Units))
			}
			if out.err != nil {
				res.Errors = append(res.Errors, where+out.err.Error())
				res.FailedUnits = append(res.FailedUnits, u)
				continue
			}
			res.Succeeded = true
			res.Findings = append(res.Findings, out.answer.Findings...)
			for _, p := range out.answer.Problems {
				res.Warnings = append(res.Warnings, where+p)
			}
			if s := strings.TrimSpace(out.answer.Summary); s != "" {
				summaries = append(summaries, s)
			}
		}
		res.Summary = strings.Join(summaries, "\n")
		results[i] = res
	}
	return results, warm
}

// FirstTurn is the first request of a conversation as it will be sent: with the repository
// tools when there are any. The warm-up copies it, so that its cached prefix matches.
func (o Options) FirstTurn(req provider.Request) provider.Request {
	if o.NewToolbox == nil {
		return req
	}
	return WithTools(req, o.NewToolbox(), o.Limits, SubmitTool)
}

// byModel groups reviewers by the model they run on, in order: the prompt cache is per model.
func byModel(rs []Reviewer, model func(Reviewer) string) ([]string, map[string][]int) {
	groups := map[string][]int{}
	var models []string
	for i, r := range rs {
		m := model(r)
		if _, ok := groups[m]; !ok {
			models = append(models, m)
		}
		groups[m] = append(groups[m], i)
	}
	return models, groups
}

// warms says whether a warm-up pays for itself: several reviewers share the prefix, and it is
// long enough for the provider to cache.
func warms(first provider.Request, reviewers int) bool {
	return reviewers > 1 && prefixTokens(first) >= MinCachedPrefixTokens
}

// Estimate is what Run would use, assuming every answer has outputTokens tokens and the cache
// works as designed: one warm-up writes each shared prefix, every reviewer reads it. It returns
// the usage per reviewer (in rs order) and of the warm-ups, priced with o.Cost.
func Estimate(in Input, rs []Reviewer, o Options, outputTokens int64) ([]provider.Usage, provider.Usage) {
	per := make([]provider.Usage, len(rs))
	var warm provider.Usage
	models, groups := byModel(rs, o.Model)
	for u := range in.Units {
		for _, m := range models {
			idx := groups[m]
			first := o.FirstTurn(Request(in, u, rs[idx[0]], m, o.MaxOutputTokens))
			cached := o.WarmCache && warms(first, len(idx))
			p := int64(prefixTokens(first))
			if cached {
				warm = warm.Add(priced(o, m, provider.Usage{Requests: 1, CacheWriteTokens: p, OutputTokens: 1}))
			}
			for _, i := range idx {
				total := int64(provider.EstimateTokens(o.FirstTurn(Request(in, u, rs[i], m, o.MaxOutputTokens))))
				us := provider.Usage{Requests: 1, InputTokens: total, OutputTokens: outputTokens}
				if cached {
					us.InputTokens, us.CacheReadTokens = total-p, p
				}
				per[i] = per[i].Add(priced(o, m, us))
			}
		}
	}
	return per, warm
}

// prefixTokens estimates the cacheable prefix of a review request: tools, system and the shared
// first block.
func prefixTokens(req provider.Request) int {
	p := req
	p.Messages = []provider.Message{{Role: provider.User, Content: req.Messages[0].Content[:1]}}
	return provider.EstimateTokens(p)
}

func priced(o Options, model string, u provider.Usage) provider.Usage {
	if o.Cost != nil {
		u.CostUSD = o.Cost(model, u)
	}
	return u
}
