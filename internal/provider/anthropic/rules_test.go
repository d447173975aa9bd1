package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/council-dev/council/internal/provider/anthropic/anthropicapi"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// TestServiceRules sends, through the official SDK, one request breaking each rule the fake
// enforces (anthropicapi cites the documentation of each), and checks the fake answers with
// the service's status, error type and message.
func TestServiceRules(t *testing.T) {
	t.Parallel()
	fake := anthropictest.New(t)
	client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey(fake.APIKey), option.WithRequestTimeout(time.Minute),
		option.WithBaseURL(fake.URL), option.WithMaxRetries(0))

	user := func(blocks ...sdk.ContentBlockParamUnion) sdk.MessageParam { return sdk.NewUserMessage(blocks...) }
	assistant := func(blocks ...sdk.ContentBlockParamUnion) sdk.MessageParam { return sdk.NewAssistantMessage(blocks...) }
	hi := []sdk.MessageParam{user(sdk.NewTextBlock("hi"))}
	tool := func(name string, props any) sdk.ToolUnionParam {
		return sdk.ToolUnionParam{OfTool: &sdk.ToolParam{Name: name, InputSchema: sdk.ToolInputSchemaParam{Properties: props}}}
	}
	report := tool("report", map[string]any{})
	used := []sdk.MessageParam{user(sdk.NewTextBlock("hi")), assistant(sdk.NewToolUseBlock("toolu_1", map[string]any{}, "report"))}
	cached := func(text string) sdk.ContentBlockParamUnion {
		return sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: text, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	// A thinking block the fake issued, to send back altered.
	first, err := client.Messages.New(context.Background(), sdk.MessageNewParams{Model: "claude-sonnet-5-5", MaxTokens: 100, Messages: hi})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Content) == 0 || first.Content[0].Type != "thinking" || first.Content[0].Signature == "" {
		t.Fatalf("claude-sonnet-5-5's answer %+v does not begin with a signed thinking block", first.Content)
	}
	signature := first.Content[0].Signature
	thought := func(thinking, signature string) []sdk.MessageParam {
		return append(hi, assistant(sdk.NewThinkingBlock(signature, thinking), sdk.NewTextBlock("ok")), user(sdk.NewTextBlock("go on")))
	}
	const badSignature = "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation."

	tests := []struct {
		name   string
		params sdk.MessageNewParams
		opts   []option.RequestOption
		status int
		typ    string
		msg    string
	}{
		{
			name:   "tool schema that is not JSON Schema 2020-12",
			params: sdk.MessageNewParams{Tools: []sdk.ToolUnionParam{tool("read", map[string]any{"n": map[string]any{"type": "integer", "minimum": "1"}})}, Messages: hi},
			status: 400, typ: "invalid_request_error",
			msg: "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12",
		},
		{
			name:   "tool schema of another type than object",
			params: sdk.MessageNewParams{Tools: []sdk.ToolUnionParam{report}, Messages: hi},
			opts:   []option.RequestOption{option.WithJSONSet("tools.0.input_schema.type", "array")},
			status: 400, typ: "invalid_request_error", msg: "tools.0.custom.input_schema.type: Input should be 'object'",
		},
		{
			name:   "unknown model",
			params: sdk.MessageNewParams{Model: "claude-nope-9", Messages: hi},
			status: 404, typ: "not_found_error", msg: "model: claude-nope-9",
		},
		{
			name:   "max_tokens above the model's output limit",
			params: sdk.MessageNewParams{Model: "claude-haiku-4-5-20251001", MaxTokens: 64001, Messages: hi},
			status: 400, typ: "invalid_request_error",
			msg: "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5-20251001",
		},
		{
			name:   "tool_result without its tool_use",
			params: sdk.MessageNewParams{Tools: []sdk.ToolUnionParam{report}, Messages: []sdk.MessageParam{user(sdk.NewToolResultBlock("toolu_9", "x", false))}},
			status: 400, typ: "invalid_request_error", msg: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
		},
		{
			name:   "tool_use without its tool_result",
			params: sdk.MessageNewParams{Tools: []sdk.ToolUnionParam{report}, Messages: append(used, user(sdk.NewTextBlock("go on")))},
			status: 400, typ: "invalid_request_error",
			msg: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
		},
		{
			name: "text before the tool_result",
			params: sdk.MessageNewParams{Tools: []sdk.ToolUnionParam{report},
				Messages: append(used, user(sdk.NewTextBlock("here"), sdk.NewToolResultBlock("toolu_1", "x", false)))},
			status: 400, typ: "invalid_request_error",
			msg: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
		},
		{
			name:   "five cache breakpoints",
			params: sdk.MessageNewParams{Messages: []sdk.MessageParam{user(cached("a"), cached("b"), cached("c"), cached("d"), cached("e"))}},
			status: 400, typ: "invalid_request_error", msg: "A maximum of 4 blocks with cache_control may be provided. Found 5.",
		},
		{
			name:   "tool_choice any without tools",
			params: sdk.MessageNewParams{Messages: hi, ToolChoice: sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}},
			status: 400, typ: "invalid_request_error", msg: "tool_choice.any may only be specified while providing tools",
		},
		{
			name:   "tool_choice naming a tool not sent",
			params: sdk.MessageNewParams{Tools: []sdk.ToolUnionParam{report}, Messages: hi, ToolChoice: sdk.ToolChoiceParamOfTool("submit")},
			status: 400, typ: "invalid_request_error", msg: "Tool 'submit' not found",
		},
		{
			name:   "tool_choice any on a model that refuses forcing",
			params: sdk.MessageNewParams{Model: "claude-sonnet-5-5", Tools: []sdk.ToolUnionParam{report}, Messages: hi, ToolChoice: sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}},
			status: 400, typ: "invalid_request_error", msg: anthropicapi.NoForcedToolMessage,
		},
		{
			name:   "tool_choice tool on a model that refuses forcing",
			params: sdk.MessageNewParams{Model: "claude-sonnet-5-5", Tools: []sdk.ToolUnionParam{report}, Messages: hi, ToolChoice: sdk.ToolChoiceParamOfTool("report")},
			status: 400, typ: "invalid_request_error", msg: `tool_choice: type "tool" and "any" are not supported for this model.`,
		},
		{
			name:   "retired model",
			params: sdk.MessageNewParams{Model: "claude-sonnet-4-5-20250929", Messages: hi},
			status: 404, typ: "not_found_error", msg: "model: claude-sonnet-4-5-20250929",
		},
		{
			name:   "thinking block sent back altered",
			params: sdk.MessageNewParams{Model: "claude-sonnet-5-5", Messages: thought("I changed this.", signature)},
			status: 400, typ: "invalid_request_error", msg: badSignature,
		},
		{
			name:   "thinking block the service did not issue",
			params: sdk.MessageNewParams{Model: "claude-sonnet-5-5", Messages: thought("", "RXF1aXZvY2F0aW9u")},
			status: 400, typ: "invalid_request_error", msg: badSignature,
		},
		{
			name:   "thinking block in a user turn",
			params: sdk.MessageNewParams{Model: "claude-sonnet-5-5", Messages: []sdk.MessageParam{user(sdk.NewThinkingBlock(signature, ""), sdk.NewTextBlock("hi"))}},
			status: 400, typ: "invalid_request_error", msg: "messages.0.content.0: thinking blocks may only appear in assistant messages",
		},
		{
			name:   "redacted thinking block in a user turn",
			params: sdk.MessageNewParams{Model: "claude-sonnet-5-5", Messages: []sdk.MessageParam{user(sdk.NewRedactedThinkingBlock("b3BhcXVl"), sdk.NewTextBlock("hi"))}},
			status: 400, typ: "invalid_request_error", msg: "messages.0.content.0: redacted_thinking blocks may only appear in assistant messages",
		},
		{
			name:   "empty text block",
			params: sdk.MessageNewParams{Messages: []sdk.MessageParam{user(sdk.NewTextBlock("hi"), sdk.NewTextBlock(""))}},
			status: 400, typ: "invalid_request_error", msg: "messages: text content blocks must be non-empty",
		},
		{
			name:   "whitespace-only text block",
			params: sdk.MessageNewParams{Messages: []sdk.MessageParam{user(sdk.NewTextBlock("hi"), sdk.NewTextBlock("\n "))}},
			status: 400, typ: "invalid_request_error", msg: "messages: text content blocks must contain non-whitespace text",
		},
		{
			name:   "final assistant message ending in whitespace",
			params: sdk.MessageNewParams{Messages: append(hi, assistant(sdk.NewTextBlock("The answer is ")))},
			status: 400, typ: "invalid_request_error", msg: "messages: final assistant content cannot end with trailing whitespace",
		},
		{
			name:   "prefill on a model that refuses it",
			params: sdk.MessageNewParams{Model: "claude-sonnet-4-6", Messages: append(hi, assistant(sdk.NewTextBlock("{")))},
			status: 400, typ: "invalid_request_error", msg: "This model does not support assistant message prefill. The conversation must end with a user message.",
		},
		{
			name:   "unknown top-level field",
			params: sdk.MessageNewParams{Messages: hi},
			opts:   []option.RequestOption{option.WithJSONSet("max_output_tokens", 5)},
			status: 400, typ: "invalid_request_error", msg: "max_output_tokens: Extra inputs are not permitted",
		},
		{
			name:   "no anthropic-version header",
			params: sdk.MessageNewParams{Messages: hi},
			opts:   []option.RequestOption{option.WithHeaderDel("anthropic-version")},
			status: 400, typ: "invalid_request_error", msg: "anthropic-version: header is required",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params
			if p.Model == "" {
				p.Model = model
			}
			if p.MaxTokens == 0 {
				p.MaxTokens = 100
			}
			_, err := client.Messages.New(context.Background(), p, tt.opts...)
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want the service's error", err)
			}
			if apiErr.StatusCode != tt.status || string(apiErr.Type()) != tt.typ || !strings.Contains(apiErr.Message, tt.msg) {
				t.Errorf("got %d %s %q, want %d %s containing %q", apiErr.StatusCode, apiErr.Type(), apiErr.Message, tt.status, tt.typ, tt.msg)
			}
		})
	}
}
