package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
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
			wantServiceError(t, err, tt.status, tt.code, tt.msg)
		})
	}
}

// wantServiceError checks that err is the service's invalid_request_error with status, code
// and a message containing msg.
func wantServiceError(t *testing.T, err error, status int, code, msg string) {
	t.Helper()
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want the service's error", err)
	}
	if apiErr.StatusCode != status || apiErr.Type != "invalid_request_error" || apiErr.Code != code || !strings.Contains(apiErr.Message, msg) {
		t.Errorf("got %d %s %q %q, want %d invalid_request_error %q containing %q", apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message, status, code, msg)
	}
}

// TestResponsesServiceRules sends, through the official SDK's Responses client, one request
// breaking each rule of the Responses API the fake enforces (openaiapi cites the page or report
// of each), and checks the fake answers with the service's status, type, code and message; and
// that the request each refusal falls short of is accepted.
func TestResponsesServiceRules(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t)
	svc := responses.NewResponseService(option.WithAPIKey(fake.APIKey), option.WithBaseURL(fake.URL), option.WithMaxRetries(0))

	user := responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
		Role: responses.EasyInputMessageRoleUser, Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt("hi")}}}
	input := func(items ...responses.ResponseInputItemUnionParam) responses.ResponseNewParamsInputUnion {
		return responses.ResponseNewParamsInputUnion{OfInputItemList: append(responses.ResponseInputParam{user}, items...)}
	}
	fn := func(name string, strict bool, params map[string]any) responses.ToolUnionParam {
		return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: name, Strict: param.NewOpt(strict), Parameters: params}}
	}
	closed := map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
	optional := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "additionalProperties": false}
	report := fn("report", true, closed)
	call := responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{CallID: "call_1", Name: "report", Arguments: "{}"}}
	output := func(id string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
			CallID: param.NewOpt(id), Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt("done")}}}
	}
	reasoning := func(enc param.Opt[string]) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
			ID: "rs_1", Summary: []responses.ResponseReasoningItemSummaryParam{}, EncryptedContent: enc}}
	}

	tests := []struct {
		name   string
		params responses.ResponseNewParams
		opts   []option.RequestOption
		status int
		code   string
		msg    string
	}{
		{name: "unknown parameter", params: responses.ResponseNewParams{Input: input()}, opts: []option.RequestOption{option.WithJSONSet("max_tokens", 100)},
			status: 400, code: "unknown_parameter", msg: "Unknown parameter: 'max_tokens'."},
		{name: "unknown model", params: responses.ResponseNewParams{Model: "gpt-nope", Input: input()},
			status: 404, code: "model_not_found", msg: "The model `gpt-nope` does not exist or you do not have access to it."},
		{name: "max_output_tokens below 16", params: responses.ResponseNewParams{Input: input(), MaxOutputTokens: param.NewOpt[int64](1)},
			status: 400, code: "integer_below_min_value", msg: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 1 instead."},
		{name: "max_output_tokens above the model's", params: responses.ResponseNewParams{Input: input(), MaxOutputTokens: param.NewOpt[int64](128001)},
			status: 400, code: "invalid_value", msg: "max_output_tokens is too large: 128001."},
		{name: "prompt_cache_key too long", params: responses.ResponseNewParams{Input: input(), PromptCacheKey: param.NewOpt(strings.Repeat("k", 65))},
			status: 400, code: "string_above_max_length", msg: "Expected a string with maximum length 64, but got a string with length 65 instead."},
		{name: "reasoning effort none on a model that refuses it", params: responses.ResponseNewParams{Input: input(), Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortNone}},
			status: 400, code: "unsupported_value", msg: "'reasoning.effort' does not support 'none'"},
		{name: "a tool in Chat Completions' shape", params: responses.ResponseNewParams{Input: input()},
			opts:   []option.RequestOption{option.WithJSONSet("tools", []any{map[string]any{"type": "function", "function": map[string]any{"name": "report", "parameters": closed}}})},
			status: 400, code: "missing_required_parameter", msg: "Missing required parameter: 'tools[0].name'."},
		{name: "parameters that are not JSON Schema", params: responses.ResponseNewParams{Input: input(), Tools: []responses.ToolUnionParam{
			fn("read", false, map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": "1"}}})}},
			status: 400, code: "invalid_function_parameters", msg: "Invalid schema for function 'read'"},
		{name: "strict with an optional property", params: responses.ResponseNewParams{Input: input(), Tools: []responses.ToolUnionParam{fn("read", true, optional)}},
			status: 400, code: "invalid_function_parameters", msg: "Invalid schema for function 'read': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'n'."},
		{name: "strict with a keyword strict mode does not support", params: responses.ResponseNewParams{Input: input(), Tools: []responses.ToolUnionParam{fn("read", true, map[string]any{
			"type": "object", "properties": map[string]any{"s": map[string]any{"type": "string", "minLength": 1}}, "required": []string{"s"}, "additionalProperties": false})}},
			status: 400, code: "invalid_function_parameters", msg: "In context=('properties', 's'), 'minLength' is not permitted."},
		{name: "required without tools", params: responses.ResponseNewParams{Input: input(),
			ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsRequired)}},
			status: 400, msg: "Tool choice 'required' must be specified with 'tools' parameter."},
		{name: "a forced function not among the tools", params: responses.ResponseNewParams{Input: input(), Tools: []responses.ToolUnionParam{report},
			ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "other"}}},
			status: 400, msg: "Tool choice 'function' not found in 'tools' parameter."},
		{name: "an output without its call", params: responses.ResponseNewParams{Input: input(output("call_9"))},
			status: 400, msg: "No tool call found for function call output with call_id call_9."},
		{name: "a call without its output", params: responses.ResponseNewParams{Input: input(call), Tools: []responses.ToolUnionParam{report}},
			status: 400, msg: "No tool output found for function call call_1."},
		{name: "a reasoning item without its content, not stored", params: responses.ResponseNewParams{Input: input(reasoning(param.Opt[string]{}), call, output("call_1")),
			Tools: []responses.ToolUnionParam{report}, Store: param.NewOpt(false)},
			status: 404, msg: "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false."},
		{name: "a reasoning item the service did not issue", params: responses.ResponseNewParams{Input: input(reasoning(param.NewOpt("gAAAAforgedforgedforged==")), call, output("call_1")),
			Tools: []responses.ToolUnionParam{report}, Store: param.NewOpt(false)},
			status: 400, code: "invalid_encrypted_content", msg: "The encrypted content gAAA...ed== could not be verified."},
	}
	accepted := []struct {
		name   string
		params responses.ResponseNewParams
	}{
		{"not strict with an optional property", responses.ResponseNewParams{Input: input(), Tools: []responses.ToolUnionParam{fn("read", false, optional)}}},
		{"a call answered by its output", responses.ResponseNewParams{Input: input(call, output("call_1")), Tools: []responses.ToolUnionParam{report},
			ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "report"}}}},
	}
	for _, tt := range accepted {
		t.Run("accepted/"+tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params
			p.Model = "gpt-6.2-sol"
			if _, err := svc.New(context.Background(), p); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params
			if p.Model == "" {
				p.Model = "gpt-6.2-sol"
			}
			_, err := svc.New(context.Background(), p, tt.opts...)
			wantServiceError(t, err, tt.status, tt.code, tt.msg)
		})
	}

	// A reasoning item the service issued goes back as it came.
	first, err := svc.New(context.Background(), responses.ResponseNewParams{Model: "gpt-6.2-sol", Input: input(), Tools: []responses.ToolUnionParam{report},
		Store: param.NewOpt(false), Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "report"}}})
	if err != nil {
		t.Fatal(err)
	}
	rs, fc := first.Output[0], first.Output[1]
	back := responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
		ID: rs.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}, EncryptedContent: param.NewOpt(rs.EncryptedContent)}}
	callBack := responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{CallID: fc.CallID, Name: fc.Name, Arguments: fc.Arguments.OfString}}
	if _, err := svc.New(context.Background(), responses.ResponseNewParams{Model: "gpt-6.2-sol", Input: input(back, callBack, output(fc.CallID)),
		Tools: []responses.ToolUnionParam{report}, Store: param.NewOpt(false)}); err != nil {
		t.Errorf("the service's own reasoning item refused: %v", err)
	}
}
