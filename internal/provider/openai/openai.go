// Package openai is the provider.Client for OpenAI's Chat Completions API and the servers that
// speak it (Ollama, vLLM, llama.cpp, gateways), on the official SDK. It is the only package that
// imports the OpenAI SDK. It maps the neutral request onto chat messages and function tools,
// the answer and its usage back (converting to the neutral, Anthropic-style accounting), and
// the API's errors onto provider's typed errors. It never retries (provider.WithRetry does)
// and never reads the environment: the caller passes the key and base URL.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/openai/openaiapi"
)

// Name is the provider's default name in errors and recorded exchanges.
const Name = "openai"

// DefaultTimeout bounds one attempt when Options.Timeout is zero; a local model can be slow.
const DefaultTimeout = 10 * time.Minute

const defaultBaseURL = "https://api.openai.com/v1"

// Options configures a Client.
type Options struct {
	// APIKey may be empty when BaseURL points at a server without authentication (Ollama,
	// vLLM, llama.cpp): no Authorization header is sent then.
	APIKey string
	// BaseURL replaces https://api.openai.com/v1; it includes the /v1 part.
	BaseURL    string
	HTTPClient *http.Client
	// Timeout bounds one attempt; DefaultTimeout when zero.
	Timeout time.Duration
	// Name is the provider's name in errors ("ollama"); default "openai".
	Name string
	// KeyEnv names where the key came from, for error messages; default OPENAI_API_KEY.
	KeyEnv string
}

// Client sends requests to a Chat Completions endpoint.
type Client struct {
	chat   sdk.ChatCompletionService
	models sdk.ModelService
	name   string
	key    string
	keyEnv string
	// official is true for OpenAI's own endpoint, which takes max_completion_tokens for
	// every model, and whose GPT-6 models hold function tools to their reasoning effort.
	official bool
}

var _ provider.Client = (*Client)(nil)

// New returns a Client. It builds the SDK's chat service directly instead of a full SDK
// client, whose defaults read OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and more from
// the environment: what Options say is all that is sent. The SDK's own retries are off.
func New(o Options) *Client {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	base := o.BaseURL
	if base == "" {
		base = defaultBaseURL
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(timeout),
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	c := &Client{
		chat:     sdk.NewChatCompletionService(opts...),
		models:   sdk.NewModelService(opts...),
		name:     o.Name,
		key:      o.APIKey,
		keyEnv:   o.KeyEnv,
		official: isOfficial(base),
	}
	if c.name == "" {
		c.name = Name
	}
	if c.keyEnv == "" {
		c.keyEnv = "OPENAI_API_KEY"
	}
	return c
}

func isOfficial(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == "api.openai.com"
}

// reasoningModel matches OpenAI models that refuse max_tokens (o-series, gpt-5 and later),
// also behind a vendor prefix ("openai/o3" on a gateway).
var reasoningModel = regexp.MustCompile(`^(?:[\w.-]+/)?(?:o\d|gpt-[5-9])`)

// Complete sends req and returns the answer, or a typed error from provider.
func (c *Client) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	params, err := c.newParams(req)
	if err != nil {
		return provider.Response{}, &provider.BadRequestError{Provider: c.name, Msg: err.Error()}
	}
	if err := c.toolRules(req, &params); err != nil {
		return provider.Response{}, err
	}
	var raw *http.Response
	completion, err := c.chat.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil {
		return provider.Response{}, c.mapError(ctx, err, raw)
	}
	return c.newResponse(req.Model, completion)
}

// Model asks the models endpoint about a model (GET {base}/models/{model}): whether the key may
// use it. OpenAI's answer says nothing of limits or lifecycle. Errors are typed as Complete's
// are: a model that does not exist is a BadRequestError with status 404, and so is a server
// without the endpoint.
func (c *Client) Model(ctx context.Context, id string) (provider.ModelInfo, error) {
	var raw *http.Response
	m, err := c.models.Get(ctx, id, option.WithResponseInto(&raw))
	if err != nil {
		return provider.ModelInfo{}, c.mapError(ctx, err, raw)
	}
	return provider.ModelInfo{ID: m.ID}, nil
}

// knownModels says which GPT-6 models hold function tools to their reasoning effort.
var knownModels = openaiapi.KnownModels()

// responsesHint says what to use instead of a model that calls tools only through the
// Responses API.
const responsesHint = "use gpt-6-luna or gpt-6-sol (tools on Chat Completions with reasoning off), gpt-4.1 (until its shutdown on 2027-01-14), or an Anthropic model"

// toolRules applies, on OpenAI's own endpoint, the rules GPT-6 models set for function tools
// on Chat Completions (openaiapi.Model's flags cite the pages). A model that calls tools only
// through the Responses API, which council does not speak yet, is refused before anything is
// sent; one that calls them only with reasoning_effort "none" gets it, which turns its
// reasoning off (the output limit stays max_completion_tokens, which OpenAI's endpoint takes
// for every model). A compatible server serving a model by the same name keeps its own rules.
func (c *Client) toolRules(req provider.Request, p *sdk.ChatCompletionNewParams) error {
	if !c.official || len(req.Tools) == 0 {
		return nil
	}
	m, _ := knownModels.Lookup(req.Model)
	switch {
	case m.ToolsNeedResponses:
		return &provider.BadRequestError{Provider: c.name, Hint: responsesHint,
			Msg: fmt.Sprintf("%s calls tools only through OpenAI's Responses API, which council does not use yet", req.Model)}
	case m.ToolsNeedNoReasoning:
		p.ReasoningEffort = shared.ReasoningEffortNone
	}
	return nil
}

func (c *Client) newParams(req provider.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	if req.MaxTokens > 0 {
		// max_completion_tokens replaced max_tokens, and OpenAI's reasoning models refuse the
		// old name. Other servers (Ollama, llama.cpp, older vLLM) only know max_tokens, so the
		// new name goes to OpenAI itself and to OpenAI reasoning models behind a gateway.
		if c.official || reasoningModel.MatchString(req.Model) {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if len(req.System) > 0 {
		// One system message: several, or content parts, are not understood by every
		// compatible server. The blocks are joined with a blank line.
		texts := make([]string, 0, len(req.System))
		for _, b := range req.System {
			if b.Type != provider.Text {
				return p, fmt.Errorf("system block of type %q: only text is allowed", b.Type)
			}
			texts = append(texts, b.Text)
		}
		p.Messages = append(p.Messages, sdk.SystemMessage(strings.Join(texts, "\n\n")))
	}
	for i, m := range req.Messages {
		msgs, err := newMessages(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, msgs...)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if len(bytes.TrimSpace(t.InputSchema)) > 0 {
			// Raw values, which the SDK's encoder writes as they are: decoded into Go values, a
			// number would become a json.Number, which it writes as a string, and the service
			// refuses a schema that is no longer valid JSON Schema.
			var m map[string]json.RawMessage
			if err := json.Unmarshal(t.InputSchema, &m); err != nil || m == nil {
				return p, fmt.Errorf("tool %s: input schema is not a JSON object", t.Name)
			}
			fn.Parameters = make(shared.FunctionParameters, len(m))
			for k, v := range m {
				fn.Parameters[k] = v
			}
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	switch {
	case req.ToolName != "":
		p.ToolChoice = sdk.ToolChoiceOptionFunctionToolChoice(sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolName})
	case req.RequireTool:
		// Sent even without tools: the service refuses "required" then, which says more
		// about the caller's mistake than a request quietly sent without the requirement.
		p.ToolChoice = sdk.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt(string(sdk.ChatCompletionToolChoiceOptionAutoRequired))}
	}
	return p, nil
}

// newMessages maps one neutral message onto chat messages. A user message's tool results
// become "tool" messages, which must come straight after the assistant's calls, so they go
// first and its text follows as a user message. Text blocks are joined with a blank line.
func newMessages(m provider.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var texts []string
	var out []sdk.ChatCompletionMessageParamUnion
	var calls []sdk.ChatCompletionMessageToolCallUnionParam
	for _, b := range m.Content {
		switch b.Type {
		case provider.Text:
			texts = append(texts, b.Text)
		case provider.ToolResult:
			if m.Role != provider.User {
				return nil, fmt.Errorf("tool result in a %s message", m.Role)
			}
			content := b.Text
			if b.IsError {
				// Chat Completions has no error flag on a tool result.
				content = "error: " + content
			}
			out = append(out, sdk.ToolMessage(content, b.ToolUseID))
		case provider.ToolUse:
			if m.Role != provider.Assistant {
				return nil, fmt.Errorf("tool use in a %s message", m.Role)
			}
			args := string(bytes.TrimSpace(b.Input))
			if args == "" {
				args = "{}"
			}
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.ToolUseID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args},
				},
			})
		case provider.Thinking, provider.RedactedThinking:
			// Anthropic's; a conversation never carries them to Chat Completions.
		default:
			return nil, fmt.Errorf("unknown block type %q", b.Type)
		}
	}
	text := strings.Join(texts, "\n\n")
	switch m.Role {
	case provider.User:
		if len(texts) > 0 {
			out = append(out, sdk.UserMessage(text))
		}
	case provider.Assistant:
		a := &sdk.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if len(texts) > 0 {
			a.Content.OfString = param.NewOpt(text)
		}
		out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: a})
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return out, nil
}

func (c *Client) newResponse(model string, cc *sdk.ChatCompletion) (provider.Response, error) {
	if len(cc.Choices) == 0 {
		return provider.Response{}, &provider.ServerError{Provider: c.name, Status: http.StatusOK, Msg: "the answer has no choices"}
	}
	choice := cc.Choices[0]
	cached := cc.Usage.PromptTokensDetails.CachedTokens
	resp := provider.Response{
		Model:      cc.Model,
		StopReason: stopReason(choice.FinishReason, len(choice.Message.ToolCalls) > 0),
		Usage: provider.Usage{
			Requests:        1,
			InputTokens:     max(0, cc.Usage.PromptTokens-cached),
			CacheReadTokens: cached,
			OutputTokens:    cc.Usage.CompletionTokens,
		},
	}
	if resp.Model == "" {
		resp.Model = model
	}
	text := choice.Message.Content
	if text == "" && choice.Message.Refusal != "" {
		text = choice.Message.Refusal
		resp.StopReason = "refusal"
	}
	if text != "" {
		resp.Content = append(resp.Content, provider.Block{Type: provider.Text, Text: text})
	}
	for _, tc := range choice.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never sent, so never called
		}
		resp.Content = append(resp.Content, provider.Block{
			Type: provider.ToolUse, ToolUseID: tc.ID, Name: tc.Function.Name, Input: arguments(tc.Function.Arguments),
		})
	}
	return resp, nil
}

// arguments keeps a call's arguments as raw JSON. Models do produce invalid JSON: it is kept
// as a JSON string, so that nothing is lost and the caller's parser reports it.
func arguments(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	quoted, _ := json.Marshal(s)
	return quoted
}

// stopReason maps finish_reason onto the neutral names. A forced call ends with "stop" on
// OpenAI, so any answer with tool calls is StopToolUse; "length" keeps its name.
func stopReason(finish string, calls bool) string {
	switch {
	case calls || finish == "tool_calls" || finish == "function_call":
		return provider.StopToolUse
	case finish == "stop":
		return provider.StopEndTurn
	default:
		return finish
	}
}

// mapError turns an SDK error into provider's typed errors. raw is the HTTP response when
// there was one: compatible servers answer errors in shapes the SDK cannot decode, and the
// status is what matters.
func (c *Client) mapError(ctx context.Context, err error, raw *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", c.name, ctxErr)
	}
	status := 0
	var header http.Header
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		status = apiErr.StatusCode
		if apiErr.Response != nil {
			header = apiErr.Response.Header
		}
	} else if raw != nil && raw.StatusCode >= 400 {
		status, header = raw.StatusCode, raw.Header
	}
	if status == 0 {
		return provider.WrapTransport(c.name, err)
	}
	typ, code, msg := errorBody(apiErr, raw)
	msg = provider.Redact(msg, c.key)
	detail := msg
	if code != "" {
		detail = code + ": " + msg
	}
	retryAfter := provider.ParseRetryAfter(header)
	if retryAfter == 0 {
		retryAfter = rateLimitReset(header)
	}
	switch {
	case status == http.StatusTooManyRequests && (code == "insufficient_quota" || typ == "insufficient_quota"):
		return &provider.QuotaError{Provider: c.name, Msg: msg}
	case status == http.StatusTooManyRequests:
		return &provider.RateLimitError{Provider: c.name, RetryAfter: retryAfter, Msg: detail}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &provider.AuthError{Provider: c.name, Status: status, Msg: detail, KeyEnv: c.keyEnv}
	case status == http.StatusServiceUnavailable:
		return &provider.OverloadedError{Provider: c.name, Status: status, RetryAfter: retryAfter, Msg: detail}
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return &provider.TimeoutError{Provider: c.name, Err: fmt.Errorf("%d: %s", status, detail)}
	case status >= 500:
		return &provider.ServerError{Provider: c.name, Status: status, RetryAfter: retryAfter, Msg: detail}
	default:
		t := code
		if t == "" {
			t = typ
		}
		return &provider.BadRequestError{Provider: c.name, Status: status, Type: t, Msg: msg}
	}
}

// errorBody reads the error's type, code and message: from the SDK's decoding of OpenAI's
// {"error": {...}}, else from the raw body in the shapes compatible servers use
// ({"error": "..."}, {"message": "..."}), else the body's text.
func errorBody(apiErr *sdk.Error, raw *http.Response) (typ, code, msg string) {
	if apiErr != nil && apiErr.Message != "" {
		return apiErr.Type, apiErr.Code, apiErr.Message
	}
	if raw == nil || raw.Body == nil {
		return "", "", http.StatusText(statusOf(apiErr, raw))
	}
	body, _ := io.ReadAll(io.LimitReader(raw.Body, 64<<10))
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(body, &shape) == nil {
		var s string
		var obj struct{ Message, Type, Code string }
		switch {
		case json.Unmarshal(shape.Error, &s) == nil && s != "":
			return "", "", s
		case json.Unmarshal(shape.Error, &obj) == nil && obj.Message != "":
			return obj.Type, obj.Code, obj.Message
		case shape.Message != "":
			return shape.Type, "", shape.Message
		}
	}
	if text := strings.TrimSpace(string(body)); text != "" {
		return "", "", text
	}
	return "", "", http.StatusText(raw.StatusCode)
}

func statusOf(apiErr *sdk.Error, raw *http.Response) int {
	if apiErr != nil {
		return apiErr.StatusCode
	}
	if raw != nil {
		return raw.StatusCode
	}
	return 0
}

// rateLimitReset reads OpenAI's x-ratelimit-reset-{requests,tokens} ("1s", "6m0s", "120ms")
// for the limit that is exhausted, when no retry-after header was sent.
func rateLimitReset(h http.Header) time.Duration {
	var wait time.Duration
	for _, kind := range []string{"requests", "tokens"} {
		if h.Get("x-ratelimit-remaining-"+kind) != "0" {
			continue
		}
		if d, err := time.ParseDuration(h.Get("x-ratelimit-reset-" + kind)); err == nil && d > wait {
			wait = d
		}
	}
	return wait
}
