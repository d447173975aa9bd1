// Package openaitest is a fake of OpenAI's Chat Completions API (POST {base}/chat/completions)
// and Responses API (POST {base}/responses) on a loopback httptest server, for tests of any
// package that talks to OpenAI or an OpenAI-compatible server. It enforces the services' rules
// (openaiapi: bearer authentication unless built without it, like Ollama; the shape of a
// request; tool-call pairing by id; max_tokens refused by reasoning models; function tools
// refused on the GPT-6 models that take them only through the Responses API or only with
// reasoning_effort "none"; strict function schemas; reasoning items sent back with their
// encrypted content, which it signs and verifies) with OpenAI's error bodies, answers what a
// test scripts, sends 429s with retry-after and x-ratelimit-* headers, and reports automatic
// prefix caching in the usage. It can play a compatible server that has no Responses API, a key
// without access to a model, and a model that refuses tools.
//
// It must never import the OpenAI SDK: tests of other packages use it without compiling the
// SDK, and a fake written from the wire format checks the client's encoding instead of sharing
// its assumptions.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/council-dev/council/internal/provider/openai/openaiapi"
)

// DefaultAPIKey is the key a Server accepts unless WithAPIKey says otherwise.
const DefaultAPIKey = "sk-test-fake-openai-0000000000" //nolint:gosec // a fake key the fake accepts, never a real one

// BasePath is where the fake serves, as OpenAI serves under /v1: a client that drops or
// doubles the base URL's path misses it.
const BasePath = "/v1"

// Caching as OpenAI does it: prompts from 1024 tokens, hits in 128-token steps beyond that.
const (
	minCacheTokens  = 1024
	cacheIncrements = 128
)

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give the client, ending in /v1.
	URL string
	// APIKey is the only key accepted; empty when the server takes no authentication.
	APIKey string

	mu          sync.Mutex
	respond     func(Request) Reply
	respondResp func(ResponsesRequest) Reply
	noAuth      bool
	noCache     bool
	noResponses bool
	noAccess    map[string]bool // models the key may not use
	noTools     map[string]bool // models that refuse tools, as Ollama's do
	models      openaiapi.Models
	calls       int
	paths       []string
	requests    []Request
	respReqs    []ResponsesRequest
	prompts     map[string][]string // model (and prompt_cache_key) → prompts seen, for prefix caching
	ids         int
	secret      []byte // seals the encrypted content of the reasoning items it issues
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey sets the key the server accepts.
func WithAPIKey(key string) Option { return func(s *Server) { s.APIKey = key } }

// WithNoAuth makes a server that ignores the Authorization header, as Ollama, vLLM and
// llama.cpp do by default.
func WithNoAuth() Option { return func(s *Server) { s.noAuth = true; s.APIKey = "" } }

// WithModel adds a model the server serves, or changes what it knows of one: maxOutput is the
// model's output limit (0: unchecked). Without it the server serves the models of
// openaiapi.KnownModels, and answers any other name with the service's 404.
func WithModel(name string, maxOutput int) Option {
	return func(s *Server) { s.models[name] = openaiapi.Model{MaxOutput: maxOutput} }
}

// WithoutPromptCache makes a server that reports no cached tokens, as compatible servers that
// do not cache prompts (or do not say) answer.
func WithoutPromptCache() Option { return func(s *Server) { s.noCache = true } }

// WithRespond sets the function that scripts each answer on Chat Completions.
func WithRespond(f func(Request) Reply) Option { return func(s *Server) { s.respond = f } }

// WithResponsesRespond sets the function that scripts each answer on the Responses API.
func WithResponsesRespond(f func(ResponsesRequest) Reply) Option {
	return func(s *Server) { s.respondResp = f }
}

// WithoutResponsesAPI makes a compatible server that serves Chat Completions only: POST
// {base}/responses is answered 404, as by any path the server does not know.
func WithoutResponsesAPI() Option { return func(s *Server) { s.noResponses = true } }

// WithoutModel removes a model from what the server serves: requests to it get the 404 of an
// unknown model, as a model past its shutdown date does.
func WithoutModel(name string) Option { return func(s *Server) { delete(s.models, name) } }

// WithoutAccess makes the key one whose project may not use model: the service answers 403
// model_not_found ("Project `proj_…` does not have access to model `…`", observed:
// https://github.com/cursor/cursor/issues/2953, https://github.com/continuedev/continue/issues/10120).
func WithoutAccess(model string) Option { return func(s *Server) { s.noAccess[model] = true } }

// WithoutTools makes model one that refuses tools, as Ollama answers for a model whose
// template has none: 400 `registry.ollama.ai/library/<model> does not support tools`, type
// api_error (observed: https://github.com/ollama/ollama/issues/5793,
// https://github.com/louisho5/picobot/issues/6).
func WithoutTools(model string) Option { return func(s *Server) { s.noTools[model] = true } }

// New starts a fake closed when the test ends. Without WithRespond it answers "ok", or, when
// tool_choice forces a function, calls it with "{}"; with tool_choice "required" it calls the
// first function tool.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{APIKey: DefaultAPIKey, respond: defaultRespond, respondResp: defaultResponsesRespond,
		prompts: map[string][]string{}, models: openaiapi.KnownModels(),
		noAccess: map[string]bool{}, noTools: map[string]bool{}, secret: []byte(t.Name())}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+BasePath+"/chat/completions", s.chat)
	if !s.noResponses {
		mux.HandleFunc("POST "+BasePath+"/responses", s.responses)
	}
	mux.HandleFunc("GET "+BasePath+"/models/{model...}", s.model)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		writeError(w, http.StatusNotFound, apiError{
			Message: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path),
			Type:    "invalid_request_error",
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + BasePath
	return s
}

// SetRespond replaces the function that scripts each answer.
func (s *Server) SetRespond(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// SetResponsesRespond replaces the function that scripts each answer on the Responses API.
func (s *Server) SetResponsesRespond(f func(ResponsesRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respondResp = f
}

// Calls counts the requests received, refused ones and unknown paths included.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Paths lists "METHOD path" of every request received, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

func (s *Server) record(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
}

// Requests returns the Chat Completions requests received so far whose body decoded, refused
// ones included, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ResponsesRequests returns the Responses requests received so far whose body decoded,
// refused ones included, in order.
func (s *Server) ResponsesRequests() []ResponsesRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ResponsesRequest(nil), s.respReqs...)
}

func defaultRespond(req Request) Reply {
	if name := req.ForcedFunction(); name != "" {
		return ToolReply(name, "{}")
	}
	if req.ToolRequired() {
		for _, t := range req.Tools {
			if t.Type == "function" {
				return ToolReply(t.Function.Name, "{}")
			}
		}
	}
	return TextReply("ok")
}

// The request's types are the API package's: the fake reads a request as the service does.
type (
	Request          = openaiapi.Request
	Message          = openaiapi.Message
	ToolCall         = openaiapi.ToolCall
	Tool             = openaiapi.Tool
	ResponsesRequest = openaiapi.ResponsesRequest
	ResponsesTool    = openaiapi.ResponsesTool
	Item             = openaiapi.Item
)

// Reply is a scripted answer: a text, tool calls, or an error status.
type Reply struct {
	Text string
	// ToolCall answers with a call of Name with Arguments, verbatim (they need not be JSON);
	// ToolCalls with more calls after it, made in parallel.
	ToolCall  *ReplyToolCall
	ToolCalls []ReplyToolCall
	// FinishReason is Chat Completions' (default stop, or tool_calls for a call); on the
	// Responses API, "length" makes the answer incomplete for max_output_tokens.
	FinishReason string

	// Status, when 400 or more, answers with OpenAI's error body.
	Status     int
	ErrorType  string // default from Status
	ErrorCode  string // default from Status: rate_limit_exceeded for 429
	ErrorMsg   string
	RetryAfter string      // the retry-after header, verbatim
	Header     http.Header // more response headers
	// Body, with Status, replaces the error body: the shapes other compatible servers use
	// ({"error": "..."}, {"object": "error", "message": ...}), or plain text.
	Body string

	// Usage replaces the computed usage.
	Usage *Usage
	// Delay holds the answer back, or until the client gives up.
	Delay time.Duration
}

// ReplyToolCall is a tool call of a Reply; ID defaults to a fresh call_ id.
type ReplyToolCall struct {
	ID        string
	Name      string
	Arguments string
}

func (r Reply) calls() []ReplyToolCall {
	if r.ToolCall == nil {
		return r.ToolCalls
	}
	return append([]ReplyToolCall{*r.ToolCall}, r.ToolCalls...)
}

// callID is the call's id: its own, else the answer's id and the call's place in it (the
// first call of answer 7 is call_fake0007, as it always was).
func (c ReplyToolCall) callID(answer, i int) string {
	switch {
	case c.ID != "":
		return c.ID
	case i == 0:
		return fmt.Sprintf("call_fake%04d", answer)
	}
	return fmt.Sprintf("call_fake%04d_%d", answer, i)
}

// Usage is the usage object of a response; on the Responses API PromptTokens is
// input_tokens and CompletionTokens output_tokens, which include the reasoning tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CachedTokens     int `json:"-"`
	CacheWriteTokens int `json:"-"` // Responses: input_tokens_details.cache_write_tokens
	ReasoningTokens  int `json:"-"` // Responses: output_tokens_details.reasoning_tokens
}

// TextReply answers text.
func TextReply(text string) Reply { return Reply{Text: text} }

// ToolReply answers a call of name with arguments.
func ToolReply(name, arguments string) Reply {
	return Reply{ToolCall: &ReplyToolCall{Name: name, Arguments: arguments}}
}

// ErrorReply answers status with OpenAI's error body and, when retryAfter is not empty, a
// retry-after header.
func ErrorReply(status int, retryAfter string) Reply {
	return Reply{Status: status, RetryAfter: retryAfter}
}

// apiError is OpenAI's error object, as the API package writes it.
type apiError = openaiapi.Error

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req Request
	var raw map[string]json.RawMessage
	if !s.receive(w, r, func(body []byte) (err error) {
		if req, raw, err = openaiapi.Decode(body); err == nil {
			req.Header = r.Header.Clone()
			s.requests = append(s.requests, req)
		}
		return err
	}) {
		return
	}
	if e := openaiapi.Check(raw, req, s.models); e != nil {
		writeError(w, e.Status, *e)
		return
	}
	if s.refused(w, req.Model, len(req.Tools) > 0, req.Stream) {
		return
	}
	s.mu.Lock()
	respond := s.respond
	s.mu.Unlock()
	reply := respond(req)
	if s.scripted(w, r, reply, req.Model) {
		s.answer(w, req, reply)
	}
}

// receive counts a request and decodes its body with decode, which keeps it for the test to
// look at (under s.mu), even one refused before the service would read its body; then it
// answers a missing or wrong key, and a body that is not JSON. It reports whether the caller
// goes on.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, decode func([]byte) error) bool {
	s.record(r)
	body, err := io.ReadAll(r.Body)
	if err == nil {
		s.mu.Lock()
		err = decode(body)
		s.mu.Unlock()
	}
	if e, ok := s.checkAuth(r.Header); !ok {
		writeError(w, http.StatusUnauthorized, e)
		return false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apiError{
			Message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
			Type:    "invalid_request_error",
		})
		return false
	}
	return true
}

// refused answers what the service refuses beyond the API's rules: a model the key may not
// use, tools to a model without them, and a stream, which this fake does not play.
func (s *Server) refused(w http.ResponseWriter, model string, tools, stream bool) bool {
	switch {
	case s.noAccess[model]:
		writeError(w, http.StatusForbidden, apiError{Type: "invalid_request_error", Code: ptr("model_not_found"),
			Message: fmt.Sprintf("Project `proj_fake0000` does not have access to model `%s`", model)})
	case tools && s.noTools[model]:
		writeError(w, http.StatusBadRequest, apiError{Type: "api_error", Message: "registry.ollama.ai/library/" + model + " does not support tools"})
	case stream:
		// Not a rule of the service: this fake only answers whole completions.
		writeError(w, http.StatusBadRequest, apiError{Message: "stream: this fake answers non-streaming requests only", Type: "invalid_request_error"})
	default:
		return false
	}
	return true
}

// scripted plays the scripted reply's delay, headers and error; it reports whether the caller
// should answer the reply's content.
func (s *Server) scripted(w http.ResponseWriter, r *http.Request, reply Reply, model string) bool {
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	h := w.Header()
	for k, vs := range reply.Header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if reply.RetryAfter != "" {
		h.Set("retry-after", reply.RetryAfter)
	}
	if reply.Status >= 400 && reply.Body != "" {
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.Body)
		return false
	}
	if reply.Status >= 400 {
		writeError(w, reply.Status, replyError(reply, model))
		return false
	}
	return true
}

func replyError(reply Reply, model string) apiError {
	e := apiError{Message: reply.ErrorMsg, Type: reply.ErrorType, Code: ptr(reply.ErrorCode)}
	switch reply.Status {
	case http.StatusTooManyRequests:
		if e.Type == "" {
			e.Type = "tokens"
		}
		if e.Code == nil {
			e.Code = ptr("rate_limit_exceeded")
		}
		if e.Message == "" {
			e.Message = fmt.Sprintf("Rate limit reached for %s in organization org-fake on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s.", model)
		}
	case http.StatusBadRequest, http.StatusNotFound:
		if e.Type == "" {
			e.Type = "invalid_request_error"
		}
	default:
		if e.Type == "" {
			e.Type = "server_error"
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(reply.Status)
	}
	return e
}

// model answers GET /models/{model} as OpenAI does
// (https://platform.openai.com/docs/api-reference/models/retrieve): the model object, or the
// 404 of a model the service does not serve.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	if e, ok := s.checkAuth(r.Header); !ok {
		writeError(w, http.StatusUnauthorized, e)
		return
	}
	id := r.PathValue("model")
	m, ok := s.models.Lookup(id)
	if !ok || s.noAccess[id] {
		writeError(w, http.StatusNotFound, *openaiapi.ModelNotFound(id))
		return
	}
	// shutdown_date: "YYYY-MM-DD", or null when none is announced
	// (https://developers.openai.com/api/docs/deprecations).
	var shutdown any
	if m.Shutdown != "" {
		shutdown = m.Shutdown
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "model", "created": 1744316542, "owned_by": "system", "shutdown_date": shutdown})
}

func (s *Server) checkAuth(h http.Header) (apiError, bool) {
	if s.noAuth {
		return apiError{}, true
	}
	key, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	switch {
	case !ok || key == "":
		return apiError{
			Message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
			Type:    "invalid_request_error",
		}, false
	case key != s.APIKey:
		return apiError{
			// The service shows the wrong key masked, which is still too much for a log.
			Message: fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.", mask(key)),
			Type:    "invalid_request_error",
			Code:    ptr("invalid_api_key"),
		}, false
	}
	return apiError{}, true
}

func mask(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:4] + strings.Repeat("*", len(key)-8) + key[len(key)-4:]
}

func (s *Server) answer(w http.ResponseWriter, req Request, reply Reply) {
	prompt := promptText(req)
	s.mu.Lock()
	s.ids++
	id := s.ids
	cached := s.cachedTokens(req.Model, prompt)
	s.mu.Unlock()

	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	finish := reply.FinishReason
	outChars := 0
	calls := reply.calls()
	if reply.Text != "" || len(calls) == 0 {
		msg["content"] = reply.Text
		outChars += utf8.RuneCountInString(reply.Text)
		if finish == "" {
			finish = "stop"
		}
	}
	if len(calls) > 0 {
		var out []map[string]any
		for i, tc := range calls {
			out = append(out, map[string]any{
				"id": tc.callID(id, i), "type": "function",
				"function": map[string]string{"name": tc.Name, "arguments": tc.Arguments},
			})
			outChars += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
		}
		msg["tool_calls"] = out
		if finish == "" {
			// As the service does: a call the request forced ends with "stop", one the model
			// chose with "tool_calls".
			finish = "tool_calls"
			if req.ForcedFunction() != "" {
				finish = "stop"
			}
		}
	}
	u := Usage{PromptTokens: tokens(utf8.RuneCountInString(prompt)), CompletionTokens: max(1, tokens(outChars)), CachedTokens: cached}
	if reply.Usage != nil {
		u = *reply.Usage
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	h := w.Header()
	h.Set("x-request-id", fmt.Sprintf("req_fake%04d", id))
	h.Set("x-ratelimit-limit-requests", "500")
	h.Set("x-ratelimit-remaining-requests", "499")
	writeJSON(w, http.StatusOK, map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-fake%04d", id),
		"object":             "chat.completion",
		"created":            time.Now().Unix(),
		"model":              req.Model,
		"system_fingerprint": "fp_fake",
		"service_tier":       "default",
		"choices": []map[string]any{{
			"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish,
		}},
		"usage": map[string]any{
			"prompt_tokens":     u.PromptTokens,
			"completion_tokens": u.CompletionTokens,
			"total_tokens":      u.TotalTokens,
			"prompt_tokens_details": map[string]int{
				"cached_tokens": u.CachedTokens, "audio_tokens": 0,
			},
			"completion_tokens_details": map[string]int{
				"reasoning_tokens": 0, "audio_tokens": 0,
				"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
			},
		},
	})
}

// tokens approximates a token count as ceil(chars/4); the service's tokenizer and its message
// framing differ, so counts from the fake are only consistent with each other.
func tokens(chars int) int { return (chars + 3) / 4 }

// promptText is the prompt in the order the service caches it: tools, then messages.
func promptText(req Request) string {
	var sb strings.Builder
	for _, t := range req.Tools {
		fmt.Fprintf(&sb, "tool\x00%s\x00%s\x00%s\x00", t.Function.Name, t.Function.Description, t.Function.Parameters)
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&sb, "%s\x00%s\x00", m.Role, m.Text())
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&sb, "call\x00%s\x00%s\x00%s\x00", c.ID, c.Function.Name, c.Function.Arguments)
		}
		if m.ToolCallID != "" {
			sb.WriteString(m.ToolCallID + "\x00")
		}
	}
	return sb.String()
}

// cachedTokens is OpenAI's automatic prefix caching: for a prompt of at least 1024 tokens, the
// longest prefix it shares with an earlier prompt to the same model, counted in whole tokens
// and rounded down to 1024 plus a multiple of 128. The prompt is then remembered. The caller
// holds s.mu.
func (s *Server) cachedTokens(model, prompt string) int {
	if s.noCache {
		return 0
	}
	seen := s.prompts[model]
	s.prompts[model] = append(seen, prompt)
	if tokens(utf8.RuneCountInString(prompt)) < minCacheTokens {
		return 0
	}
	best := 0
	for _, p := range seen {
		best = max(best, commonPrefix(p, prompt))
	}
	shared := best / 4 // whole tokens only
	if shared < minCacheTokens {
		return 0
	}
	return minCacheTokens + (shared-minCacheTokens)/cacheIncrements*cacheIncrements
}

// commonPrefix counts the characters a and b start with.
func commonPrefix(a, b string) int {
	n := 0
	for len(a) > 0 && len(b) > 0 {
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb {
			break
		}
		a, b = a[sa:], b[sb:]
		n++
	}
	return n
}

func writeError(w http.ResponseWriter, status int, e apiError) {
	if status == http.StatusTooManyRequests {
		h := w.Header()
		h.Set("x-ratelimit-limit-requests", "500")
		h.Set("x-ratelimit-remaining-requests", "499")
		h.Set("x-ratelimit-reset-requests", "120ms")
		h.Set("x-ratelimit-limit-tokens", "30000")
		h.Set("x-ratelimit-remaining-tokens", "0")
		h.Set("x-ratelimit-reset-tokens", "2.4s")
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
