package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

// TestServiceRules sends, through the official SDK, one request breaking each rule the fake
// enforces (openaiapi cites the documentation of each), and checks the fake answers with the
// service's status, code and message.
func TestServiceRules(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t)
	chat := sdk.NewChatCompletionService(option.WithAPIKey(fake.APIKey), option.WithBaseURL(fake.URL), option.WithMaxRetries(0))

	hi := []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("hi")}
	fn := func(name string, params shared.FunctionParameters) sdk.ChatCompletionToolUnionParam {
		return sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: name, Parameters: params})
	}
	report := fn("report", shared.FunctionParameters{"type": "object", "properties": map[string]any{}})
	call := sdk.ChatCompletionMessageParamUnion{OfAssistant: &sdk.ChatCompletionAssistantMessageParam{
		ToolCalls: []sdk.ChatCompletionMessageToolCallUnionParam{{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
			ID: "call_1", Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "report", Arguments: "{}"},
		}}},
	}}

	tests := []struct {
		name   string
		params sdk.ChatCompletionNewParams
		opts   []option.RequestOption
		status int
		code   string
		msg    string
	}{
		{
			name: "function parameters that are not JSON Schema",
			params: sdk.ChatCompletionNewParams{Messages: hi, Tools: []sdk.ChatCompletionToolUnionParam{
				fn("read", shared.FunctionParameters{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": "1"}}}),
			}},
			status: 400, code: "invalid_function_parameters", msg: "Invalid schema for function 'read'",
		},
		{
			name:   "unknown model",
			params: sdk.ChatCompletionNewParams{Model: "gpt-nope", Messages: hi},
			status: 404, code: "model_not_found", msg: "The model `gpt-nope` does not exist or you do not have access to it.",
		},
		{
			name:   "max_tokens to a reasoning model",
			params: sdk.ChatCompletionNewParams{Model: "o3", Messages: hi, MaxTokens: param.NewOpt[int64](100)},
			status: 400, code: "unsupported_parameter", msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
		},
		{
			name:   "output limit above the model's",
			params: sdk.ChatCompletionNewParams{Model: "gpt-4o-2024-08-06", Messages: hi, MaxCompletionTokens: param.NewOpt[int64](16385)},
			status: 400, code: "invalid_value", msg: "max_completion_tokens is too large: 16385. This model supports at most 16384 completion tokens",
		},
		{
			name:   "tool message without tool_calls before it",
			params: sdk.ChatCompletionNewParams{Messages: append(hi, sdk.ToolMessage("x", "call_1"))},
			status: 400, msg: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", //nolint:misspell // OpenAI's own wording
		},
		{
			name:   "tool call without its answer",
			params: sdk.ChatCompletionNewParams{Tools: []sdk.ChatCompletionToolUnionParam{report}, Messages: append(hi, call, sdk.UserMessage("go on"))},
			status: 400, msg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
		},
		{
			name:   "tool message answering another id",
			params: sdk.ChatCompletionNewParams{Tools: []sdk.ChatCompletionToolUnionParam{report}, Messages: append(hi, call, sdk.ToolMessage("x", "call_9"))},
			status: 400, msg: "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
		},
		{
			name: "tool_choice without tools",
			params: sdk.ChatCompletionNewParams{Messages: hi,
				ToolChoice: sdk.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt(string(sdk.ChatCompletionToolChoiceOptionAutoRequired))}},
			status: 400, msg: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
		},
		{
			name:   "parallel_tool_calls without tools",
			params: sdk.ChatCompletionNewParams{Messages: hi, ParallelToolCalls: param.NewOpt(false)},
			status: 400, msg: "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
		},
		{
			name:   "function tools on a model that calls them through Responses only",
			params: sdk.ChatCompletionNewParams{Model: "gpt-6.2-sol", Messages: hi, Tools: []sdk.ChatCompletionToolUnionParam{report}},
			status: 400, msg: "Function tools with reasoning_effort are not supported for gpt-6.2-sol in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.",
		},
		{
			name:   "reasoning_effort none on a model that refuses it",
			params: sdk.ChatCompletionNewParams{Model: "gpt-6.2-sol", Messages: hi, ReasoningEffort: shared.ReasoningEffortNone},
			status: 400, code: "unsupported_value", msg: "Unsupported value: 'reasoning_effort' does not support 'none' with this model.",
		},
		{
			name:   "function tools without reasoning_effort none",
			params: sdk.ChatCompletionNewParams{Model: "gpt-6-luna", Messages: hi, Tools: []sdk.ChatCompletionToolUnionParam{report}},
			status: 400, msg: "Function tools with reasoning_effort are not supported for gpt-6-luna in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.",
		},
		{
			name: "function tools with reasoning_effort low",
			params: sdk.ChatCompletionNewParams{Model: "gpt-6-sol", Messages: hi, Tools: []sdk.ChatCompletionToolUnionParam{report},
				ReasoningEffort: shared.ReasoningEffortLow},
			status: 400, msg: "Function tools with reasoning_effort are not supported for gpt-6-sol in /v1/chat/completions.",
		},
		{
			name:   "unknown parameter",
			params: sdk.ChatCompletionNewParams{Messages: hi},
			opts:   []option.RequestOption{option.WithJSONSet("top_k", 5)},
			status: 400, msg: "Unrecognized request argument supplied: top_k",
		},
	}
	// What the same rules accept: the request each refusal above falls short of.
	accepted := []struct {
		name   string
		params sdk.ChatCompletionNewParams
	}{
		{"function tools with reasoning_effort none", sdk.ChatCompletionNewParams{Model: "gpt-6-luna", Messages: hi,
			Tools: []sdk.ChatCompletionToolUnionParam{report}, ReasoningEffort: shared.ReasoningEffortNone}},
		{"no tools on a model that calls them through Responses only", sdk.ChatCompletionNewParams{Model: "gpt-6.2-sol", Messages: hi,
			ReasoningEffort: shared.ReasoningEffortLow}},
	}
	for _, tt := range accepted {
		t.Run("accepted/"+tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := chat.New(context.Background(), tt.params); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params
			if p.Model == "" {
				p.Model = model
			}
			_, err := chat.New(context.Background(), p, tt.opts...)
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want the service's error", err)
			}
			if apiErr.StatusCode != tt.status || apiErr.Type != "invalid_request_error" || apiErr.Code != tt.code || !strings.Contains(apiErr.Message, tt.msg) {
				t.Errorf("got %d %s %q %q, want %d invalid_request_error %q containing %q", apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message, tt.status, tt.code, tt.msg)
			}
		})
	}
}
