// Package anthropic is the provider.Client for Anthropic's Messages API, on the official SDK.
// It is the only package that imports the Anthropic SDK. It maps the neutral request onto the
// API (cache_control breakpoints, tools, forced or required tool choice, or on the models that
// refuse forcing a plain request to call the tool), the answer and its usage back (thinking
// blocks included, to go back unchanged with the turn), and the API's errors onto provider's
// typed errors. It never retries (provider.WithRetry does) and never reads the environment:
// the caller passes the key and base URL.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/anthropic/anthropicapi"
)

// Name is the provider's name in errors and recorded exchanges.
const Name = "anthropic"

// DefaultTimeout bounds one attempt when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Minute

// Options configures a Client.
type Options struct {
	APIKey string
	// BaseURL replaces https://api.anthropic.com (a proxy, a gateway, a test fake).
	BaseURL    string
	HTTPClient *http.Client
	// Timeout bounds one attempt; DefaultTimeout when zero.
	Timeout time.Duration
	// KeyEnv names where the key came from, for error messages; default ANTHROPIC_API_KEY.
	KeyEnv string
}

// Client sends requests to the Messages API.
type Client struct {
	msgs   sdk.MessageService
	models sdk.ModelService
	key    string
	keyEnv string
}

var _ provider.Client = (*Client)(nil)

// New returns a Client. The SDK's environment defaults are switched off: an empty APIKey sends
// no key at all (the service answers 401), rather than one the SDK found in ANTHROPIC_API_KEY,
// ANTHROPIC_AUTH_TOKEN or a profile on disk; ANTHROPIC_BASE_URL and ANTHROPIC_CUSTOM_HEADERS
// are ignored too. The SDK's own retries are off.
func New(o Options) *Client {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
		// Also keeps the SDK from refusing a non-streaming call whose max_tokens it thinks
		// could take over ten minutes: it only checks when no timeout is set.
		option.WithRequestTimeout(timeout),
		// Prompts hold the code under review: no spans to whatever tracer the process has.
		option.WithoutOpenTelemetry(),
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	keyEnv := o.KeyEnv
	if keyEnv == "" {
		keyEnv = "ANTHROPIC_API_KEY"
	}
	c := sdk.NewClient(opts...)
	return &Client{msgs: c.Messages, models: c.Models, key: o.APIKey, keyEnv: keyEnv}
}

// Complete sends req and returns the answer, or a typed error from provider.
func (c *Client) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	params, err := newParams(req)
	if err != nil {
		return provider.Response{}, &provider.BadRequestError{Provider: Name, Msg: err.Error()}
	}
	msg, err := c.msgs.New(ctx, params)
	if err != nil {
		return provider.Response{}, retired(req.Model, c.mapError(ctx, err))
	}
	return newResponse(req.Model, msg), nil
}

// retired says, on the service's 404 for a model it has retired, that it is retired.
func retired(model string, err error) error {
	var bad *provider.BadRequestError
	if m, ok := knownModels.Lookup(model); ok && m.Retired && errors.As(err, &bad) && bad.Status == http.StatusNotFound {
		bad.Hint = "Anthropic has retired " + model + ": name a current model with --model or model: in .council.yaml (https://platform.claude.com/docs/en/about-claude/model-deprecations names its replacement)"
	}
	return err
}

// Model asks the Models API about a model (GET /v1/models/{model_id}): whether the key may use
// it, its output limit and its lifecycle. Errors are typed as Complete's are: a model that does
// not exist is a BadRequestError with status 404.
func (c *Client) Model(ctx context.Context, id string) (provider.ModelInfo, error) {
	m, err := c.models.Get(ctx, id, sdk.ModelGetParams{})
	if err != nil {
		return provider.ModelInfo{}, retired(id, c.mapError(ctx, err))
	}
	return provider.ModelInfo{ID: m.ID, MaxOutput: int(m.MaxTokens), Lifecycle: string(m.Lifecycle), RetiresAt: m.RetiresAt}, nil
}

// knownModels says which models refuse a forced tool_choice, and which are retired.
var knownModels = anthropicapi.KnownModels()

func newParams(req provider.Request) (sdk.MessageNewParams, error) {
	known, _ := knownModels.Lookup(req.Model)
	p := sdk.MessageNewParams{
		Model: sdk.Model(req.Model),
		// req.MaxTokens is the answer's budget; a model that thinks by default gets room for
		// its thinking on top.
		MaxTokens: int64(provider.WithThinkingRoom(req.Model, req.MaxTokens, known.MaxTokens)),
	}
	for _, b := range req.System {
		if b.Type != provider.Text {
			return p, fmt.Errorf("system block of type %q: only text is allowed", b.Type)
		}
		tb := sdk.TextBlockParam{Text: b.Text}
		if b.Cache {
			tb.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		p.System = append(p.System, tb)
	}
	for i, m := range req.Messages {
		blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Content))
		for _, b := range m.Content {
			// A model's answer often has whitespace before its tool calls; sent back in a later
			// turn, the API refuses a text block without other text, and it says nothing.
			if m.Role == provider.Assistant && b.Type == provider.Text && strings.TrimSpace(b.Text) == "" && len(m.Content) > 1 {
				continue
			}
			cb, err := newBlock(b)
			if err != nil {
				return p, fmt.Errorf("message %d: %w", i, err)
			}
			blocks = append(blocks, cb)
		}
		switch m.Role {
		case provider.User:
			p.Messages = append(p.Messages, sdk.NewUserMessage(blocks...))
		case provider.Assistant:
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := newSchema(t.InputSchema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	// A model that refuses forcing (400) gets auto tool choice, sent as no tool_choice at all.
	// A model council does not know (a gateway's, a local one's name) is forced as before.
	if known.NoForcedTool {
		if n := len(req.Messages); req.ToolName != "" && n > 0 && req.Messages[n-1].Role == provider.User && !asks(req.Messages[n-1], req.ToolName) {
			// Added after the turn's blocks, so that no cache_control mark moves.
			last := p.Messages[len(p.Messages)-1].OfUser
			last.Content = append(last.Content, sdk.NewTextBlock(provider.AskTool(req.ToolName)))
		}
		return p, nil
	}
	switch {
	case req.ToolName != "":
		p.ToolChoice = sdk.ToolChoiceParamOfTool(req.ToolName)
	case req.RequireTool:
		// Sent even without tools: the service refuses "any" then, which says more about
		// the caller's mistake than a request quietly sent without the requirement.
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
	}
	return p, nil
}

// asks reports whether m already ends by asking for a call of tool (provider.AskTool).
func asks(m provider.Message, tool string) bool {
	n := len(m.Content)
	return n > 0 && m.Content[n-1].Type == provider.Text && m.Content[n-1].Text == provider.AskTool(tool)
}

func newBlock(b provider.Block) (sdk.ContentBlockParamUnion, error) {
	var cc sdk.CacheControlEphemeralParam
	if b.Cache {
		cc = sdk.NewCacheControlEphemeralParam()
	}
	switch b.Type {
	case provider.Text:
		return sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: b.Text, CacheControl: cc}}, nil
	case provider.ToolUse:
		input := b.Input
		if len(bytes.TrimSpace(input)) == 0 {
			input = json.RawMessage("{}")
		}
		return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
			ID: b.ToolUseID, Name: b.Name, Input: input, CacheControl: cc,
		}}, nil
	case provider.Thinking:
		// Sent back exactly as it came: the service checks its signature.
		return sdk.NewThinkingBlock(b.Signature, b.Text), nil
	case provider.RedactedThinking:
		return sdk.NewRedactedThinkingBlock(b.Data), nil
	case provider.ToolResult:
		tr := &sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID, CacheControl: cc}
		if b.Text != "" {
			// The API refuses an empty text block; an empty result is sent without content.
			tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: b.Text}}}
		}
		if b.IsError {
			tr.IsError = sdk.Bool(true)
		}
		return sdk.ContentBlockParamUnion{OfToolResult: tr}, nil
	default:
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("unknown block type %q", b.Type)
	}
}

// newSchema splits a JSON Schema object into the SDK's typed fields and the rest. Every value
// goes to the SDK as raw JSON, which its encoder writes as it is: decoded into Go values, a
// number would become a json.Number, which the encoder writes as a string, and the API refuses
// the whole request because the schema is no longer valid JSON Schema.
func newSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	// An all-zero schema param is left out of the request (omitzero), and the API requires
	// input_schema: a tool without arguments is sent with empty properties.
	s := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	if len(bytes.TrimSpace(raw)) == 0 {
		return s, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return s, fmt.Errorf("input schema is not a JSON object")
	}
	if t, ok := m["type"]; ok {
		var typ string
		if json.Unmarshal(t, &typ) != nil || typ != "object" {
			return s, fmt.Errorf("input schema has type %s, want \"object\"", t)
		}
		delete(m, "type") // the SDK always sends "object"
	}
	if props, ok := m["properties"]; ok {
		s.Properties = props
		delete(m, "properties")
	}
	if req, ok := m["required"]; ok {
		if err := json.Unmarshal(req, &s.Required); err != nil {
			return s, fmt.Errorf("input schema: required is %s, want a list of property names", req)
		}
		delete(m, "required")
	}
	if len(m) > 0 {
		s.ExtraFields = make(map[string]any, len(m))
		for k, v := range m {
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

func newResponse(model string, msg *sdk.Message) provider.Response {
	resp := provider.Response{
		Model:      string(msg.Model),
		StopReason: string(msg.StopReason),
		Usage: provider.Usage{
			Requests:         1,
			InputTokens:      msg.Usage.InputTokens,
			OutputTokens:     msg.Usage.OutputTokens,
			CacheReadTokens:  msg.Usage.CacheReadInputTokens,
			CacheWriteTokens: msg.Usage.CacheCreationInputTokens,
		},
	}
	if resp.Model == "" {
		resp.Model = model
	}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			resp.Content = append(resp.Content, provider.Block{Type: provider.Text, Text: b.Text})
		case "tool_use":
			input := append(json.RawMessage(nil), b.Input...)
			resp.Content = append(resp.Content, provider.Block{Type: provider.ToolUse, ToolUseID: b.ID, Name: b.Name, Input: input})
		case "thinking":
			// Kept for the next turn of a tool conversation, which must send it back unchanged
			// (https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows).
			resp.Content = append(resp.Content, provider.Block{Type: provider.Thinking, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			resp.Content = append(resp.Content, provider.Block{Type: provider.RedactedThinking, Data: b.Data})
		}
		// Server-tool blocks are not part of the neutral answer.
	}
	return resp
}

// mapError turns an SDK error into provider's typed errors. The caller's cancellation or
// deadline comes back as the context's error; an attempt that ran out of its own time is a
// TimeoutError.
func (c *Client) mapError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", Name, ctxErr)
	}
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return provider.WrapTransport(Name, err)
	}
	typ := string(apiErr.Type())
	text := apiErr.Message
	if text == "" {
		// Not the API's error shape (a proxy's HTML page, say): its body is the explanation.
		text = apiErr.RawJSON()
	}
	text = provider.Redact(text, c.key)
	msg := text
	if typ != "" {
		msg = typ + ": " + text
	}
	var retryAfter time.Duration
	if apiErr.Response != nil {
		retryAfter = provider.ParseRetryAfter(apiErr.Response.Header)
	}
	status := apiErr.StatusCode
	switch {
	case typ == "overloaded_error" || status == 529 || status == http.StatusServiceUnavailable:
		return &provider.OverloadedError{Provider: Name, Status: status, RetryAfter: retryAfter, Msg: msg}
	case status == http.StatusTooManyRequests || typ == "rate_limit_error":
		return &provider.RateLimitError{Provider: Name, RetryAfter: retryAfter, Msg: msg}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &provider.AuthError{Provider: Name, Status: status, Msg: msg, KeyEnv: c.keyEnv}
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return &provider.TimeoutError{Provider: Name, Err: errors.New(msg)}
	case status >= 500:
		return &provider.ServerError{Provider: Name, Status: status, RetryAfter: retryAfter, Msg: msg}
	default:
		return &provider.BadRequestError{Provider: Name, Status: status, Type: typ, Msg: text}
	}
}
