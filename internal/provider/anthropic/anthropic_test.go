package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/anthropic"
	"github.com/council-dev/council/internal/provider/anthropic/anthropicapi"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// model is a served model that can be forced to call a tool and does not think by default.
const model = "claude-haiku-4-5"

type bundle struct {
	fake   *anthropictest.Server
	client *anthropic.Client
}

func setup(t *testing.T, opts ...anthropictest.Option) bundle {
	t.Helper()
	fake := anthropictest.New(t, opts...)
	client := anthropic.New(anthropic.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
	return bundle{fake: fake, client: client}
}

func userText(s string) provider.Message {
	return provider.Message{Role: provider.User, Content: []provider.Block{{Type: provider.Text, Text: s}}}
}

var reportTool = provider.Tool{
	Name:        "report",
	Description: "Report the findings.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"findings":{"type":"array","items":{"type":"string"}}},"required":["findings"],"additionalProperties":false}`),
}

func TestCompleteText(t *testing.T) {
	t.Parallel()
	b := setup(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.TextReply("looks good")
	}))

	got, err := b.client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 100, Messages: []provider.Message{userText("review this")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		Model:      model,
		Content:    []provider.Block{{Type: provider.Text, Text: "looks good"}},
		StopReason: provider.StopEndTurn,
		Usage:      provider.Usage{Requests: 1, InputTokens: 3, OutputTokens: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestCompleteToolUse(t *testing.T) {
	t.Parallel()
	b := setup(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		return anthropictest.Reply{ToolUse: &anthropictest.ToolUse{
			ID: "toolu_1", Name: req.ToolChoice.Name, Input: map[string]any{"findings": []string{"nil deref"}},
		}}
	}))

	got, err := b.client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 100, Messages: []provider.Message{userText("review")},
		Tools: []provider.Tool{reportTool}, ToolName: "report",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Block{{
		Type: provider.ToolUse, ToolUseID: "toolu_1", Name: "report",
		Input: json.RawMessage(`{"findings":["nil deref"]}`),
	}}
	if diff := cmp.Diff(want, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if got.StopReason != provider.StopToolUse {
		t.Errorf("stop reason = %q, want %q", got.StopReason, provider.StopToolUse)
	}
}

// TestRequestMapping checks the wire request: cache_control exactly on the blocks marked
// Cache, the tool and its schema, the forced tool choice, and a tool_use/tool_result turn
// that the fake's pairing rules accept.
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
			{Role: provider.User, Content: []provider.Block{
				{Type: provider.Text, Text: "Rules.", Cache: true},
				{Type: provider.Text, Text: "Lens: correctness."},
			}},
			{Role: provider.Assistant, Content: []provider.Block{
				{Type: provider.ToolUse, ToolUseID: "toolu_9", Name: "report", Input: json.RawMessage(`{"findings":[]}`)},
			}},
			{Role: provider.User, Content: []provider.Block{
				{Type: provider.ToolResult, ToolUseID: "toolu_9", Text: "recorded", IsError: true},
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
	if v := got.Header.Get("anthropic-version"); v == "" {
		t.Error("no anthropic-version header")
	}
	ephemeral := &anthropictest.CacheControl{Type: "ephemeral"}
	wantSystem := anthropictest.Blocks{
		{Type: "text", Text: "You are a reviewer."},
		{Type: "text", Text: "Shared diff.", CacheControl: ephemeral},
	}
	if diff := cmp.Diff(wantSystem, got.System); diff != "" {
		t.Errorf("system (-want +got):\n%s", diff)
	}
	wantMessages := []anthropictest.Message{
		{Role: "user", Content: anthropictest.Blocks{
			{Type: "text", Text: "Rules.", CacheControl: ephemeral},
			{Type: "text", Text: "Lens: correctness."},
		}},
		{Role: "assistant", Content: anthropictest.Blocks{
			{Type: "tool_use", ID: "toolu_9", Name: "report", Input: json.RawMessage(`{"findings":[]}`)},
		}},
		{Role: "user", Content: anthropictest.Blocks{
			{Type: "tool_result", ToolUseID: "toolu_9", IsError: true, Content: anthropictest.Blocks{{Type: "text", Text: "recorded"}}},
		}},
	}
	if diff := cmp.Diff(wantMessages, got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&anthropictest.ToolChoice{Type: "tool", Name: "report"}, got.ToolChoice); diff != "" {
		t.Errorf("tool_choice (-want +got):\n%s", diff)
	}
	if len(got.Tools) != 1 {
		t.Fatalf("got %d tools, want 1", len(got.Tools))
	}
	if got.Tools[0].Name != "report" || got.Tools[0].Description != reportTool.Description {
		t.Errorf("tool = %+v", got.Tools[0])
	}
	var wantSchema, gotSchema any
	_ = json.Unmarshal(reportTool.InputSchema, &wantSchema)
	if err := json.Unmarshal(got.Tools[0].InputSchema, &gotSchema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantSchema, gotSchema); diff != "" {
		t.Errorf("input_schema (-want +got):\n%s", diff)
	}
	if got.MaxTokens == nil || *got.MaxTokens != 512 {
		t.Errorf("max_tokens = %v, want 512", got.MaxTokens)
	}
}

// TestCacheUsage sends two requests sharing a long cached prefix: the first writes the cache,
// the second reads it.
func TestCacheUsage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	shared := strings.Repeat("diff line\n", 500) // 5000 chars: 1250 tokens, over the minimum
	req := func(lens string) provider.Request {
		return provider.Request{
			Model: model, MaxTokens: 100,
			System:   []provider.Block{{Type: provider.Text, Text: shared, Cache: true}},
			Messages: []provider.Message{userText(lens)},
		}
	}

	tests := []struct {
		lens string
		want provider.Usage
	}{
		{"lens: correctness", provider.Usage{Requests: 1, CacheWriteTokens: 1250, InputTokens: 5, OutputTokens: 1}},
		{"lens: security", provider.Usage{Requests: 1, CacheReadTokens: 1250, InputTokens: 4, OutputTokens: 1}},
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
		reply     anthropictest.Reply
		check     func(t *testing.T, err error)
		retryable bool
	}{
		{
			name:  "429 rate limit",
			reply: anthropictest.ErrorReply(429, "7"),
			check: func(t *testing.T, err error) {
				var e *provider.RateLimitError
				if !errors.As(err, &e) || e.RetryAfter != 7*time.Second {
					t.Errorf("err = %v, want RateLimitError retry after 7s", err)
				}
			},
			retryable: true,
		},
		{
			name:  "529 overloaded",
			reply: anthropictest.ErrorReply(529, "3"),
			check: func(t *testing.T, err error) {
				var e *provider.OverloadedError
				if !errors.As(err, &e) || e.RetryAfter != 3*time.Second || e.Status != 529 {
					t.Errorf("err = %v, want OverloadedError 529 retry after 3s", err)
				}
				if !strings.Contains(err.Error(), "overloaded_error") {
					t.Errorf("message %q lacks the API's error type", err)
				}
			},
			retryable: true,
		},
		{
			name:  "500 server error",
			reply: anthropictest.ErrorReply(500, ""),
			check: func(t *testing.T, err error) {
				var e *provider.ServerError
				if !errors.As(err, &e) || e.Status != 500 {
					t.Errorf("err = %v, want ServerError 500", err)
				}
			},
			retryable: true,
		},
		{
			name:  "502 page from a proxy",
			reply: anthropictest.Reply{Status: 502, Body: "<html><body>502 Bad Gateway</body></html>"},
			check: func(t *testing.T, err error) {
				var e *provider.ServerError
				if !errors.As(err, &e) || e.Status != 502 || !strings.Contains(e.Msg, "502 Bad Gateway") {
					t.Errorf("err = %v, want ServerError 502 with the page's text", err)
				}
			},
			retryable: true,
		},
		{
			name:  "404 unknown model",
			reply: anthropictest.Reply{Status: 404, ErrorMessage: "model: claude-nope"},
			check: func(t *testing.T, err error) {
				var e *provider.BadRequestError
				if !errors.As(err, &e) || e.Status != 404 || e.Type != "not_found_error" {
					t.Errorf("err = %v, want BadRequestError 404 not_found_error", err)
				}
			},
		},
		{
			name:  "403 permission",
			reply: anthropictest.ErrorReply(403, ""),
			check: func(t *testing.T, err error) {
				var e *provider.AuthError
				if !errors.As(err, &e) || e.Status != 403 {
					t.Errorf("err = %v, want AuthError 403", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply { return tt.reply }))
			_, err := b.client.Complete(context.Background(), provider.Request{
				Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
			})
			if err == nil {
				t.Fatal("no error")
			}
			tt.check(t, err)
			if _, ok := provider.Retryable(err); ok != tt.retryable {
				t.Errorf("Retryable = %v, want %v", ok, tt.retryable)
			}
			if !strings.HasPrefix(err.Error(), "anthropic: ") {
				t.Errorf("message %q does not name the provider", err)
			}
		})
	}
}

func TestAuthErrorHidesKey(t *testing.T) {
	t.Parallel()
	fake := anthropictest.New(t)
	const wrongKey = "sk-ant-api03-wrongwrongwrongwrong"
	client := anthropic.New(anthropic.Options{APIKey: wrongKey, BaseURL: fake.URL})

	_, err := client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
	})
	var authErr *provider.AuthError
	if !errors.As(err, &authErr) || authErr.Status != 401 {
		t.Fatalf("err = %v, want AuthError 401", err)
	}
	msg := err.Error()
	if strings.Contains(msg, wrongKey) || strings.Contains(msg, "wrongwrong") {
		t.Errorf("message leaks the key: %q", msg)
	}
	for _, want := range []string{"anthropic", "401", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestIgnoresEnvironment checks that the SDK reads neither a key nor a base URL from the
// environment behind the Options' back. Not parallel: it sets environment variables.
func TestIgnoresEnvironment(t *testing.T) {
	fake := anthropictest.New(t)
	t.Setenv("ANTHROPIC_API_KEY", fake.APIKey)
	t.Setenv("ANTHROPIC_AUTH_TOKEN", fake.APIKey)
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	client := anthropic.New(anthropic.Options{BaseURL: fake.URL})

	_, err := client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
	})
	var authErr *provider.AuthError
	if !errors.As(err, &authErr) {
		t.Fatalf("err = %v, want AuthError: an empty APIKey must not pick up ANTHROPIC_API_KEY", err)
	}
	if fake.Calls() != 1 {
		t.Errorf("fake calls = %d, want 1 (ANTHROPIC_BASE_URL must be ignored)", fake.Calls())
	}
}

func TestRetryRecoversAfterRateLimits(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	b := setup(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		if n.Add(1) <= 2 {
			return anthropictest.ErrorReply(429, "2")
		}
		return anthropictest.TextReply("done")
	}))
	var slept []time.Duration
	client := provider.WithRetry(b.client, provider.RetryOptions{
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
		Rand:  func() float64 { return 0 },
	})

	got, err := client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "done" {
		t.Errorf("text = %q, want done", got.Text())
	}
	if got.Usage.Requests != 1 {
		t.Errorf("usage counts %d requests, want 1 (failed attempts are not counted)", got.Usage.Requests)
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

	// Forcing a tool that is not defined: the service answers 400.
	_, err := client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")}, Tools: []provider.Tool{reportTool}, ToolName: "missing",
	})
	var bad *provider.BadRequestError
	if !errors.As(err, &bad) || bad.Status != 400 || bad.Type != "invalid_request_error" {
		t.Fatalf("err = %v, want BadRequestError 400 invalid_request_error", err)
	}
	if !strings.Contains(err.Error(), "missing") {
		t.Errorf("message %q does not say what was wrong", err)
	}
	if b.fake.Calls() != 1 {
		t.Errorf("fake calls = %d, want 1", b.fake.Calls())
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := setup(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		cancel() // Ctrl-C while the request is in flight
		return anthropictest.Reply{Text: "late", Delay: time.Minute}
	}))
	client := provider.WithRetry(b.client, provider.RetryOptions{
		Sleep: func(context.Context, time.Duration) error { t.Error("slept before a retry"); return nil },
	})

	start := time.Now()
	_, err := client.Complete(ctx, provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Error("did not return promptly on cancel")
	}
	if b.fake.Calls() != 1 {
		t.Errorf("fake calls = %d, want 1", b.fake.Calls())
	}
}

func TestAttemptTimeoutIsRetryable(t *testing.T) {
	t.Parallel()
	fake := anthropictest.New(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.Reply{Text: "late", Delay: time.Minute}
	}))
	client := anthropic.New(anthropic.Options{APIKey: fake.APIKey, BaseURL: fake.URL, Timeout: 50 * time.Millisecond})

	_, err := client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
	})
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
	b := setup(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.TextReply("recorded answer")
	}))
	dir := t.TempDir()
	req := provider.Request{Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")}}

	recorded, err := provider.Record(b.client, anthropic.Name, dir).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	replay := provider.Replay(anthropic.Name, dir)
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

	other := req
	other.Messages = []provider.Message{userText("something else")}
	_, err = replay.Complete(context.Background(), other)
	var missing *provider.MissingExchangeError
	if !errors.As(err, &missing) || missing.Dir != dir || missing.Hash != provider.RequestHash(anthropic.Name, other) {
		t.Fatalf("err = %v, want MissingExchangeError for the new request's hash in %s", err, dir)
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
	client := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: "http://" + addr + ""})

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
// service's rule ("any" needs tools) comes back as a bad request.
func TestToolChoice(t *testing.T) {
	t.Parallel()
	greetTool := provider.Tool{Name: "greet", Description: "Say hello.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	tests := []struct {
		name       string
		tools      []provider.Tool
		toolName   string
		require    bool
		wantChoice *anthropictest.ToolChoice
		wantCall   string // the tool the fake's default answer calls; "" for text
		wantErr    string
	}{
		{name: "auto", tools: []provider.Tool{greetTool, reportTool}},
		{name: "required: the first tool is called", tools: []provider.Tool{greetTool, reportTool}, require: true,
			wantChoice: &anthropictest.ToolChoice{Type: "any"}, wantCall: "greet"},
		{name: "a named tool wins over required", tools: []provider.Tool{greetTool, reportTool}, toolName: "report", require: true,
			wantChoice: &anthropictest.ToolChoice{Type: "tool", Name: "report"}, wantCall: "report"},
		{name: "required without tools", require: true, wantErr: "may only be specified while providing tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			got, err := b.client.Complete(context.Background(), provider.Request{
				Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
				Tools: tt.tools, ToolName: tt.toolName, RequireTool: tt.require,
			})
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
			if diff := cmp.Diff(tt.wantChoice, b.fake.Requests()[0].ToolChoice); diff != "" {
				t.Errorf("tool_choice (-want +got):\n%s", diff)
			}
			var called string
			for _, blk := range got.Content {
				if blk.Type == provider.ToolUse {
					called = blk.Name
				}
			}
			if called != tt.wantCall {
				t.Errorf("called %q, want %q", called, tt.wantCall)
			}
		})
	}
}

// TestToolWithoutArguments: a tool whose schema has no properties (or no schema at all) still
// sends input_schema, which the API requires.
func TestToolWithoutArguments(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{``, `{"type":"object"}`} {
		b := setup(t)
		_, err := b.client.Complete(context.Background(), provider.Request{
			Model: model, MaxTokens: 10, Messages: []provider.Message{userText("hi")},
			Tools: []provider.Tool{{Name: "ping", InputSchema: json.RawMessage(schema)}},
		})
		if err != nil {
			t.Fatalf("schema %q: %v", schema, err)
		}
		var got map[string]any
		if err := json.Unmarshal(b.fake.Requests()[0].Tools[0].InputSchema, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]any{"type": "object", "properties": map[string]any{}}, got); diff != "" {
			t.Errorf("schema %q: input_schema (-want +got):\n%s", schema, diff)
		}
	}
}

// TestWhitespaceTextInAnEarlierTurn: models often write "\n\n" before their tool calls. Sent
// back with the next turn, a whitespace-only text block is refused by the API; the client
// leaves it out, and the conversation goes on.
func TestWhitespaceTextInAnEarlierTurn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 100, Tools: []provider.Tool{reportTool},
		Messages: []provider.Message{
			userText("review"),
			{Role: provider.Assistant, Content: []provider.Block{
				{Type: provider.Text, Text: "\n\n"},
				{Type: provider.ToolUse, ToolUseID: "toolu_1", Name: "report", Input: json.RawMessage(`{"findings":[]}`)},
			}},
			{Role: provider.User, Content: []provider.Block{{Type: provider.ToolResult, ToolUseID: "toolu_1", Text: "done"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sent := b.fake.Requests()[0].Messages[1].Content
	if len(sent) != 1 || sent[0].Type != "tool_use" {
		t.Errorf("assistant content sent = %+v, want the tool call alone", sent)
	}
}

// TestToolConversationOnAModelThatRefusesForcing runs two turns of a tool conversation on
// claude-sonnet-5-5, which refuses a forced tool_choice and thinks by default: no tool_choice
// is sent, the turn that must end in a call of report says so, and the first answer's thinking
// block goes back unchanged (the fake checks its signature).
func TestToolConversationOnAModelThatRefusesForcing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const sonnet = "claude-sonnet-5-5"
	greetTool := provider.Tool{Name: "greet", Description: "Say hello.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	tools := []provider.Tool{greetTool, reportTool}
	history := []provider.Message{userText("review")}

	first, err := b.client.Complete(context.Background(), provider.Request{
		Model: sonnet, MaxTokens: 100, Messages: history, Tools: tools, RequireTool: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Content) != 2 || first.Content[0].Type != provider.Thinking || first.Content[0].Signature == "" || first.Content[1].Type != provider.ToolUse {
		t.Fatalf("first answer = %+v, want a signed thinking block and a tool call", first.Content)
	}
	thinking, call := first.Content[0], first.Content[1]
	// The whitespace a model writes before its calls is still left out with thinking present.
	answer := []provider.Block{thinking, {Type: provider.Text, Text: "\n\n"}, call}
	history = append(history,
		provider.Message{Role: provider.Assistant, Content: answer},
		provider.Message{Role: provider.User, Content: []provider.Block{{Type: provider.ToolResult, ToolUseID: call.ToolUseID, Text: "hello", Cache: true}}},
	)
	second, err := b.client.Complete(context.Background(), provider.Request{
		Model: sonnet, MaxTokens: 100, Messages: history, Tools: tools, ToolName: "report",
	})
	if err != nil {
		t.Fatalf("second turn refused: %v", err)
	}
	if n := len(second.Content); n == 0 || second.Content[n-1].Type != provider.ToolUse || second.Content[n-1].Name != "report" {
		t.Errorf("second answer = %+v, want a call of report", second.Content)
	}

	reqs := b.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("fake saw %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.ToolChoice != nil {
			t.Errorf("request %d: tool_choice = %+v, want none (auto)", i+1, r.ToolChoice)
		}
	}
	ephemeral := &anthropictest.CacheControl{Type: "ephemeral"}
	want := []anthropictest.Message{
		{Role: "user", Content: anthropictest.Blocks{{Type: "text", Text: "review"}}},
		{Role: "assistant", Content: anthropictest.Blocks{
			{Type: "thinking", Thinking: thinking.Text, Signature: thinking.Signature},
			{Type: "tool_use", ID: call.ToolUseID, Name: call.Name, Input: json.RawMessage(`{}`)},
		}},
		{Role: "user", Content: anthropictest.Blocks{
			{Type: "tool_result", ToolUseID: call.ToolUseID, CacheControl: ephemeral, Content: anthropictest.Blocks{{Type: "text", Text: "hello"}}},
			{Type: "text", Text: "Answer now by calling the report tool."},
		}},
	}
	if diff := cmp.Diff(want, reqs[1].Messages); diff != "" {
		t.Errorf("second request's messages (-want +got):\n%s", diff)
	}
}

// TestToolChoiceByModel: tool_choice is left out only for the models that refuse forcing it.
// claude-haiku-5-5 thinks by default but takes a forced tool; a name council does not know
// (a gateway's) is forced as before.
func TestToolChoiceByModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model    string
		toolName string
		require  bool
		want     *anthropictest.ToolChoice
		reminder bool
	}{
		{model: "claude-haiku-5-5", toolName: "report", want: &anthropictest.ToolChoice{Type: "tool", Name: "report"}},
		{model: "claude-haiku-5-5", require: true, want: &anthropictest.ToolChoice{Type: "any"}},
		{model: "claude-opus-5-5", toolName: "report", reminder: true},
		{model: "claude-fable-5-2", require: true},
		{model: "gateway/claude-sonnet-5-5", toolName: "report", want: &anthropictest.ToolChoice{Type: "tool", Name: "report"}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			b := setup(t, anthropictest.WithModel("gateway/claude-sonnet-5-5", 0))
			got, err := b.client.Complete(context.Background(), provider.Request{
				Model: tt.model, MaxTokens: 100, Messages: []provider.Message{userText("review")},
				Tools: []provider.Tool{reportTool}, ToolName: tt.toolName, RequireTool: tt.require,
			})
			if err != nil {
				t.Fatal(err)
			}
			sent := b.fake.Requests()[0]
			if diff := cmp.Diff(tt.want, sent.ToolChoice); diff != "" {
				t.Errorf("tool_choice (-want +got):\n%s", diff)
			}
			last := sent.Messages[len(sent.Messages)-1].Content
			if hasReminder := last[len(last)-1].Text == "Answer now by calling the report tool."; hasReminder != tt.reminder {
				t.Errorf("reminder sent = %v, want %v (last user turn %+v)", hasReminder, tt.reminder, last)
			}
			if n := len(got.Content); n == 0 || got.Content[n-1].Name != "report" {
				t.Errorf("answer = %+v, want a call of report", got.Content)
			}
		})
	}
}

// TestRetiredModel: the service answers a retired model as an unknown one (404); the error says
// it is retired and what to do, on a request and on the models endpoint alike.
func TestRetiredModel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.client.Complete(context.Background(), provider.Request{
		Model: "claude-sonnet-4-5-20250929", MaxTokens: 100, Messages: []provider.Message{userText("review this")},
	})
	var bad *provider.BadRequestError
	if !errors.As(err, &bad) || bad.Status != http.StatusNotFound || !strings.Contains(err.Error(), "Anthropic has retired claude-sonnet-4-5-20250929: name a current model") {
		t.Errorf("complete: %v", err)
	}
	if _, err := b.client.Model(context.Background(), "claude-sonnet-4-5"); err == nil || !strings.Contains(err.Error(), "Anthropic has retired claude-sonnet-4-5") {
		t.Errorf("model: %v", err)
	}
	// A model it never served keeps the general hint.
	if _, err := b.client.Complete(context.Background(), provider.Request{Model: "claude-nope-1", MaxTokens: 100, Messages: []provider.Message{userText("x")}}); err == nil || !strings.Contains(err.Error(), "check the model name") {
		t.Errorf("unknown model: %v", err)
	}
}

// TestThinkingRoom: a model that thinks by default gets room for its thinking on top of the
// answer's budget, within its output limit; the others get the budget as it is. The fake's
// table and provider's rule agree on which models think.
func TestThinkingRoom(t *testing.T) {
	t.Parallel()
	for name, m := range anthropicapi.KnownModels() {
		if m.Thinks != provider.ThinksByDefault(name) {
			t.Errorf("%s: the fake's table says thinks=%v, provider.ThinksByDefault %v", name, m.Thinks, provider.ThinksByDefault(name))
		}
	}
	b := setup(t)
	for _, tt := range []struct {
		model     string
		maxTokens int
		want      int
	}{
		{"claude-sonnet-5-5", 1024, 3072},
		{"claude-sonnet-5-5", 120000, 128000},
		{model, 1024, 1024},
	} {
		if _, err := b.client.Complete(context.Background(), provider.Request{Model: tt.model, MaxTokens: tt.maxTokens, Messages: []provider.Message{userText("hi")}}); err != nil {
			t.Fatal(err)
		}
		reqs := b.fake.Requests()
		if got := reqs[len(reqs)-1].MaxTokens; got == nil || *got != tt.want {
			t.Errorf("%s with max_tokens %d: sent %v, want %d", tt.model, tt.maxTokens, got, tt.want)
		}
	}
}
