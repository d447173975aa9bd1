// Package openaitest is a fake of OpenAI's Chat Completions API (POST {base}/chat/completions)
// on a loopback httptest server, for tests of any package that talks to OpenAI or an
// OpenAI-compatible server. It enforces the service's rules (bearer authentication unless
// built without it, like Ollama; the shape of a request; tool-call pairing; max_tokens refused
// by reasoning models; function tools refused on the GPT-6 models that take them only through
// the Responses API or only with reasoning_effort "none") with OpenAI's error bodies, answers what a test scripts, sends 429s with
// retry-after and x-ratelimit-* headers, and reports automatic prefix caching in
// usage.prompt_tokens_details.cached_tokens.
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

	mu       sync.Mutex
	respond  func(Request) Reply
	noAuth   bool
	noCache  bool
	models   openaiapi.Models
	calls    int
	requests []Request
	prompts  map[string][]string // model → prompts seen, for prefix caching
	ids      int
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

// WithRespond sets the function that scripts each answer.
func WithRespond(f func(Request) Reply) Option { return func(s *Server) { s.respond = f } }

// New starts a fake closed when the test ends. Without WithRespond it answers "ok", or, when
// tool_choice forces a function, calls it with "{}"; with tool_choice "required" it calls the
// first function tool.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{APIKey: DefaultAPIKey, respond: defaultRespond, prompts: map[string][]string{}, models: openaiapi.KnownModels()}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+BasePath+"/chat/completions", s.chat)
	mux.HandleFunc("GET "+BasePath+"/models/{model...}", s.model)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
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

// Calls counts the requests received on /chat/completions, refused ones included.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Requests returns the requests received so far whose body decoded, refused ones included, in
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
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
	Request  = openaiapi.Request
	Message  = openaiapi.Message
	ToolCall = openaiapi.ToolCall
	Tool     = openaiapi.Tool
)

// Reply is a scripted answer: a text, a tool call, or an error status.
type Reply struct {
	Text string
	// ToolCall answers with a call of Name with Arguments, verbatim (they need not be JSON).
	ToolCall     *ReplyToolCall
	FinishReason string // default stop, or tool_calls for a call

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

// ReplyToolCall is the tool call of a Reply; ID defaults to a fresh call_ id.
type ReplyToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the usage object of a response.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CachedTokens     int `json:"-"`
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
	// Every request is decoded and kept for the test to look at, even one refused before the
	// service would read its body.
	body, readErr := io.ReadAll(r.Body)
	req, raw, decodeErr := openaiapi.Decode(body)
	if readErr != nil {
		decodeErr = readErr
	}
	req.Header = r.Header.Clone()
	s.mu.Lock()
	s.calls++
	if decodeErr == nil {
		s.requests = append(s.requests, req)
	}
	respond := s.respond
	s.mu.Unlock()

	if e, ok := s.checkAuth(r.Header); !ok {
		writeError(w, http.StatusUnauthorized, e)
		return
	}
	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, apiError{
			Message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
			Type:    "invalid_request_error",
		})
		return
	}

	if e := openaiapi.Check(raw, req, s.models); e != nil {
		writeError(w, e.Status, *e)
		return
	}
	if req.Stream {
		// Not a rule of the service: this fake only answers whole completions.
		writeError(w, http.StatusBadRequest, apiError{Message: "stream: this fake answers non-streaming requests only", Type: "invalid_request_error"})
		return
	}

	reply := respond(req)
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
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
		return
	}
	if reply.Status >= 400 {
		writeError(w, reply.Status, replyError(reply, req.Model))
		return
	}
	s.answer(w, req, reply)
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
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	if e, ok := s.checkAuth(r.Header); !ok {
		writeError(w, http.StatusUnauthorized, e)
		return
	}
	id := r.PathValue("model")
	if _, ok := s.models.Lookup(id); !ok {
		writeError(w, http.StatusNotFound, apiError{Type: "invalid_request_error", Code: ptr("model_not_found"),
			Message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", id)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "model", "created": 1744316542, "owned_by": "system"})
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
	if reply.Text != "" || reply.ToolCall == nil {
		msg["content"] = reply.Text
		outChars += utf8.RuneCountInString(reply.Text)
		if finish == "" {
			finish = "stop"
		}
	}
	if tc := reply.ToolCall; tc != nil {
		cid := tc.ID
		if cid == "" {
			cid = fmt.Sprintf("call_fake%04d", id)
		}
		msg["tool_calls"] = []map[string]any{{
			"id": cid, "type": "function",
			"function": map[string]string{"name": tc.Name, "arguments": tc.Arguments},
		}}
		outChars += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
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
