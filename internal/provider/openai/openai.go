// Package openai is the provider.Client for OpenAI: the Responses API on OpenAI's own endpoint,
// and Chat Completions for the servers that speak it (Ollama, vLLM, llama.cpp, gateways), on the
// official SDK; Options.API overrides the choice. It is the only package that imports the
// OpenAI SDK. It maps the neutral request onto each API's items or messages and function tools,
// the answer and its usage back (converting to the neutral, Anthropic-style accounting), and
// the APIs' errors onto provider's typed errors. It never retries (provider.WithRetry does)
// and never reads the environment: the caller passes the key, base URL and API.
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
	"github.com/openai/openai-go/v3/responses"
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
	// API is the API to speak; APIAuto chooses by BaseURL (ChooseAPI).
	API API
}

// API is an OpenAI API a Client speaks.
type API string

// The APIs, as COUNCIL_OPENAI_API and openai_api: in .council.yaml name them.
const (
	APIAuto      API = ""          // by the base URL: ChooseAPI
	APIResponses API = "responses" // POST {base}/responses
	APIChat      API = "chat"      // POST {base}/chat/completions
)

// ChooseAPI is the API a client speaks: api when set, else the Responses API on OpenAI's own
// endpoint, where the current models call tools only through it
// (https://developers.openai.com/api/docs/guides/deployment-checklist), and Chat Completions
// on any other server, the API every compatible server speaks.
func ChooseAPI(api API, baseURL string) API {
	switch {
	case api != APIAuto:
		return api
	case baseURL == "" || isOfficial(baseURL):
		return APIResponses
	default:
		return APIChat
	}
}

// Client sends requests to a Chat Completions or Responses endpoint.
type Client struct {
	chat   sdk.ChatCompletionService
	resp   responses.ResponseService
	models sdk.ModelService
	api    API
	base   string
	name   string
	key    string
	keyEnv string
	// official is true for OpenAI's own endpoint, which takes max_completion_tokens for
	// every model, and whose GPT-6 models hold function tools to their reasoning effort.
	official bool
}

var _ provider.Client = (*Client)(nil)

// New returns a Client. It builds the SDK's services directly instead of a full SDK client,
// whose defaults read OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and more from the
// environment: what Options say is all that is sent. The SDK's own retries are off. An API
// other than the three named is taken as APIAuto: the caller validates what the user gave.
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
		resp:     responses.NewResponseService(opts...),
		models:   sdk.NewModelService(opts...),
		api:      APIChat,
		base:     strings.TrimSuffix(base, "/"),
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
	if o.API == APIResponses || (o.API != APIChat && ChooseAPI(APIAuto, base) == APIResponses) {
		c.api = APIResponses
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
	if c.api == APIResponses {
		return c.completeResponses(ctx, req)
	}
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
		return provider.Response{}, c.explain(req.Model, c.mapError(ctx, err, raw))
	}
	return c.newResponse(req.Model, completion)
}

// Model asks the models endpoint about a model (GET {base}/models/{model}): whether the key may
// use it, and its shutdown_date when OpenAI has announced one
// (https://developers.openai.com/api/docs/deprecations), which makes it deprecated. OpenAI's
// answer says nothing of limits. Errors are typed as Complete's are: a model that does not
// exist is a BadRequestError with status 404, and so is a server without the endpoint.
func (c *Client) Model(ctx context.Context, id string) (provider.ModelInfo, error) {
	var raw *http.Response
	m, err := c.models.Get(ctx, id, option.WithResponseInto(&raw))
	if err != nil {
		return provider.ModelInfo{}, c.explain(id, c.mapError(ctx, err, raw))
	}
	info := provider.ModelInfo{ID: m.ID}
	var lifecycle struct {
		Shutdown string `json:"shutdown_date"`
	}
	if json.Unmarshal([]byte(m.RawJSON()), &lifecycle) == nil && lifecycle.Shutdown != "" {
		if t, err := time.Parse(time.DateOnly, lifecycle.Shutdown); err == nil {
			info.Lifecycle, info.RetiresAt = "deprecated", t
		}
	}
	return info, nil
}

// knownModels says which GPT-6 models hold function tools to their reasoning effort.
var knownModels = openaiapi.KnownModels()

// responsesHint says how to reach a model that calls tools only through the Responses API.
const responsesHint = "leave COUNCIL_OPENAI_API unset (api.openai.com gets the Responses API) or set it to responses, and openai_api: responses in .council.yaml if it names chat"

// toolRules applies, on OpenAI's own endpoint, the rules GPT-6 models set for function tools
// on Chat Completions (openaiapi.Model's flags cite the pages). A model that calls tools only
// through the Responses API is refused before anything is sent; one that calls them only with
// reasoning_effort "none" gets it, which turns its reasoning off (the output limit stays
// max_completion_tokens, which OpenAI's endpoint takes for every model). A compatible server
// serving a model by the same name keeps its own rules.
func (c *Client) toolRules(req provider.Request, p *sdk.ChatCompletionNewParams) error {
	if !c.official || len(req.Tools) == 0 {
		return nil
	}
	m, _ := knownModels.Lookup(req.Model)
	switch {
	case m.ToolsNeedResponses:
		return &provider.BadRequestError{Provider: c.name, Hint: responsesHint,
			Msg: fmt.Sprintf("%s calls tools only through OpenAI's Responses API, and council was told to use Chat Completions", req.Model)}
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
	system, err := systemText(req.System)
	if err != nil {
		return p, err
	}
	if system != "" {
		// One system message: several, or content parts, are not understood by every
		// compatible server.
		p.Messages = append(p.Messages, sdk.SystemMessage(system))
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
		if fn.Parameters, err = parameters(t); err != nil {
			return p, err
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

// systemText joins the system blocks with a blank line.
func systemText(blocks []provider.Block) (string, error) {
	texts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b.Type != provider.Text {
			return "", fmt.Errorf("system block of type %q: only text is allowed", b.Type)
		}
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "\n\n"), nil
}

// parameters is a tool's input schema as the SDK's parameters map, nil for a tool without one.
// The values stay raw, which the SDK's encoder writes as they are: decoded into Go values, a
// number would become a json.Number, which it writes as a string, and the service refuses a
// schema that is no longer valid JSON Schema.
func parameters(t provider.Tool) (map[string]any, error) {
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t.InputSchema, &m); err != nil || m == nil {
		return nil, fmt.Errorf("tool %s: input schema is not a JSON object", t.Name)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out, nil
}

// resultText is a tool result as the model reads it. Neither API has an error flag on a
// tool's output: a refused call's result says so in its first word.
func resultText(b provider.Block) string {
	if b.IsError {
		return "error: " + b.Text
	}
	return b.Text
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
			out = append(out, sdk.ToolMessage(resultText(b), b.ToolUseID))
		case provider.ToolUse:
			if m.Role != provider.Assistant {
				return nil, fmt.Errorf("tool use in a %s message", m.Role)
			}
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.ToolUseID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: callArguments(b.Input)},
				},
			})
		case provider.Thinking, provider.RedactedThinking, provider.Reasoning:
			// Anthropic's, and the Responses API's; a conversation never carries them to Chat
			// Completions.
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

// callArguments is a call's arguments as they go back to the API: the JSON as it came, "{}"
// for none.
func callArguments(input json.RawMessage) string {
	if args := string(bytes.TrimSpace(input)); args != "" {
		return args
	}
	return "{}"
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
	case status == http.StatusForbidden && code == "model_not_found":
		// The key is fine: its project may not use the model (explain says what to do).
		return &provider.BadRequestError{Provider: c.name, Status: status, Type: code, Msg: msg}
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

// explain says what to do about the refusals whose remedy council knows: a model the key's
// project may not use, a model past its shutdown date, a compatible server without
// the Responses API, and a model without tools.
func (c *Client) explain(model string, err error) error {
	var bad *provider.BadRequestError
	if !errors.As(err, &bad) {
		return err
	}
	known, _ := knownModels.Lookup(model)
	switch {
	case bad.Status == http.StatusForbidden:
		bad.Hint = fmt.Sprintf("the API key's project may not use %s: allow it in the project's model settings on platform.openai.com, or name another model with --model or model: in .council.yaml", model)
	case bad.Status == http.StatusNotFound && c.official && known.Shutdown != "":
		bad.Hint = fmt.Sprintf("OpenAI shuts %s down on %s (https://developers.openai.com/api/docs/deprecations): name a current model, such as %s, with --model or model: in .council.yaml", model, known.Shutdown, currentModel)
	case bad.Status == http.StatusNotFound && c.api == APIResponses && !c.official && bad.Type != "model_not_found" && !strings.Contains(bad.Msg, model):
		bad.Hint = fmt.Sprintf("the server has no Responses API (POST %s/responses): set COUNCIL_OPENAI_API=chat, or openai_api: chat in .council.yaml", c.base)
	case c.api == APIChat && strings.Contains(bad.Msg, "use /v1/responses"):
		// A gateway passing on OpenAI's refusal of tools on Chat Completions.
		bad.Hint = "the model calls tools only through the Responses API: set COUNCIL_OPENAI_API=responses, or openai_api: responses in .council.yaml"
	case strings.Contains(bad.Msg, "does not support tools"):
		bad.Hint = "the model cannot call tools, which every review needs: name one that can with --model or model: in .council.yaml"
	}
	return err
}

// currentModel is the model the hints name: council's default OpenAI model (config.DefaultModel;
// a test holds the two together).
const currentModel = "gpt-6.2-sol"

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
