package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/openai"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

const responsesModel = "gpt-6.2-sol"

// responsesSetup is a client on the Responses API at the fake, as on OpenAI's own endpoint.
func responsesSetup(t *testing.T, opts ...openaitest.Option) bundle {
	t.Helper()
	fake := openaitest.New(t, opts...)
	return bundle{fake: fake, client: officialClient(t, fake, openai.APIAuto)}
}

func TestChooseAPI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		api  openai.API
		base string
		want openai.API
	}{
		{"", "", openai.APIResponses},
		{"", "https://api.openai.com/v1", openai.APIResponses},
		{"", "http://localhost:11434/v1", openai.APIChat},
		{"", "https://gateway.example/v1", openai.APIChat},
		{openai.APIChat, "https://api.openai.com/v1", openai.APIChat},
		{openai.APIResponses, "http://localhost:8000/v1", openai.APIResponses},
	} {
		if got := openai.ChooseAPI(tt.api, tt.base); got != tt.want {
			t.Errorf("ChooseAPI(%q, %q) = %q, want %q", tt.api, tt.base, got, tt.want)
		}
	}
}

// noteTool's note is optional: its schema cannot be strict.
var noteTool = provider.Tool{
	Name: "note", Description: "Take a note.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"line":{"type":"integer","minimum":1}},"required":["text"],"additionalProperties":false}`),
}

var answerTool = provider.Tool{
	Name: "answer", Description: "Answer.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`),
}

// TestResponsesConversation runs a tool conversation over two turns and checks the wire: the
// instructions, the items of each message in order, calls and outputs paired by call_id (a
// refused call's output saying so), the reasoning item of the first answer sent back exactly
// as it came, nothing stored, strict only for the schema that allows it, the forced and the
// required tool choice, room for reasoning in max_output_tokens, and one prompt_cache_key for
// both turns.
func TestResponsesConversation(t *testing.T) {
	t.Parallel()
	b := responsesSetup(t, openaitest.WithResponsesRespond(func(req openaitest.ResponsesRequest) openaitest.Reply {
		if req.ToolRequired() {
			return openaitest.Reply{Text: "Checking.", ToolCalls: []openaitest.ReplyToolCall{
				{ID: "call_a", Name: "report", Arguments: `{"findings":[]}`}, {ID: "call_b", Name: "report", Arguments: `{"findings":["x"]}`},
			}}
		}
		return openaitest.ToolReply("answer", `{"ok":true}`)
	}))
	first := provider.Request{
		Model: responsesModel, MaxTokens: 512,
		System: []provider.Block{{Type: provider.Text, Text: "You are a reviewer."}, {Type: provider.Text, Text: "Be brief.", Cache: true}},
		Messages: []provider.Message{{Role: provider.User, Content: []provider.Block{
			{Type: provider.Text, Text: "The change.", Cache: true}, {Type: provider.Text, Text: "Your role."},
		}}},
		Tools: []provider.Tool{reportTool, noteTool, answerTool}, RequireTool: true,
	}
	resp, err := b.client.Complete(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 4 || resp.Content[0].Type != provider.Reasoning || resp.Content[0].Data == "" || resp.Content[0].ID == "" {
		t.Fatalf("content = %+v, want the reasoning item, the text and two calls", resp.Content)
	}
	wantCalls := []provider.Block{
		{Type: provider.ToolUse, ToolUseID: "call_a", Name: "report", Input: json.RawMessage(`{"findings":[]}`)},
		{Type: provider.ToolUse, ToolUseID: "call_b", Name: "report", Input: json.RawMessage(`{"findings":["x"]}`)},
	}
	if diff := cmp.Diff(wantCalls, resp.Content[2:]); diff != "" || resp.Content[1].Text != "Checking." || resp.StopReason != provider.StopToolUse {
		t.Errorf("calls (-want +got):\n%s\ntext %q, stop %q", diff, resp.Content[1].Text, resp.StopReason)
	}

	second := first
	second.RequireTool, second.ToolName = false, "answer"
	second.Messages = append(append([]provider.Message(nil), first.Messages...),
		provider.Message{Role: provider.Assistant, Content: resp.Content},
		provider.Message{Role: provider.User, Content: []provider.Block{
			{Type: provider.ToolResult, ToolUseID: "call_a", Text: "nothing"},
			{Type: provider.ToolResult, ToolUseID: "call_b", Text: "bad path", IsError: true},
		}})
	if _, err := b.client.Complete(context.Background(), second); err != nil {
		t.Fatalf("second turn refused: %v", err)
	}

	reqs := b.fake.ResponsesRequests()
	if len(reqs) != 2 {
		t.Fatalf("the fake saw %d requests, want 2", len(reqs))
	}
	r := reqs[1]
	type item struct{ Kind, Role, Text, CallID, Name, Args, ID, Enc string }
	var got []item
	for _, it := range r.Items {
		g := item{Kind: it.Kind(), Role: it.Role, Text: it.Text(), CallID: it.CallID, Name: it.Name, ID: it.ID}
		if it.Arguments != nil {
			g.Args = *it.Arguments
		}
		if it.EncryptedContent != nil {
			g.Enc = *it.EncryptedContent
		}
		got = append(got, g)
	}
	want := []item{
		{Kind: "message", Role: "user", Text: "The change.Your role."},
		{Kind: "reasoning", ID: resp.Content[0].ID, Enc: resp.Content[0].Data},
		{Kind: "message", Role: "assistant", Text: "Checking."},
		{Kind: "function_call", CallID: "call_a", Name: "report", Args: `{"findings":[]}`},
		{Kind: "function_call", CallID: "call_b", Name: "report", Args: `{"findings":["x"]}`},
		{Kind: "function_call_output", CallID: "call_a", Text: "nothing"},
		{Kind: "function_call_output", CallID: "call_b", Text: "error: bad path"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if r.Instructions != "You are a reviewer.\n\nBe brief." || r.Stored() || !r.IncludesEncryptedReasoning() {
		t.Errorf("instructions %q, stored %v, include %v", r.Instructions, r.Stored(), r.Include)
	}
	var strict []string
	for _, tl := range r.Tools {
		if tl.Strict == nil {
			t.Errorf("tool %s sent without strict", tl.Name)
		} else if *tl.Strict {
			strict = append(strict, tl.Name)
		}
	}
	if diff := cmp.Diff([]string{"report", "answer"}, strict); diff != "" {
		t.Errorf("strict tools (-want +got), note's optional line allows no strict mode:\n%s", diff)
	}
	if !reqs[0].ToolRequired() || r.ForcedFunction() != "answer" {
		t.Errorf("tool_choice = %s, then %s; want required, then the function answer", reqs[0].ToolChoice, r.ToolChoice)
	}
	if r.MaxOutputTokens == nil || *r.MaxOutputTokens != 512*3 {
		t.Errorf("max_output_tokens = %v, want 1536: the answer's 512 and room to reason", r.MaxOutputTokens)
	}
	if k := reqs[0].PromptCacheKey; !strings.HasPrefix(k, "council-") || len(k) > 64 || r.PromptCacheKey != k {
		t.Errorf("prompt_cache_key %q then %q: want one key for the conversation, at most 64 characters", k, r.PromptCacheKey)
	}
	if auth := r.Header.Get("Authorization"); auth != "Bearer "+b.fake.APIKey {
		t.Errorf("Authorization = %q", auth)
	}

	// Changed, the reasoning item is refused: the service cannot decrypt it.
	second.Messages[1].Content = append([]provider.Block(nil), resp.Content...)
	second.Messages[1].Content[0].Data = resp.Content[0].Data[:len(resp.Content[0].Data)-4] + "AAA="
	_, err = b.client.Complete(context.Background(), second)
	var bad *provider.BadRequestError
	if !errors.As(err, &bad) || bad.Type != "invalid_encrypted_content" {
		t.Errorf("err = %v, want the service's invalid_encrypted_content", err)
	}
}

// TestResponsesPromptCache: the reviewers of a unit share the prefix up to the change, and so
// the prompt_cache_key; the second reads the first's prefix from the cache. The usage converts
// to the neutral accounting: input excludes cached and cache-written tokens, output includes
// the reasoning.
func TestResponsesPromptCache(t *testing.T) {
	t.Parallel()
	b := responsesSetup(t)
	change := strings.Repeat("diff line\n", 700)
	review := func(role string) provider.Request {
		return provider.Request{Model: responsesModel, MaxTokens: 100,
			System: []provider.Block{{Type: provider.Text, Text: "Review.", Cache: true}},
			Messages: []provider.Message{{Role: provider.User, Content: []provider.Block{
				{Type: provider.Text, Text: change, Cache: true}, {Type: provider.Text, Text: "# Your role: " + role},
			}}}}
	}
	var usages []provider.Usage
	for _, role := range []string{"correctness", "security"} {
		resp, err := b.client.Complete(context.Background(), review(role))
		if err != nil {
			t.Fatal(err)
		}
		usages = append(usages, resp.Usage)
	}
	reqs := b.fake.ResponsesRequests()
	if reqs[0].PromptCacheKey != reqs[1].PromptCacheKey {
		t.Errorf("reviewers sent keys %q and %q, want one", reqs[0].PromptCacheKey, reqs[1].PromptCacheKey)
	}
	if usages[0].CacheReadTokens != 0 || usages[1].CacheReadTokens < 1024 {
		t.Errorf("cache reads %d then %d, want none then the shared prefix", usages[0].CacheReadTokens, usages[1].CacheReadTokens)
	}
	if usages[1].InputTokens <= 0 || usages[1].OutputTokens <= 8 {
		t.Errorf("usage %+v: want uncached input and output with the reasoning", usages[1])
	}

	b.fake.SetResponsesRespond(func(openaitest.ResponsesRequest) openaitest.Reply {
		return openaitest.Reply{Text: "ok", Usage: &openaitest.Usage{PromptTokens: 5000, CachedTokens: 3000, CacheWriteTokens: 1200, CompletionTokens: 700, ReasoningTokens: 600}}
	})
	resp, err := b.client.Complete(context.Background(), review("maintainability"))
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{Requests: 1, InputTokens: 800, CacheReadTokens: 3000, CacheWriteTokens: 1200, OutputTokens: 700}
	if diff := cmp.Diff(want, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	cost, _ := provider.DefaultPrices().Cost(responsesModel, resp.Usage)
	// gpt-6.2-sol: $2 input, $0.10 cached, $2.50 cache writes, $10 output per million tokens.
	if wantCost := (800*2 + 3000*0.10 + 1200*2.50 + 700*10) / 1e6; cost < wantCost-1e-12 || cost > wantCost+1e-12 {
		t.Errorf("cost = %v, want %v", cost, wantCost)
	}
}

// TestResponsesStops: an answer cut off by max_output_tokens is truncated; a warm-up's one
// token goes out as the API's minimum of 16.
func TestResponsesStops(t *testing.T) {
	t.Parallel()
	b := responsesSetup(t, openaitest.WithResponsesRespond(func(openaitest.ResponsesRequest) openaitest.Reply {
		return openaitest.Reply{Text: "cut", FinishReason: "length"}
	}))
	req := textRequest("hi")
	req.Model, req.MaxTokens = "gpt-4.1", 1
	resp, err := b.client.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated() || resp.StopReason != provider.StopMaxTokens {
		t.Errorf("stop = %q, want truncated", resp.StopReason)
	}
	if got := b.fake.ResponsesRequests()[0].MaxOutputTokens; got == nil || *got != 16 {
		t.Errorf("max_output_tokens = %v, want 16", got)
	}
}

// TestResponsesBadInput: each refusal council knows a remedy for says, in one line, what failed
// and what to set; none is retried.
func TestResponsesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     []openaitest.Option
		official bool
		chat     bool // a compatible server on Chat Completions (a gateway to OpenAI)
		model    string
		tools    bool
		status   int
		want     []string
	}{
		{name: "a compatible server without the Responses API", opts: []openaitest.Option{openaitest.WithoutResponsesAPI()},
			model: "gpt-4.1", status: 404, want: []string{"404", "the server has no Responses API (POST http://127.0.0.1:", "/v1/responses): set COUNCIL_OPENAI_API=chat"}},
		{name: "a key without access to the model", opts: []openaitest.Option{openaitest.WithoutAccess(responsesModel)}, official: true,
			model: responsesModel, status: 403, want: []string{"403 model_not_found", "does not have access to model `gpt-6.2-sol`", "the API key's project may not use gpt-6.2-sol"}},
		{name: "a model that refuses tools", opts: []openaitest.Option{openaitest.WithModel("llama3:8b", 0), openaitest.WithoutTools("llama3:8b")},
			model: "llama3:8b", tools: true, status: 400, want: []string{"does not support tools", "the model cannot call tools"}},
		{name: "a model past its shutdown", opts: []openaitest.Option{openaitest.WithoutModel("gpt-4.1")}, official: true,
			model: "gpt-4.1", status: 404, want: []string{"model_not_found", "OpenAI shuts gpt-4.1 down on 2027-01-14", "such as " + config.DefaultModel("openai")}},
		{name: "a Responses-only model through a gateway on Chat Completions", chat: true, model: responsesModel, tools: true,
			status: 400, want: []string{"use /v1/responses", "set COUNCIL_OPENAI_API=responses"}},
		{name: "an unknown model on a compatible server", model: "llama9", status: 404, want: []string{"llama9", "check the model name and the base URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := openaitest.New(t, tt.opts...)
			client := openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL, API: openai.APIResponses})
			switch {
			case tt.chat:
				client = openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL})
			case tt.official:
				client = officialClient(t, fake, openai.APIAuto)
			}
			req := textRequest("hi")
			req.Model = tt.model
			if tt.tools {
				req.Tools, req.ToolName = []provider.Tool{answerTool}, "answer"
			}
			_, err := provider.WithRetry(client, provider.RetryOptions{
				Sleep: func(context.Context, time.Duration) error { t.Error("retried"); return nil },
			}).Complete(context.Background(), req)
			var bad *provider.BadRequestError
			if !errors.As(err, &bad) || bad.Status != tt.status {
				t.Fatalf("err = %v, want a BadRequestError %d", err, tt.status)
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, fake.APIKey) {
				t.Errorf("message %q: want one line without the key", msg)
			}
		})
	}
}

// TestResponsesRateLimit: a 429 on the Responses API waits as the service says, as on Chat
// Completions.
func TestResponsesRateLimit(t *testing.T) {
	t.Parallel()
	b := responsesSetup(t, openaitest.WithResponsesRespond(func(openaitest.ResponsesRequest) openaitest.Reply {
		return openaitest.ErrorReply(http.StatusTooManyRequests, "")
	}))
	_, err := b.client.Complete(context.Background(), textRequest("hi"))
	var rl *provider.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != 2400*time.Millisecond {
		t.Errorf("err = %v, want a RateLimitError to retry after 2.4s (x-ratelimit-reset-tokens)", err)
	}
}

// TestResponsesRecordReplay: a recorded answer with a reasoning item replays unchanged.
func TestResponsesRecordReplay(t *testing.T) {
	t.Parallel()
	b := responsesSetup(t)
	dir := t.TempDir()
	req := textRequest("hi")
	req.Model = responsesModel
	recorded, err := provider.Record(b.client, openai.Name, dir).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := provider.Replay(openai.Name, dir).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" || recorded.Content[0].Type != provider.Reasoning {
		t.Errorf("replayed (-recorded +replayed):\n%s\nrecorded %+v", diff, recorded.Content)
	}
}

// TestModelShutdownDate: the models endpoint's shutdown_date makes the model deprecated.
func TestModelShutdownDate(t *testing.T) {
	t.Parallel()
	b := responsesSetup(t)
	info, err := b.client.Model(context.Background(), "gpt-4.1")
	if err != nil {
		t.Fatal(err)
	}
	if info.Lifecycle != "deprecated" || !info.RetiresAt.Equal(time.Date(2027, 1, 14, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("gpt-4.1: %+v, want deprecated, retiring on 2027-01-14", info)
	}
	if info, err := b.client.Model(context.Background(), responsesModel); err != nil || info.Lifecycle != "" {
		t.Errorf("%s: %+v, %v; want no lifecycle", responsesModel, info, err)
	}
}
