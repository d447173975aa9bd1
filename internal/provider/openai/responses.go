package openai

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/openai/openaiapi"
)

// completeResponses sends req to the Responses API (POST {base}/responses).
func (c *Client) completeResponses(ctx context.Context, req provider.Request) (provider.Response, error) {
	params, err := newResponsesParams(req)
	if err != nil {
		return provider.Response{}, &provider.BadRequestError{Provider: c.name, Msg: err.Error()}
	}
	var raw *http.Response
	r, err := c.resp.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil {
		return provider.Response{}, c.explain(req.Model, c.mapError(ctx, err, raw))
	}
	return c.newResponsesResponse(req.Model, r)
}

// newResponsesParams maps the neutral request onto the Responses API:
//   - nothing is stored at OpenAI (store false); a reasoning model's reasoning items come back
//     with their encrypted content, which goes back unchanged with the next turn, so that the
//     model keeps its reasoning between turns without a stored conversation
//     (https://developers.openai.com/api/docs/guides/reasoning#encrypted-reasoning-items);
//   - the system blocks become the instructions; a user message's tool results become
//     function_call_output items and its text one message of input_text parts; an assistant
//     message's reasoning, text and calls become reasoning, message and function_call items, in
//     their order;
//   - function tools are strict when their schema meets strict mode's requirements, else sent
//     with strict false, without which the service would make optional fields required
//     (https://developers.openai.com/api/docs/guides/function-calling);
//   - prompt_cache_key is a hash of the prompt prefix the request shares with others
//     (promptCacheKey);
//   - max_output_tokens counts reasoning too, so a model that reasons by default gets room for
//     it (provider.WithThinkingRoom), and never less than the API's minimum of 16.
func newResponsesParams(req provider.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model:          req.Model,
		Store:          param.NewOpt(false),
		PromptCacheKey: param.NewOpt(promptCacheKey(req)),
	}
	if req.MaxTokens > 0 {
		known, _ := knownModels.Lookup(req.Model)
		p.MaxOutputTokens = param.NewOpt(int64(max(openaiapi.MinOutputTokens, provider.WithThinkingRoom(req.Model, req.MaxTokens, known.MaxOutput))))
	}
	if reasoningModel.MatchString(req.Model) {
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	system, err := systemText(req.System)
	if err != nil {
		return p, err
	}
	if system != "" {
		p.Instructions = param.NewOpt(system)
	}
	var items responses.ResponseInputParam
	for i, m := range req.Messages {
		its, err := newItems(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		items = append(items, its...)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	for _, t := range req.Tools {
		fn := responses.FunctionToolParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if fn.Parameters, err = parameters(t); err != nil {
			return p, err
		}
		if fn.Parameters == nil {
			fn.Parameters = map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
		}
		fn.Strict = param.NewOpt(len(t.InputSchema) == 0 || openaiapi.StrictSchemaProblem(t.InputSchema) == "")
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &fn})
	}
	switch {
	case req.ToolName != "":
		p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: req.ToolName}}
	case req.RequireTool:
		// Sent even without tools: the service refuses "required" then, which says more about
		// the caller's mistake than a request quietly sent without the requirement.
		p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsRequired)}
	}
	return p, nil
}

// newItems maps one neutral message onto input items. A user message's tool results go first,
// each a function_call_output naming its call, then its text blocks as one message.
func newItems(m provider.Message) (responses.ResponseInputParam, error) {
	var items responses.ResponseInputParam
	var parts responses.ResponseInputMessageContentListParam
	for _, b := range m.Content {
		switch {
		case b.Type == provider.Text && m.Role == provider.User:
			parts = append(parts, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: b.Text}})
		case b.Type == provider.Text:
			// Whitespace before a model's calls says nothing; the rest goes back as it came.
			if strings.TrimSpace(b.Text) != "" {
				items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
					Role: responses.EasyInputMessageRoleAssistant, Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(b.Text)},
				}})
			}
		case b.Type == provider.ToolResult && m.Role == provider.User:
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: param.NewOpt(b.ToolUseID),
				Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(resultText(b))},
			}})
		case b.Type == provider.ToolUse && m.Role == provider.Assistant:
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
				CallID: b.ToolUseID, Name: b.Name, Arguments: callArguments(b.Input),
			}})
		case b.Type == provider.Reasoning && m.Role == provider.Assistant:
			// Exactly as it came: the service decrypts it. council asks for no summary, so the
			// summary is empty, but the field is required.
			items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
				ID: b.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}, EncryptedContent: param.NewOpt(b.Data),
			}})
		case b.Type == provider.Thinking || b.Type == provider.RedactedThinking:
			// Anthropic's; a conversation never carries them to OpenAI.
		case b.Type == provider.ToolResult || b.Type == provider.ToolUse || b.Type == provider.Reasoning:
			return nil, fmt.Errorf("%s in a %s message", b.Type, m.Role)
		default:
			return nil, fmt.Errorf("unknown block type %q", b.Type)
		}
	}
	switch m.Role {
	case provider.User:
		if len(parts) > 0 {
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role: responses.EasyInputMessageRoleUser, Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: parts},
			}})
		}
	case provider.Assistant:
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return items, nil
}

// promptCacheKey is a request's prompt_cache_key: a hash of the model and the prefix it shares
// with the requests of the same review step (the instructions, the tools, and its first user
// message up to that message's last block marked for caching: the shared change of a unit, or
// the file a validator check is about). Every reviewer of a unit, and every turn of a
// conversation, sends the same key, so that OpenAI routes them to the same prompt cache
// (https://developers.openai.com/api/docs/guides/prompt-caching; the deployment checklist
// advises a stable key: https://developers.openai.com/api/docs/guides/deployment-checklist).
// It is 40 characters, within the API's 64.
func promptCacheKey(req provider.Request) string {
	h := sha256.New()
	write := func(s string) { fmt.Fprintf(h, "%d:%s", len(s), s) }
	write(req.Model)
	for _, b := range req.System {
		write(b.Text)
	}
	for _, t := range req.Tools {
		write(t.Name)
		write(t.Description)
		write(string(t.InputSchema))
	}
	if len(req.Messages) > 0 {
		first := req.Messages[0].Content
		last := -1
		for i, b := range first {
			if b.Cache {
				last = i
			}
		}
		for _, b := range first[:last+1] {
			write(b.Text)
		}
	}
	return "council-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// newResponsesResponse maps an answer back: reasoning items that can go back (with their
// encrypted content), text, refusals and function calls, the reason the answer stopped, and
// the usage, where input_tokens counts the cached and cache-written tokens too and
// output_tokens the reasoning tokens, billed as output.
func (c *Client) newResponsesResponse(model string, r *responses.Response) (provider.Response, error) {
	if r.Status == "failed" {
		return provider.Response{}, &provider.ServerError{Provider: c.name, Status: http.StatusOK,
			Msg: provider.Redact(strings.TrimSpace(string(r.Error.Code)+": "+r.Error.Message), c.key)}
	}
	in := r.Usage.InputTokensDetails
	resp := provider.Response{
		Model: r.Model,
		Usage: provider.Usage{
			Requests:         1,
			InputTokens:      max(0, r.Usage.InputTokens-in.CachedTokens-in.CacheWriteTokens),
			CacheReadTokens:  in.CachedTokens,
			CacheWriteTokens: in.CacheWriteTokens,
			OutputTokens:     r.Usage.OutputTokens,
		},
	}
	if resp.Model == "" {
		resp.Model = model
	}
	calls, refused := false, false
	for _, it := range r.Output {
		switch it.Type {
		case "reasoning":
			// Without its encrypted content an item cannot go back: nothing is stored.
			if it.EncryptedContent != "" {
				resp.Content = append(resp.Content, provider.Block{Type: provider.Reasoning, ID: it.ID, Data: it.EncryptedContent})
			}
		case "message":
			for _, part := range it.Content {
				switch part.Type {
				case "output_text":
					resp.Content = append(resp.Content, provider.Block{Type: provider.Text, Text: part.Text})
				case "refusal":
					resp.Content = append(resp.Content, provider.Block{Type: provider.Text, Text: part.Refusal})
					refused = true
				}
			}
		case "function_call":
			resp.Content = append(resp.Content, provider.Block{Type: provider.ToolUse, ToolUseID: it.CallID, Name: it.Name, Input: arguments(it.Arguments.OfString)})
			calls = true
		}
		// Built-in tools are never sent, so their items never come.
	}
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails.Reason == "max_output_tokens":
		resp.StopReason = provider.StopMaxTokens
	case r.Status == "incomplete":
		resp.StopReason = r.IncompleteDetails.Reason
	case calls:
		resp.StopReason = provider.StopToolUse
	case refused:
		resp.StopReason = "refusal"
	default:
		resp.StopReason = provider.StopEndTurn
	}
	return resp, nil
}
