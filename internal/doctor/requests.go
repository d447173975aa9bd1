package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/overview"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
	"github.com/council-dev/council/internal/tools"
	"github.com/council-dev/council/internal/validate"
)

// Sample is one request council sends, with the kind of request it is.
type Sample struct {
	Kind    string
	Request provider.Request
}

// The kinds of request council sends, as Requests names them.
const (
	KindReviewWarmup     = "reviewers' cache warm-up"
	KindReviewFirst      = "reviewer's first turn"
	KindReviewTools      = "reviewer's turn after tool results"
	KindReviewFinal      = "reviewer's forced final answer"
	KindValidatorFirst   = "validator's first turn"
	KindValidatorTools   = "validator's turn after tool results"
	KindValidatorFinal   = "validator's forced final answer"
	KindOverview         = "pull request overview"
	KindThreadCheck      = "thread check after a push"
	KindJudgeSame        = "benchmark judge: same issue?"
	KindJudgePlausible   = "benchmark judge: plausible?"
	KindReviewNoTools    = "review without tools (--no-tools)"
	KindValidatorNoTools = "validator check without tools"
	KindQuestion         = "answer to a question in a thread"
	KindPersonaBatch     = "persona build: a batch of comments"
	KindPersonaMerge     = "persona build: merging the batches"
	KindLearnings        = "council learn: learnings from signals"
	KindAsks             = "council learn: asks from what reviewers asked for"
)

// Kinds lists every kind of request Requests returns, in order.
func Kinds() []string {
	return []string{
		KindReviewWarmup, KindReviewFirst, KindReviewTools, KindReviewFinal,
		KindValidatorFirst, KindValidatorTools, KindValidatorFinal,
		KindReviewNoTools, KindValidatorNoTools,
		KindOverview, KindThreadCheck, KindQuestion, KindJudgeSame, KindJudgePlausible,
		KindPersonaBatch, KindPersonaMerge, KindLearnings, KindAsks,
	}
}

// RequestOptions say what the sample requests are made for.
type RequestOptions struct {
	Provider        string // anthropic or openai: whose default model applies when Model is ""
	Model           string
	MaxOutputTokens int // budget.max_output_tokens of the reviews; the config's default when 0
}

// Requests returns the requests council sends, at least one of every kind (Kinds), made by
// the code that sends them: a small change in a scratch git repository goes through the review engine with
// the three built-in lenses, repository tools and the validator, answered by a scripted model
// that calls tools and reports a finding; then the overview, a thread check after a push, an
// answer to a question in a thread, the benchmark judge, a persona built from a maintainer's
// comments (in two batches and a merge) and learnings from review signals. Nothing leaves the
// process.
func Requests(ctx context.Context, o RequestOptions) ([]Sample, error) {
	tmp, err := os.MkdirTemp("", "council-doctor-")
	if err != nil {
		return nil, fmt.Errorf("make a scratch repository: %w", err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, sampleRepoDirName)
	base, head, err := sampleRepo(ctx, dir, o.MaxOutputTokens)
	if err != nil {
		return nil, fmt.Errorf("make a scratch repository: %w", err)
	}
	m := &scripted{}
	var out []Sample
	for _, noTools := range []bool{false, true} {
		sess, err := engine.Open(ctx, engine.Options{Repo: dir, Base: base, Head: head, Provider: o.Provider, Model: o.Model, NoTools: noTools})
		if err != nil {
			return nil, err
		}
		rep := sess.Run(ctx, m, provider.DefaultPrices())
		if err := sess.Close(); err != nil {
			return nil, err
		}
		for _, rv := range rep.Reviewers {
			if len(rv.Errors) > 0 {
				return nil, fmt.Errorf("sample review by %s failed: %s", rv.Name, strings.Join(rv.Errors, "; "))
			}
		}
		if len(rep.Validation.Errors) > 0 {
			return nil, fmt.Errorf("sample validation failed: %s", strings.Join(rep.Validation.Errors, "; "))
		}
		if noTools {
			continue
		}
		model := sess.Config.Model
		out = append(out, Sample{KindOverview, overview.Request(sess.Input(), model, overview.MaxTokens)})
		code, err := sess.HeadText(ctx, sampleFile, 2000)
		if err != nil {
			return nil, err
		}
		if _, _, err := validate.CheckFixed(ctx, m, "🔎 **Correctness** — Reserve can oversell", sampleFile, code, model); err != nil {
			return nil, fmt.Errorf("sample thread check: %w", err)
		}
		if _, _, err := validate.AnswerQuestion(ctx, m, "🔎 **Correctness** — Reserve can oversell", "Why is Put not affected?", sampleFile, code, model); err != nil {
			return nil, fmt.Errorf("sample question: %w", err)
		}
		judge := bench.NewJudge(bench.JudgeOptions{Client: m, Model: model, Concurrency: 1})
		f := bench.Prediction{ID: "f1", Reviewers: []string{"correctness"}, Path: sampleFile, Line: 21, Severity: "high", Category: "concurrency",
			Title: "Reserve can oversell", Body: "The check and the update are not atomic.", Quote: sampleBuggyLine}
		t := bench.Truth{ID: "1", Author: "maintainer", Path: sampleFile, Line: 21, Side: "RIGHT", Body: "This races with Put: hold the lock across the check.", Kind: "bug"}
		if _, err := judge.Same(ctx, []bench.JudgePair{{Key: bench.PairKey{Truth: "1", Finding: "f1"}, Truth: t, Finding: f}}); err != nil {
			return nil, fmt.Errorf("sample judge: %w", err)
		}
		if _, err := judge.Plausible(ctx, []bench.JudgeFinding{{Key: bench.FindingKey{Finding: "f1"}, Finding: f}}); err != nil {
			return nil, fmt.Errorf("sample judge: %w", err)
		}
		// A budget that holds about half the comments makes two batches and a merge.
		if _, err := persona.Distill(ctx, m, samplePersonaComments, persona.Options{Model: model, TokenBudget: samplePersonaBudget}); err != nil {
			return nil, fmt.Errorf("sample persona: %w", err)
		}
		signals := sampleSignals()
		if _, _, err := learn.Distill(ctx, m, signals, learn.ComputeStats(signals), learn.DistillOptions{Model: model}); err != nil {
			return nil, fmt.Errorf("sample learnings: %w", err)
		}
	}
	return order(append(out, m.sent()...)), nil
}

// order sorts samples by Kinds, keeping the order they were sent within a kind.
func order(ss []Sample) []Sample {
	var out []Sample
	for _, k := range Kinds() {
		for _, s := range ss {
			if s.Kind == k {
				out = append(out, s)
			}
		}
	}
	return out
}

// scripted answers like a model that does what council asks: it calls repository tools on its
// first two turns, then answers with a finding on the change's buggy line, a passing verdict,
// a fixed thread, a yes from the judge. It records every request with its kind.
type scripted struct {
	mu       sync.Mutex
	requests []Sample
}

func (m *scripted) sent() []Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Sample(nil), m.requests...)
}

func (m *scripted) Complete(_ context.Context, req provider.Request) (provider.Response, error) {
	kind := kindOf(req)
	m.mu.Lock()
	m.requests = append(m.requests, Sample{kind, req})
	id := len(m.requests)
	m.mu.Unlock()

	resp := provider.Response{Model: req.Model, StopReason: provider.StopToolUse, Usage: provider.Usage{Requests: 1, InputTokens: 1, OutputTokens: 1}}
	call := func(name string, input any) {
		data, _ := json.Marshal(input)
		resp.Content = append(resp.Content, provider.Block{Type: provider.ToolUse, ToolUseID: fmt.Sprintf("toolu_doctor%d_%d", id, len(resp.Content)), Name: name, Input: data})
	}
	switch {
	case req.MaxTokens == 1: // a warm-up
		resp.StopReason = provider.StopMaxTokens
		resp.Content = []provider.Block{{Type: provider.Text, Text: "ok"}}
	case req.RequireTool && len(req.Messages) < sampleMaxTurns*2-2:
		// As models do: a little whitespace before the calls, which goes back with the next turn.
		resp.Content = append(resp.Content, provider.Block{Type: provider.Text, Text: "\n\n"})
		call(tools.ReadFile, map[string]any{"path": sampleFile, "start_line": 1, "end_line": 30})
		call(tools.Grep, map[string]any{"pattern": "Reserve", "path_glob": "*.go"})
	case req.ToolName != "" || req.RequireTool:
		name := req.ToolName
		if name == "" {
			name = answerTool(req)
		}
		call(name, answerFor(name, req))
	case kind == KindJudgeSame: // the judge answers in text
		resp.StopReason = provider.StopEndTurn
		resp.Content = []provider.Block{{Type: provider.Text, Text: `{"reason": "the same race", "same": true}`}}
	default:
		resp.StopReason = provider.StopEndTurn
		resp.Content = []provider.Block{{Type: provider.Text, Text: `{"reason": "it quotes the racy line", "verdict": "plausible"}`}}
	}
	return resp, nil
}

// commentIndex finds the comments a persona request shows.
var commentIndex = regexp.MustCompile(`<comment index="(\d+)">`)

// answerFor is a valid input of each answer tool, for req.
func answerFor(tool string, req provider.Request) any {
	switch tool {
	case review.SubmitTool:
		return map[string]any{"summary": "One race.", "findings": []any{map[string]any{
			"path": sampleFile, "line": 21, "quote": sampleBuggyLine, "severity": "high", "category": "concurrency",
			"title": "Reserve can oversell", "body": "The check and the update are not atomic: hold the lock across both.",
			"suggestion": sampleFixedLine, "confidence": 0.9,
		}}}
	case validate.VerdictTool:
		return map[string]any{"verdicts": []any{map[string]any{
			"issue": 1, "reason": "stock.go:21 reads and writes without the lock.", "decision": validate.Keep, "severity": "high", "attention": true,
		}}}
	case overview.Tool:
		return map[string]any{"summary": "Adds Reserve.", "changes": []string{"`Reserve` takes stock"}, "files": []any{map[string]any{"path": sampleFile, "description": "adds Reserve"}}}
	case validate.FixTool:
		return map[string]any{"fixed": true, "reason": "the lock is held now"}
	case validate.AnswerTool:
		return map[string]any{"can_answer": true, "answer": "Put holds the lock; Reserve does not."}
	case persona.Tool:
		shown := []int{}
		for _, m := range commentIndex.FindAllStringSubmatch(req.Messages[0].Content[0].Text, -1) {
			i, _ := strconv.Atoi(m[1])
			shown = append(shown, i)
		}
		return map[string]any{
			"themes":         []any{map[string]any{"name": "locking", "count": len(shown), "example": shown[0]}},
			"voice":          []string{"nit:"},
			"pushes_back_on": []string{"state shared without a lock"},
			"lets_pass":      []string{},
			"exemplars":      shown,
		}
	case learn.Tool:
		return map[string]any{"learnings": []any{}}
	case learn.AskTool:
		return map[string]any{"asks": []any{}}
	}
	return map[string]any{}
}

// answerTool is the tool a request is answered with: the validator's checks and the
// reviewers' requests offer the same tools, so the check's own part says which it is;
// otherwise the last tool offered.
func answerTool(req provider.Request) string {
	switch {
	case validate.IsCheck(req):
		return validate.VerdictTool
	case slices.ContainsFunc(req.Tools, func(t provider.Tool) bool { return t.Name == review.SubmitTool }):
		return review.SubmitTool
	case len(req.Tools) > 0:
		return req.Tools[len(req.Tools)-1].Name
	}
	return ""
}

// kindOf names a request by its shape and answer tool.
func kindOf(req provider.Request) string {
	answer := ""
	if a := answerTool(req); a == review.SubmitTool || a == validate.VerdictTool {
		answer = a
	}
	if len(req.Tools) == 1 {
		switch req.Tools[0].Name {
		case validate.FixTool:
			return KindThreadCheck
		case validate.AnswerTool:
			return KindQuestion
		case overview.Tool:
			return KindOverview
		case learn.Tool:
			return KindLearnings
		case learn.AskTool:
			return KindAsks
		case persona.Tool:
			if strings.Contains(req.Messages[0].Content[0].Text, "Combine the batches' notes") {
				return KindPersonaMerge
			}
			return KindPersonaBatch
		}
	}
	withTools := slices.ContainsFunc(req.Tools, func(t provider.Tool) bool { return t.Name != review.SubmitTool && t.Name != validate.VerdictTool })
	switch {
	case answer == review.SubmitTool && req.MaxTokens == 1:
		return KindReviewWarmup
	case answer == review.SubmitTool && !withTools:
		return KindReviewNoTools
	case answer == validate.VerdictTool && !withTools:
		return KindValidatorNoTools
	case answer == review.SubmitTool && req.ToolName != "":
		return KindReviewFinal
	case answer == validate.VerdictTool && req.ToolName != "":
		return KindValidatorFinal
	case answer == review.SubmitTool && len(req.Messages) == 1:
		return KindReviewFirst
	case answer == validate.VerdictTool && len(req.Messages) == 1:
		return KindValidatorFirst
	case answer == review.SubmitTool:
		return KindReviewTools
	case answer == validate.VerdictTool:
		return KindValidatorTools
	case strings.Contains(req.Messages[0].Content[0].Text, "<human_comment>"):
		return KindJudgeSame
	default:
		return KindJudgePlausible
	}
}
