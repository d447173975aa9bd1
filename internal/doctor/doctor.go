// Package doctor checks that council can work with what it was given: the repository's
// config and reviewer documents, the model provider's credentials and model, the requests
// council sends, the prompt cache, and the GitHub credentials of a repository. Each check is
// one Line: ok, warn or fail, and a fail says what to do. It sends at most a handful of tiny
// requests, and none for the offline checks. It never prints: the command line does.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
	"github.com/council-dev/council/internal/tools"
)

// Status is a check's outcome.
type Status string

// The outcomes, as each line begins.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Line is one check's outcome.
type Line struct {
	Status Status
	Check  string // what was checked: "credentials", "model claude-sonnet-5-5"...
	Text   string
}

func (l Line) String() string { return fmt.Sprintf("%-4s %s: %s", l.Status, l.Check, l.Text) }

// Failures counts the lines that failed.
func Failures(ls []Line) int {
	n := 0
	for _, l := range ls {
		if l.Status == Fail {
			n++
		}
	}
	return n
}

// ModelLooker is a client that can ask the provider about a model.
type ModelLooker interface {
	Model(ctx context.Context, id string) (provider.ModelInfo, error)
}

// Target is one provider and model to check.
type Target struct {
	Provider string // anthropic or openai
	Model    string
	KeyEnv   string // where the key comes from, for messages; "" when no key is sent
	// ReportKey asks for the line that says the key was accepted (once per provider: every
	// model's check would say the same).
	ReportKey bool
	// Official is true for the provider's own API (no base URL, or its own host): a 404 from
	// the models endpoint then means the model does not exist, not that a compatible server
	// lacks the endpoint.
	Official bool
	// MaxOutputTokens is budget.max_output_tokens, which every review request asks for.
	MaxOutputTokens int
	// KnownLimit is the model's output limit from council's table of the provider's models
	// (0: not known), used when the provider does not say.
	KnownLimit int
}

// Online checks target with a few requests to c: the key and the model (on the models
// endpoint, which is free), a call of council's answer tool (forced where the model allows
// it) with council's real tool schemas, and the prompt cache (two identical requests). usage
// sums what was spent.
func Online(ctx context.Context, c provider.Client, t Target) (lines []Line, usage provider.Usage) {
	modelCheck := "model " + t.Model
	limit := t.KnownLimit
	if ml, ok := c.(ModelLooker); ok {
		info, err := ml.Model(ctx, t.Model)
		switch {
		case err == nil:
			switch {
			case !t.ReportKey:
			case t.KeyEnv == "":
				lines = append(lines, Line{OK, "credentials", fmt.Sprintf("the %s server answered (no key sent)", t.Provider)})
			default:
				lines = append(lines, Line{OK, "credentials", fmt.Sprintf("%s accepted the key (%s)", t.Provider, t.KeyEnv)})
			}
			if info.MaxOutput > 0 {
				limit = info.MaxOutput
			}
			lines = append(lines, lifecycle(modelCheck, t.Model, info))
		case isAuth(err):
			return append(lines, Line{Fail, "credentials", fmt.Sprintf("%v", err)}), usage
		case isStatus(err, http.StatusNotFound) && t.Official:
			return append(lines, Line{Fail, modelCheck, fmt.Sprintf("%s has no model %q for this key (%v): name one the account can use with --model or model: in .council.yaml", t.Provider, t.Model, err)}), usage
		case isStatus(err, http.StatusNotFound):
			lines = append(lines, Line{Warn, modelCheck, fmt.Sprintf("the server could not say whether it serves %q (%v); the tool call below asks the model itself", t.Model, err)})
		default:
			return append(lines, Line{Fail, "credentials", fmt.Sprintf("could not ask %s about the model: %v", t.Provider, err)}), usage
		}
	}
	lines = append(lines, OutputLimit(t.Model, t.MaxOutputTokens, limit))

	req := toolCallRequest(t)
	resp, err := c.Complete(ctx, req)
	if err == nil {
		usage = usage.Add(resp.Usage)
	}
	switch {
	case err != nil && isAuth(err):
		return append(lines, Line{Fail, "credentials", err.Error()}), usage
	case err != nil && isStatus(err, http.StatusNotFound) && !hinted(err):
		return append(lines, Line{Fail, modelCheck, fmt.Sprintf("a request to %q was answered 404 (%v): name a model the server serves with --model or model: in .council.yaml", t.Model, err)}), usage
	case err != nil:
		return append(lines, Line{Fail, "tool call", fmt.Sprintf("%s refused council's review request: %v. Reviews on this model will fail the same way", t.Provider, err)}), usage
	default:
		if a, perr := review.ParseAnswer("doctor", resp); perr != nil {
			lines = append(lines, Line{Fail, "tool call", fmt.Sprintf("the model answered, but not with a usable %s call (%v): reviews on this model will fail; choose a model that calls tools when asked", review.SubmitTool, perr)})
		} else {
			lines = append(lines, Line{OK, "tool call", fmt.Sprintf("a %s call, asked for as every review asks, with council's %d tool schemas came back and parsed (%d findings)", review.SubmitTool, len(req.Tools), len(a.Findings))})
		}
	}

	line, u := cache(ctx, c, t)
	return append(lines, line), usage.Add(u)
}

// lifecycle says whether the model is current, deprecated or retired.
func lifecycle(check, model string, info provider.ModelInfo) Line {
	switch info.Lifecycle {
	case "retired":
		return Line{Fail, check, fmt.Sprintf("%s is retired and answers no request: choose a current model with --model or model: in .council.yaml", model)}
	case "deprecated":
		when := "soon"
		if !info.RetiresAt.IsZero() {
			when = "on " + info.RetiresAt.Format(time.DateOnly)
		}
		return Line{Warn, check, fmt.Sprintf("%s is deprecated and retires %s: move to a current model with --model or model: in .council.yaml", model, when)}
	}
	return Line{OK, check, "the provider serves it"}
}

// OutputLimit holds budget.max_output_tokens to the model's output limit (0: not known): a
// review that asks for more is refused.
func OutputLimit(model string, maxOutputTokens, limit int) Line {
	check := "model " + model
	if limit <= 0 {
		return Line{Warn, check, fmt.Sprintf("its output limit is not known to council, so budget.max_output_tokens (%d) could not be checked against it", maxOutputTokens)}
	}
	if maxOutputTokens > limit {
		return Line{Fail, check, fmt.Sprintf("budget.max_output_tokens is %d, above the model's output limit of %d: every review request would be refused; lower it in .council.yaml", maxOutputTokens, limit)}
	}
	return Line{OK, check, fmt.Sprintf("output limit %d tokens; budget.max_output_tokens %d fits", limit, maxOutputTokens)}
}

// toolCallRequest asks for a submit_review call carrying council's real tool schemas: the
// repository tools and the answer tool, as every reviewer sends them. It names the tool, which
// forces it where the model can be forced, and asks for it otherwise (the client's choice).
func toolCallRequest(t Target) provider.Request {
	ts := tools.New(nil, "", "", tools.Limits{}).Tools()
	ts = append(ts, provider.Tool{Name: review.SubmitTool, Description: "Submit your review of the change: the findings and a short summary.", InputSchema: review.SubmitToolSchema()})
	return provider.Request{
		Model:  t.Model,
		System: []provider.Block{{Type: provider.Text, Text: "You are checking that tool calls work. Do exactly what the user asks."}},
		Messages: []provider.Message{{Role: provider.User, Content: []provider.Block{{Type: provider.Text,
			Text: "Call " + review.SubmitTool + ` with {"findings": [], "summary": "ok"}.`}}}},
		Tools: ts, ToolName: review.SubmitTool, MaxTokens: toolCallMaxTokens,
	}
}

// toolCallMaxTokens is the answer's budget of the tool-call check: an empty review is a few
// dozen tokens, and a model that thinks first gets room for it on top
// (provider.WithThinkingRoom). Only what the model writes is billed.
const toolCallMaxTokens = 1024

// cachePrefixChars makes the cached prefix about 5,000 tokens at 4 characters a token, above
// every model's shortest cacheable prompt (4,096 tokens at most).
const cachePrefixChars = 20000

// cache sends the same request twice, its long prefix marked for caching: the second should
// read that prefix from the cache.
func cache(ctx context.Context, c provider.Client, t Target) (Line, provider.Usage) {
	var b strings.Builder
	for i := 1; b.Len() < cachePrefixChars; i++ {
		fmt.Fprintf(&b, "%5d | Line %d of a file council doctor sends twice to see whether the provider caches the prompt.\n", i, i)
	}
	req := provider.Request{
		Model:  t.Model,
		System: []provider.Block{{Type: provider.Text, Text: "council doctor: prompt cache check."}},
		Messages: []provider.Message{{Role: provider.User, Content: []provider.Block{
			{Type: provider.Text, Text: b.String(), Cache: true},
			{Type: provider.Text, Text: "This request only checks the prompt cache. Reply with nothing."},
		}}},
		MaxTokens: 1,
	}
	var usage provider.Usage
	var second provider.Response
	for range 2 {
		resp, err := c.Complete(ctx, req)
		if err != nil {
			return Line{Fail, "prompt cache", fmt.Sprintf("the cache check's request failed: %v", err)}, usage
		}
		usage = usage.Add(resp.Usage)
		second = resp
	}
	if n := second.Usage.CacheReadTokens; n > 0 {
		return Line{OK, "prompt cache", fmt.Sprintf("the second identical request read %d tokens from the cache", n)}, usage
	}
	what := "the provider reported no cache read on the second identical request"
	if !t.Official {
		what = "the server reported no cached tokens on the second identical request (many compatible servers do not cache, or do not report it)"
	}
	return Line{Warn, "prompt cache", what + ": every reviewer will pay for the whole prompt, and council's costs assume no discount"}, usage
}

func isAuth(err error) bool {
	var a *provider.AuthError
	return errors.As(err, &a)
}

func isStatus(err error, status int) bool {
	var b *provider.BadRequestError
	return errors.As(err, &b) && b.Status == status
}

// hinted reports whether the client knew what to do about a refusal (a server without the API
// asked for, a model past its shutdown): its error says it better than a guess from the status.
func hinted(err error) bool {
	var b *provider.BadRequestError
	return errors.As(err, &b) && b.Hint != ""
}

// RepoAccesser reports what GitHub credentials may do on a repository.
type RepoAccesser interface {
	RepoAccess(ctx context.Context, owner, repo string) (github.Access, error)
}

// GitHub checks the credentials on owner/repo: one line per permission council needs. A
// missing checks:write only warns: only --check-run needs it.
func GitHub(ctx context.Context, gh RepoAccesser, owner, repo string) []Line {
	name := owner + "/" + repo
	a, err := gh.RepoAccess(ctx, owner, repo)
	if err != nil {
		return []Line{{Fail, "github " + name, fmt.Sprintf("%v", err)}}
	}
	if !a.Visible {
		return []Line{{Fail, "github " + name, fmt.Sprintf("the credentials (%s) cannot see the repository: %s", a.Credential, a.Reason)}}
	}
	var lines []Line
	for _, p := range a.Permissions {
		check := fmt.Sprintf("github %s %s", name, p.Permission)
		switch {
		case p.Status == github.StatusGranted:
			lines = append(lines, Line{OK, check, "granted, to " + p.For})
		case p.Permission == github.ChecksWrite:
			lines = append(lines, Line{Warn, check, fmt.Sprintf("not granted (%s); only --check-run needs it: %s", p.Via, p.Fix)})
		case p.Permission == github.IssuesWrite && a.Of(github.PullRequestsWrite).Status == github.StatusGranted:
			lines = append(lines, Line{OK, check, "not needed: pull_requests:write allows the summary comment"})
		case p.Status == github.StatusUnknown:
			lines = append(lines, Line{Warn, check, fmt.Sprintf("GitHub's answer did not say (%s): %s", p.Via, p.Fix)})
		default:
			lines = append(lines, Line{Fail, check, fmt.Sprintf("missing, needed to %s: %s", p.For, p.Fix)})
		}
	}
	return lines
}
