package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/openai"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

const model = "gpt-4.1"

type bundle struct {
	fake   *openaitest.Server
	client *openai.Client
}

func setup(t *testing.T, opts ...openaitest.Option) bundle {
	t.Helper()
	fake := openaitest.New(t, opts...)
	client := openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
	return bundle{fake: fake, client: client}
}

func userText(s string) provider.Message {
	return provider.Message{Role: provider.User, Content: []provider.Block{{Type: provider.Text, Text: s}}}
}

func textRequest(s string) provider.Request {
	return provider.Request{Model: model, MaxTokens: 100, Messages: []provider.Message{userText(s)}}
}

var reportTool = provider.Tool{
	Name:        "report",
	Description: "Report the findings.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"findings":{"type":"array","items":{"type":"string"}}},"required":["findings"],"additionalProperties":false}`),
}

func TestCompleteText(t *testing.T) {
	t.Parallel()
	b := setup(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		return openaitest.TextReply("looks good")
	}))

	got, err := b.client.Complete(context.Background(), textRequest("review this"))
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		Model:      model,
		Content:    []provider.Block{{Type: provider.Text, Text: "looks good"}},
		StopReason: provider.StopEndTurn,
		// "user\x00review this\x00" is 17 characters: 5 tokens.
		Usage: provider.Usage{Requests: 1, InputTokens: 5, OutputTokens: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestCompleteToolCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		arguments string
		want      json.RawMessage
	}{
		{"valid JSON", `{"findings":["nil deref"]}`, json.RawMessage(`{"findings":["nil deref"]}`)},
		{"invalid JSON kept as a string", `{"findings": [`, json.RawMessage(`"{\"findings\": ["`)},
		{"empty arguments", ``, json.RawMessage(`{}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, openaitest.WithRespond(func(req openaitest.Request) openaitest.Reply {
				return openaitest.Reply{ToolCall: &openaitest.ReplyToolCall{ID: "call_1", Name: req.ForcedFunction(), Arguments: tt.arguments}}
			}))
			req := textRequest("review")
			req.Tools, req.ToolName = []provider.Tool{reportTool}, "report"

			got, err := b.client.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want := []provider.Block{{Type: provider.ToolUse, ToolUseID: "call_1", Name: "report", Input: tt.want}}
			if diff := cmp.Diff(want, got.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			// A forced call ends with finish_reason "stop" on OpenAI.
			if got.StopReason != provider.StopToolUse {
				t.Errorf("stop reason = %q, want %q", got.StopReason, provider.StopToolUse)
			}
		})
	}
}

func TestFinishReasonLength(t *testing.T) {
	t.Parallel()
	b := setup(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Text: "cut", FinishReason: "length"}
	}))
	got, err := b.client.Complete(context.Background(), textRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if got.StopReason != provider.StopLength || !got.Truncated() {
		t.Errorf("stop reason = %q, truncated = %v; want length, true", got.StopReason, got.Truncated())
	}
}

// TestRequestMapping checks the wire request: one system message, a tool call and its result
// as a "tool" message, the function tool and its parameters, the forced tool choice, and the
// token limit field.
func TestRequestMapping(t *testing.T) {
	t.Parallel()
	b := setup(t)

	_, err := b.client.Complete(context.Background(), provider.Request{
		Model:     model,
		MaxTokens: 512,
		System: []provider.Block{
			{Type: provider.Text, Text: "You are a reviewer."},
			{Type: provider.Text, Text: "Shared diff.", Cache: true},
		},
		Messages: []provider.Message{
			userText("Review."),
			{Role: provider.Assistant, Content: []provider.Block{
				{Type: provider.Text, Text: "Checking."},
				{Type: provider.ToolUse, ToolUseID: "call_9", Name: "report", Input: json.RawMessage(`{"findings":[]}`)},
			}},
			{Role: provider.User, Content: []provider.Block{
				{Type: provider.ToolResult, ToolUseID: "call_9", Text: "bad input", IsError: true},
				{Type: provider.Text, Text: "Try again."},
			}},
		},
		Tools:    []provider.Tool{reportTool},
		ToolName: "report",
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := b.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("fake saw %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	type msg struct {
		Role, Text, ToolCallID string
		Calls                  []string
	}
	var gotMsgs []msg
	for _, m := range got.Messages {
		gm := msg{Role: m.Role, Text: m.Text(), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			gm.Calls = append(gm.Calls, c.Type+" "+c.ID+" "+c.Function.Name+" "+c.Function.Arguments)
		}
		gotMsgs = append(gotMsgs, gm)
	}
	wantMsgs := []msg{
		{Role: "system", Text: "You are a reviewer.\n\nShared diff."},
		{Role: "user", Text: "Review."},
		{Role: "assistant", Text: "Checking.", Calls: []string{`function call_9 report {"findings":[]}`}},
		{Role: "tool", Text: "error: bad input", ToolCallID: "call_9"},
		{Role: "user", Text: "Try again."},
	}
	if diff := cmp.Diff(wantMsgs, gotMsgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got.ForcedFunction() != "report" {
		t.Errorf("tool_choice = %s, want the function report", got.ToolChoice)
	}
	if len(got.Tools) != 1 || got.Tools[0].Type != "function" || got.Tools[0].Function.Name != "report" ||
		got.Tools[0].Function.Description != reportTool.Description {
		t.Fatalf("tools = %+v", got.Tools)
	}
	var wantSchema, gotSchema any
	_ = json.Unmarshal(reportTool.InputSchema, &wantSchema)
	if err := json.Unmarshal(got.Tools[0].Function.Parameters, &gotSchema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantSchema, gotSchema); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
	if got.MaxTokens == nil || *got.MaxTokens != 512 || got.MaxCompletionTokens != nil {
		t.Errorf("max_tokens = %v, max_completion_tokens = %v; want 512 and none for a compatible server", got.MaxTokens, got.MaxCompletionTokens)
	}
	if auth := got.Header.Get("Authorization"); auth != "Bearer "+b.fake.APIKey {
		t.Errorf("Authorization = %q", auth)
	}
}

// TestReasoningModelTokenLimit: OpenAI's reasoning models refuse max_tokens; the client sends
// max_completion_tokens for them, which the fake's rule would otherwise reject.
func TestReasoningModelTokenLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, openaitest.WithModel("openai/o3", 0)) // a gateway's name for o3
	for _, m := range []string{"o4-mini", "gpt-5-mini", "openai/o3"} {
		req := textRequest("hi")
		req.Model = m
		if _, err := b.client.Complete(context.Background(), req); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	for _, r := range b.fake.Requests() {
		if r.MaxTokens != nil || r.MaxCompletionTokens == nil || *r.MaxCompletionTokens != 100 {
			t.Errorf("%s: max_tokens = %v, max_completion_tokens = %v", r.Model, r.MaxTokens, r.MaxCompletionTokens)
		}
	}
}

func TestNoAuthServer(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, openaitest.WithNoAuth())
	client := openai.New(openai.Options{BaseURL: fake.URL, Name: "ollama"})

	if _, err := client.Complete(context.Background(), textRequest("hi")); err != nil {
		t.Fatal(err)
	}
	if auth := fake.Requests()[0].Header.Get("Authorization"); auth != "" {
		t.Errorf("Authorization = %q, want none without a key", auth)
	}
}

// TestCachedTokens sends two prompts sharing a long prefix: the second reports the shared part
// as cached, in OpenAI's 128-token steps, and the neutral usage counts it as a cache read.
func TestCachedTokens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	shared := strings.Repeat("diff line\n", 500) // 5000 chars, 1250 tokens
	req := func(lens string) provider.Request {
		return provider.Request{
			Model: model, MaxTokens: 100,
			System:   []provider.Block{{Type: provider.Text, Text: shared, Cache: true}},
			Messages: []provider.Message{userText(lens)},
		}
	}
	// The prompt is "system\x00" + shared + "\x00user\x00" + lens + "\x00".
	tests := []struct {
		lens string
		want provider.Usage
	}{
		{"lens: correctness", provider.Usage{Requests: 1, InputTokens: 1258, OutputTokens: 1}},
		// The prompts share 5019 characters ("...user\x00lens: "), 1254 whole tokens:
		// 1024 + 1*128 are cached.
		{"lens: security", provider.Usage{Requests: 1, InputTokens: 1257 - 1152, CacheReadTokens: 1152, OutputTokens: 1}},
	}
	for _, tt := range tests {
		got, err := b.client.Complete(context.Background(), req(tt.lens))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got.Usage); diff != "" {
			t.Errorf("%s: usage (-want +got):\n%s", tt.lens, diff)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		reply     openaitest.Reply
		check     func(t *testing.T, err error)
		retryable bool
	}{
		{
			name:  "429 with retry-after",
			reply: openaitest.ErrorReply(429, "7"),
			check: func(t *testing.T, err error) {
				var e *provider.RateLimitError
				if !errors.As(err, &e) || e.RetryAfter != 7*time.Second {
					t.Errorf("err = %v, want RateLimitError retry after 7s", err)
				}
			},
			retryable: true,
		},
		{
			name:  "429 with x-ratelimit headers only",
			reply: openaitest.ErrorReply(429, ""),
			check: func(t *testing.T, err error) {
				var e *provider.RateLimitError
				if !errors.As(err, &e) || e.RetryAfter != 2400*time.Millisecond {
					t.Errorf("err = %v, want RateLimitError retry after 2.4s (x-ratelimit-reset-tokens)", err)
				}
			},
			retryable: true,
		},
		{
			name:  "429 insufficient quota",
			reply: openaitest.Reply{Status: 429, ErrorType: "insufficient_quota", ErrorCode: "insufficient_quota", ErrorMsg: "You exceeded your current quota."},
			check: func(t *testing.T, err error) {
				var e *provider.QuotaError
				if !errors.As(err, &e) {
					t.Errorf("err = %v, want QuotaError", err)
				}
			},
		},
		{
			name:  "503 overloaded",
			reply: openaitest.ErrorReply(503, "1"),
			check: func(t *testing.T, err error) {
				var e *provider.OverloadedError
				if !errors.As(err, &e) || e.RetryAfter != time.Second {
					t.Errorf("err = %v, want OverloadedError retry after 1s", err)
				}
			},
			retryable: true,
		},
		{
			name:  "500 server error",
			reply: openaitest.ErrorReply(500, ""),
			check: func(t *testing.T, err error) {
				var e *provider.ServerError
				if !errors.As(err, &e) || e.Status != 500 {
					t.Errorf("err = %v, want ServerError 500", err)
				}
			},
			retryable: true,
		},
		{
			name:  "404 in Ollama's shape",
			reply: openaitest.Reply{Status: 404, Body: `{"error":"model \"llama9\" not found, try pulling it first"}`},
			check: func(t *testing.T, err error) {
				var e *provider.BadRequestError
				if !errors.As(err, &e) || e.Status != 404 || !strings.Contains(e.Msg, "llama9") {
					t.Errorf("err = %v, want BadRequestError 404 naming the model", err)
				}
			},
		},
		{
			name:  "400 in vLLM's shape",
			reply: openaitest.Reply{Status: 400, Body: `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`},
			check: func(t *testing.T, err error) {
				var e *provider.BadRequestError
				if !errors.As(err, &e) || e.Status != 400 || e.Msg != "max_tokens is too large" {
					t.Errorf("err = %v, want BadRequestError 400 with vLLM's message", err)
				}
			},
		},
		{
			name:  "502 plain text from a proxy",
			reply: openaitest.Reply{Status: 502, Body: "Bad Gateway"},
			check: func(t *testing.T, err error) {
				var e *provider.ServerError
				if !errors.As(err, &e) || e.Status != 502 || e.Msg != "Bad Gateway" {
					t.Errorf("err = %v, want ServerError 502 Bad Gateway", err)
				}
			},
			retryable: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply { return tt.reply }))
			_, err := b.client.Complete(context.Background(), textRequest("hi"))
			if err == nil {
				t.Fatal("no error")
			}
			tt.check(t, err)
			if _, ok := provider.Retryable(err); ok != tt.retryable {
				t.Errorf("Retryable = %v, want %v", ok, tt.retryable)
			}
			if !strings.HasPrefix(err.Error(), "openai: ") {
				t.Errorf("message %q does not name the provider", err)
			}
		})
	}
}

func TestAuthErrorHidesKey(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t)
	const wrongKey = "sk-proj-wrongwrongwrongwrong1234"
	client := openai.New(openai.Options{APIKey: wrongKey, BaseURL: fake.URL})

	_, err := client.Complete(context.Background(), textRequest("hi"))
	var authErr *provider.AuthError
	if !errors.As(err, &authErr) || authErr.Status != http.StatusUnauthorized {
		t.Fatalf("err = %v, want AuthError 401", err)
	}
	msg := err.Error()
	// The service echoes the key masked (sk-p*****1234): not even that may show.
	for _, leak := range []string{wrongKey, "wrongwrong", "1234", "sk-p"} {
		if strings.Contains(msg, leak) {
			t.Errorf("message leaks %q: %q", leak, msg)
		}
	}
	for _, want := range []string{"openai", "401", "OPENAI_API_KEY"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestIgnoresEnvironment checks that the SDK reads neither a key nor a base URL from the
// environment behind the Options' back. Not parallel: it sets environment variables.
func TestIgnoresEnvironment(t *testing.T) {
	fake := openaitest.New(t)
	t.Setenv("OPENAI_API_KEY", fake.APIKey)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_ORG_ID", "org-from-env")
	client := openai.New(openai.Options{BaseURL: fake.URL})

	_, err := client.Complete(context.Background(), textRequest("hi"))
	var authErr *provider.AuthError
	if !errors.As(err, &authErr) {
		t.Fatalf("err = %v, want AuthError: an empty APIKey must not pick up OPENAI_API_KEY", err)
	}
	if fake.Calls() != 1 {
		t.Fatalf("fake calls = %d, want 1 (OPENAI_BASE_URL must be ignored)", fake.Calls())
	}
	if org := fake.Requests()[0].Header.Get("OpenAI-Organization"); org != "" {
		t.Errorf("OpenAI-Organization = %q, want none", org)
	}
}

func TestRetryRecoversAfterRateLimits(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	b := setup(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		if n.Add(1) <= 2 {
			return openaitest.ErrorReply(429, "2")
		}
		return openaitest.TextReply("done")
	}))
	var slept []time.Duration
	client := provider.WithRetry(b.client, provider.RetryOptions{
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
		Rand:  func() float64 { return 0 },
	})

	got, err := client.Complete(context.Background(), textRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "done" || got.Usage.Requests != 1 {
		t.Errorf("text = %q, requests = %d; want done, 1", got.Text(), got.Usage.Requests)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second, 2 * time.Second}, slept); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if b.fake.Calls() != 3 {
		t.Errorf("fake calls = %d, want 3", b.fake.Calls())
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	client := provider.WithRetry(b.client, provider.RetryOptions{
		Sleep: func(context.Context, time.Duration) error { t.Error("slept before a retry"); return nil },
	})

	// A tool result that answers no call: the service answers 400.
	req := textRequest("hi")
	req.Messages = append(req.Messages, provider.Message{Role: provider.User, Content: []provider.Block{
		{Type: provider.ToolResult, ToolUseID: "call_nowhere", Text: "x"},
	}})
	_, err := client.Complete(context.Background(), req)
	var bad *provider.BadRequestError
	if !errors.As(err, &bad) || bad.Status != 400 {
		t.Fatalf("err = %v, want BadRequestError 400", err)
	}
	if b.fake.Calls() != 1 {
		t.Errorf("fake calls = %d, want 1", b.fake.Calls())
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := setup(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		cancel() // Ctrl-C while the request is in flight
		return openaitest.Reply{Text: "late", Delay: time.Minute}
	}))
	client := provider.WithRetry(b.client, provider.RetryOptions{
		Sleep: func(context.Context, time.Duration) error { t.Error("slept before a retry"); return nil },
	})

	_, err := client.Complete(ctx, textRequest("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if b.fake.Calls() != 1 {
		t.Errorf("fake calls = %d, want 1", b.fake.Calls())
	}
}

func TestAttemptTimeoutIsRetryable(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Text: "late", Delay: time.Minute}
	}))
	client := openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL, Timeout: 50 * time.Millisecond})

	_, err := client.Complete(context.Background(), textRequest("hi"))
	var te *provider.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want TimeoutError", err)
	}
	if _, ok := provider.Retryable(err); !ok {
		t.Error("a timed-out attempt is not retryable")
	}
}

func TestRecordReplay(t *testing.T) {
	t.Parallel()
	b := setup(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		return openaitest.TextReply("recorded answer")
	}))
	dir := t.TempDir()
	req := textRequest("hi")

	recorded, err := provider.Record(b.client, openai.Name, dir).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	replay := provider.Replay(openai.Name, dir)
	replayed, err := replay.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed response (-recorded +replayed):\n%s", diff)
	}
	if b.fake.Calls() != 1 {
		t.Errorf("fake calls = %d, want 1: replay must not touch the network", b.fake.Calls())
	}
	_, err = replay.Complete(context.Background(), textRequest("something else"))
	var missing *provider.MissingExchangeError
	if !errors.As(err, &missing) {
		t.Fatalf("err = %v, want MissingExchangeError", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there any more: the connection is refused
	client := openai.New(openai.Options{APIKey: "k", BaseURL: "http://" + addr + "/v1"})

	_, err = client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
	})
	var te *provider.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want TransportError", err)
	}
	if _, ok := provider.Retryable(err); ok {
		t.Error("a refused connection is retried: a server that is not running should fail fast")
	}
}

// TestToolChoice checks how ToolName and RequireTool map onto tool_choice, and that the
// service's rule ("required" needs tools) comes back as a bad request.
func TestToolChoice(t *testing.T) {
	t.Parallel()
	greetTool := provider.Tool{Name: "greet", Description: "Say hello.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	tests := []struct {
		name       string
		tools      []provider.Tool
		toolName   string
		require    bool
		wantChoice string // tool_choice as sent, compact JSON; "" for none
		wantCall   string // the tool the fake's default answer calls; "" for text
		wantStop   string
		wantErr    string
	}{
		{name: "auto", tools: []provider.Tool{greetTool, reportTool}, wantStop: provider.StopEndTurn},
		{name: "required: the first tool is called", tools: []provider.Tool{greetTool, reportTool}, require: true,
			wantChoice: `"required"`, wantCall: "greet", wantStop: provider.StopToolUse},
		{name: "a named tool wins over required", tools: []provider.Tool{greetTool, reportTool}, toolName: "report", require: true,
			wantChoice: `{"function":{"name":"report"},"type":"function"}`, wantCall: "report", wantStop: provider.StopToolUse},
		{name: "required without tools", require: true, wantErr: "only allowed when 'tools' are specified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			req := textRequest("hi")
			req.Tools, req.ToolName, req.RequireTool = tt.tools, tt.toolName, tt.require
			got, err := b.client.Complete(context.Background(), req)
			if tt.wantErr != "" {
				var bad *provider.BadRequestError
				if !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a BadRequestError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var choice string
			if raw := b.fake.Requests()[0].ToolChoice; len(raw) > 0 {
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatal(err)
				}
				out, _ := json.Marshal(v)
				choice = string(out)
			}
			if choice != tt.wantChoice {
				t.Errorf("tool_choice = %s, want %s", choice, tt.wantChoice)
			}
			var called string
			for _, blk := range got.Content {
				if blk.Type == provider.ToolUse {
					called = blk.Name
				}
			}
			if called != tt.wantCall || got.StopReason != tt.wantStop {
				t.Errorf("called %q, stop %q; want %q, %q", called, got.StopReason, tt.wantCall, tt.wantStop)
			}
		})
	}
}

// toOpenAI sends what a client addresses to api.openai.com to the fake instead, so that the
// client behaves as it does on OpenAI's own endpoint.
type toOpenAI struct{ fake *url.URL }

func (t toOpenAI) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != "api.openai.com" {
		return nil, fmt.Errorf("request to %s, want api.openai.com", r.URL.Host)
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.fake.Scheme, t.fake.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}

// officialClient is a client for OpenAI's own endpoint (no BaseURL) on api whose requests
// reach fake.
func officialClient(t *testing.T, fake *openaitest.Server, api openai.API) *openai.Client {
	t.Helper()
	u, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	return openai.New(openai.Options{APIKey: fake.APIKey, HTTPClient: &http.Client{Transport: toOpenAI{fake: u}}, API: api})
}

// TestGPT6Tools: on OpenAI's endpoint told to use Chat Completions, a model that calls tools
// there only with reasoning_effort "none" gets it with its tools, and one that calls tools only
// through the Responses API is refused before anything is sent, saying how to reach it; a
// compatible server serving a model by the same name keeps today's requests. The fake holds
// each request to the service's rules.
func TestGPT6Tools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		model      string
		tools      bool
		compatible bool   // a compatible server that serves the model without OpenAI's rules
		wantEffort string // reasoning_effort as sent
		wantErr    string // a BadRequestError before sending, containing this
	}{
		{name: "tools on gpt-6-luna", model: "gpt-6-luna", tools: true, wantEffort: "none"},
		{name: "tools on a gpt-6-sol snapshot", model: "gpt-6-sol-2026-09-22", tools: true, wantEffort: "none"},
		{name: "no tools on gpt-6-luna", model: "gpt-6-luna"},
		{name: "tools on gpt-6.2-sol", model: "gpt-6.2-sol", tools: true, wantErr: "gpt-6.2-sol calls tools only through OpenAI's Responses API"},
		{name: "tools on gpt-6-astra", model: "gpt-6-astra", tools: true, wantErr: "Responses API"},
		{name: "no tools on gpt-6.2-sol", model: "gpt-6.2-sol"},
		{name: "tools on gpt-6-luna of a compatible server", model: "gpt-6-luna", tools: true, compatible: true},
		{name: "tools on gpt-6.2-sol of a compatible server", model: "gpt-6.2-sol", tools: true, compatible: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var fake *openaitest.Server
			var client *openai.Client
			if tt.compatible {
				fake = openaitest.New(t, openaitest.WithModel(tt.model, 0))
				client = openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
			} else {
				fake = openaitest.New(t)
				client = officialClient(t, fake, openai.APIChat)
			}
			req := textRequest("review")
			req.Model = tt.model
			if tt.tools {
				req.Tools, req.ToolName = []provider.Tool{reportTool}, "report"
			}
			_, err := client.Complete(context.Background(), req)
			if tt.wantErr != "" {
				var bad *provider.BadRequestError
				if !errors.As(err, &bad) || bad.Status != 0 || !strings.Contains(bad.Msg, tt.wantErr) || !strings.Contains(bad.Hint, "COUNCIL_OPENAI_API") {
					t.Fatalf("err = %v, want a BadRequestError not sent, containing %q, with a hint naming COUNCIL_OPENAI_API", err, tt.wantErr)
				}
				if n := fake.Calls(); n != 0 {
					t.Errorf("the fake saw %d requests, want none", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the fake saw %d requests, want 1", len(reqs))
			}
			if got := reqs[0].ReasoningEffort; got != tt.wantEffort {
				t.Errorf("reasoning_effort = %q, want %q", got, tt.wantEffort)
			}
			if got := reqs[0].MaxCompletionTokens; !tt.compatible && (got == nil || *got != 100) {
				t.Errorf("max_completion_tokens = %v, want 100", got)
			}
		})
	}
}
