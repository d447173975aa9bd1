// Package anthropictest is a fake of the Anthropic Messages API (POST /v1/messages) on a
// loopback httptest server, for tests of any package that talks to Anthropic. It enforces the
// rules the real service enforces (authentication, the anthropic-version header, the shape of
// a request, tool and cache_control rules) with the real error bodies, answers what a test
// scripts, and accounts prompt-cache tokens the way the service does.
//
// It must never import the Anthropic SDK: tests of other packages use it without compiling
// the SDK, and a fake written from the wire format checks the client's encoding instead of
// sharing its assumptions.
package anthropictest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
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

	"github.com/council-dev/council/internal/provider/anthropic/anthropicapi"
)

// DefaultAPIKey is the key a Server accepts unless WithAPIKey says otherwise.
const DefaultAPIKey = "sk-ant-test-fake-0000000000" //nolint:gosec // a fake key the fake accepts, never a real one

// DefaultMinCacheTokens is the shortest prefix the service caches (Claude Sonnet and Opus 4;
// some models need 2048 or 4096).
const DefaultMinCacheTokens = 1024

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give the client (the API's is https://api.anthropic.com).
	URL string
	// APIKey is the only key the server accepts.
	APIKey string

	mu             sync.Mutex
	respond        func(Request) Reply
	minCacheTokens int
	models         anthropicapi.Models
	calls          int
	requests       []Request
	cached         map[[32]byte]bool // prefixes written to the prompt cache
	ids            int
	secret         []byte // seals the thinking blocks this server issues
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey sets the key the server accepts.
func WithAPIKey(key string) Option { return func(s *Server) { s.APIKey = key } }

// WithRespond sets the function that scripts each answer.
func WithRespond(f func(Request) Reply) Option { return func(s *Server) { s.respond = f } }

// WithModel adds a model the server serves, or changes what it knows of one: maxTokens is
// the model's output limit (0: unchecked). Without it the server serves the models of
// anthropicapi.KnownModels, and answers any other name with the service's 404.
func WithModel(name string, maxTokens int) Option {
	return func(s *Server) { s.models[name] = anthropicapi.Model{MaxTokens: maxTokens} }
}

// WithMinCacheTokens sets the shortest prefix that is cached.
func WithMinCacheTokens(n int) Option { return func(s *Server) { s.minCacheTokens = n } }

// New starts a fake closed when the test ends. Without WithRespond it answers "ok", or, when
// tool_choice forces a tool, calls it with an empty input; with tool_choice "any" it calls the
// first client tool. On a model that cannot be forced (anthropicapi.Model.NoForcedTool), a
// request with tools is answered with a call of the tool its last user turn asks for, else of
// the first client tool (anthropicapi.DefaultTool).
//
// On a model that thinks by default (anthropicapi.Model.Thinks), every answer but the call of
// a forced tool begins with a thinking block as the service sends it at the default display:
// empty text and a signature, which this server checks when the block comes back.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // never fails (crypto/rand)
	s := &Server{
		APIKey:         DefaultAPIKey,
		minCacheTokens: DefaultMinCacheTokens,
		cached:         map[[32]byte]bool{},
		models:         anthropicapi.KnownModels(),
		secret:         secret,
	}
	s.respond = s.defaultRespond
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("GET /v1/models/{id}", s.model)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("Not Found: %s %s", r.Method, r.URL.Path))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// SetRespond replaces the function that scripts each answer.
func (s *Server) SetRespond(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// Calls counts the requests received on /v1/messages, refused ones included.
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

// defaultRespond answers as New says. s.models is not changed after New: no lock.
func (s *Server) defaultRespond(req Request) Reply {
	m, _ := s.models.Lookup(req.Model)
	if name := anthropicapi.DefaultTool(req, m); name != "" {
		return ToolReply(name, map[string]any{})
	}
	return TextReply("ok")
}

// ToolAsked is the tool req must be answered with a call of: the one tool_choice forces, or,
// on a model that cannot be forced, the one the last user turn asks for; "" when neither. A
// scripted answer (WithRespond) uses it to play a model that does as it is told on every model.
func ToolAsked(req Request) string {
	if req.ToolChoice != nil && req.ToolChoice.Type == "tool" {
		return req.ToolChoice.Name
	}
	return anthropicapi.AskedTool(req)
}

// The request's types are the API package's: the fake reads a request as the service does.
type (
	Request      = anthropicapi.Request
	Message      = anthropicapi.Message
	Blocks       = anthropicapi.Blocks
	Block        = anthropicapi.Block
	Tool         = anthropicapi.Tool
	ToolChoice   = anthropicapi.ToolChoice
	CacheControl = anthropicapi.CacheControl
)

// Reply is a scripted answer: a text, a tool call, or an error status.
type Reply struct {
	Text       string
	ToolUse    *ToolUse
	StopReason string // default end_turn, or tool_use for a tool call

	// Status, when 400 or more, answers with the API's error body for that status.
	Status       int
	ErrorType    string // default from Status: rate_limit_error for 429, overloaded_error for 529...
	ErrorMessage string
	RetryAfter   string      // the retry-after header, verbatim
	Header       http.Header // more response headers
	// Body, with Status, replaces the error body (a proxy's HTML page, say).
	Body string

	// Usage replaces the computed usage.
	Usage *Usage
	// Delay holds the answer back, or until the client gives up.
	Delay time.Duration
}

// ToolUse is a tool call in a Reply; ID defaults to a fresh toolu_ id.
type ToolUse struct {
	ID    string
	Name  string
	Input any
}

// Usage is the usage object of a response.
type Usage struct {
	InputTokens              int    `json:"input_tokens"`
	CacheCreationInputTokens int    `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int    `json:"cache_read_input_tokens"`
	OutputTokens             int    `json:"output_tokens"`
	ServiceTier              string `json:"service_tier,omitempty"`
}

// TextReply answers text.
func TextReply(text string) Reply { return Reply{Text: text} }

// ToolReply answers a call of the tool name with input.
func ToolReply(name string, input any) Reply {
	return Reply{ToolUse: &ToolUse{Name: name, Input: input}}
}

// ErrorReply answers status with the API's error body for it and, when retryAfter is not
// empty, a retry-after header.
func ErrorReply(status int, retryAfter string) Reply {
	return Reply{Status: status, RetryAfter: retryAfter}
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	// Every request is decoded and kept for the test to look at, even one refused before the
	// service would read its body.
	body, readErr := io.ReadAll(r.Body)
	req, raw, decodeErr := anthropicapi.Decode(body)
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

	if msg := s.checkAuth(r.Header); msg != "" {
		writeError(w, http.StatusUnauthorized, "authentication_error", msg)
		return
	}
	if e := anthropicapi.CheckVersion(r.Header); e != nil {
		writeError(w, e.Status, e.Type, e.Message)
		return
	}
	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid request body: "+decodeErr.Error())
		return
	}
	if e := anthropicapi.Check(r.Header, raw, req, s.models); e != nil {
		writeError(w, e.Status, e.Type, e.Message)
		return
	}
	if e := s.checkSignatures(req); e != nil {
		writeError(w, e.Status, e.Type, e.Message)
		return
	}
	if req.Stream {
		// Not a rule of the service: this fake only answers whole messages.
		writeError(w, http.StatusBadRequest, "invalid_request_error", "stream: this fake answers non-streaming requests only")
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
		typ, msg := reply.ErrorType, reply.ErrorMessage
		if typ == "" {
			typ = errorType(reply.Status)
		}
		if msg == "" {
			msg = defaultMessage(typ)
		}
		if reply.Status == http.StatusTooManyRequests {
			h.Set("anthropic-ratelimit-requests-limit", "50")
			h.Set("anthropic-ratelimit-requests-remaining", "0")
		}
		writeError(w, reply.Status, typ, msg)
		return
	}
	s.answer(w, req, reply)
}

// model answers GET /v1/models/{id} as the Models API does
// (https://platform.claude.com/docs/en/api/models/retrieve): the model's id and limits, or the
// 404 of a model the service does not serve. A dated name is answered under the name asked.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	if msg := s.checkAuth(r.Header); msg != "" {
		writeError(w, http.StatusUnauthorized, "authentication_error", msg)
		return
	}
	if e := anthropicapi.CheckVersion(r.Header); e != nil {
		writeError(w, e.Status, e.Type, e.Message)
		return
	}
	id := r.PathValue("id")
	m, ok := s.models.Lookup(id)
	if !ok || m.Retired {
		writeError(w, http.StatusNotFound, "not_found_error", "model: "+id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"type": "model", "id": id, "display_name": id, "created_at": "2025-09-29T00:00:00Z",
		"max_tokens": m.MaxTokens, "max_input_tokens": 200000, "lifecycle": "active",
	})
}

func (s *Server) checkAuth(h http.Header) string {
	key := h.Get("x-api-key")
	if key == "" {
		// The service also takes the key as a bearer token, which is how the v2 SDK sends it.
		if v, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer "); ok {
			key = v
		}
	}
	switch {
	case key == "":
		return "x-api-key header is required"
	case key != s.APIKey:
		return "invalid x-api-key"
	}
	return ""
}

func (s *Server) answer(w http.ResponseWriter, req Request, reply Reply) {
	s.mu.Lock()
	s.ids++
	id := s.ids
	usage := s.account(req)
	s.mu.Unlock()

	var content []map[string]any
	stop := reply.StopReason
	if stop == "" {
		stop = "end_turn"
		if reply.ToolUse != nil {
			stop = "tool_use"
		}
	}
	outChars := 0
	msgID := fmt.Sprintf("msg_fake%04d", id)
	if m, _ := s.models.Lookup(req.Model); m.Thinks && !forced(req) {
		content = append(content, map[string]any{"type": "thinking", "thinking": "", "signature": s.sign(msgID, "")})
	}
	if reply.Text != "" || reply.ToolUse == nil {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
		outChars += utf8.RuneCountInString(reply.Text)
	}
	if tu := reply.ToolUse; tu != nil {
		input := tu.Input
		if input == nil {
			input = map[string]any{}
		}
		in, err := json.Marshal(input)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "api_error", "fake: tool input does not encode: "+err.Error())
			return
		}
		tid := tu.ID
		if tid == "" {
			tid = fmt.Sprintf("toolu_fake%04d", id)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": tid, "name": tu.Name, "input": json.RawMessage(in)})
		outChars += runes(tu.Name, string(in))
	}
	usage.OutputTokens = max(1, tokens(outChars))
	if reply.Usage != nil {
		usage = *reply.Usage
	}
	w.Header().Set("request-id", fmt.Sprintf("req_fake%04d", id))
	writeJSON(w, http.StatusOK, map[string]any{
		"id":            msgID,
		"type":          "message",
		"role":          "assistant",
		"model":         req.Model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                usage.InputTokens,
			"cache_creation_input_tokens": usage.CacheCreationInputTokens,
			"cache_read_input_tokens":     usage.CacheReadInputTokens,
			"cache_creation": map[string]int{
				"ephemeral_5m_input_tokens": usage.CacheCreationInputTokens,
				"ephemeral_1h_input_tokens": 0,
			},
			"output_tokens": usage.OutputTokens,
			"service_tier":  "standard",
		},
	})
}

// forced says whether req forces a tool call; a model that takes it skips thinking
// (https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows).
func forced(req Request) bool {
	return req.ToolChoice != nil && (req.ToolChoice.Type == "any" || req.ToolChoice.Type == "tool")
}

// sign seals a thinking block of the answer msgID: the answer's id and an HMAC of the id and
// the block's text under the server's secret, so that the server can tell its own blocks,
// unchanged, from others.
func (s *Server) sign(msgID, thinking string) string {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte(msgID + "\x00" + thinking))
	return base64.StdEncoding.EncodeToString(append([]byte(msgID+"."), mac.Sum(nil)...))
}

// badSignature is the service's answer to a thinking block it did not issue for this
// conversation, or one that was changed
// (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking).
const badSignature = "%s: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\"."

// checkSignatures refuses a thinking block in an assistant turn that this server did not
// issue, or whose text or signature was changed. anthropicapi.Check has already refused one in
// a user turn. Redacted thinking is opaque and never issued by this fake: it is not checked.
func (s *Server) checkSignatures(req Request) *anthropicapi.Error {
	for i, m := range req.Messages {
		for j, b := range m.Content {
			if b.Type != "thinking" || m.Role != "assistant" {
				continue
			}
			raw, err := base64.StdEncoding.DecodeString(b.Signature)
			msgID, _, found := strings.Cut(string(raw), ".")
			if err != nil || !found || !hmac.Equal([]byte(b.Signature), []byte(s.sign(msgID, b.Thinking))) {
				return &anthropicapi.Error{Status: http.StatusBadRequest, Type: "invalid_request_error",
					Message: fmt.Sprintf(badSignature, fmt.Sprintf("messages.%d.content.%d", i, j))}
			}
		}
	}
	return nil
}

// tokens approximates a token count as ceil(chars/4). The service's tokenizer differs, and it
// adds tokens of its own (tool-use system prompt, message framing): counts from the fake are
// only consistent with each other.
func tokens(chars int) int { return (chars + 3) / 4 }

// segment is one block of the prompt, in the order the service caches it: tools, then system,
// then messages.
type segment struct {
	key   string // what identifies the block's content
	chars int
	cache bool // a cache_control breakpoint ends here
}

func segments(req Request) []segment {
	var out []segment
	add := func(key string, chars int, cc *CacheControl) {
		out = append(out, segment{key: key, chars: chars, cache: cc != nil})
	}
	for _, t := range req.Tools {
		add("tool\x00"+t.Name+"\x00"+t.Description+"\x00"+string(t.InputSchema),
			runes(t.Name, t.Description, string(t.InputSchema)), t.CacheControl)
	}
	for _, b := range req.System {
		add("system\x00"+b.Text, runes(b.Text), b.CacheControl)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			key, chars := blockText(b)
			add(m.Role+"\x00"+b.Type+"\x00"+key, chars, b.CacheControl)
		}
	}
	// Automatic caching: a top-level cache_control puts the breakpoint on the last block.
	if req.CacheControl != nil && len(out) > 0 {
		out[len(out)-1].cache = true
	}
	return out
}

// blockText returns what identifies a message block's content, and how many characters of it
// the model reads.
func blockText(b Block) (key string, chars int) {
	switch b.Type {
	case "tool_use":
		return b.ID + "\x00" + b.Name + "\x00" + string(b.Input), runes(b.Name, string(b.Input))
	case "tool_result":
		var sb strings.Builder
		sb.WriteString(b.ToolUseID)
		for _, c := range b.Content {
			sb.WriteString("\x00" + c.Text)
			chars += runes(c.Text)
		}
		return sb.String(), chars
	case "thinking":
		return b.Signature + "\x00" + b.Thinking, runes(b.Thinking)
	case "redacted_thinking":
		return b.Data, 0
	default:
		return b.Text, runes(b.Text)
	}
}

func runes(texts ...string) int {
	n := 0
	for _, t := range texts {
		n += utf8.RuneCountInString(t)
	}
	return n
}

// lookback is how many blocks before a breakpoint the service checks for an earlier cache hit.
const lookback = 20

// account computes the prompt's usage and writes its breakpoints to the cache, as the service
// does: the longest cached prefix ending at a block boundary within lookback blocks before a
// breakpoint is read; the rest up to the last breakpoint is written; what follows is plain
// input. A prefix shorter than minCacheTokens is never cached. The caller holds s.mu.
func (s *Server) account(req Request) Usage {
	segs := segments(req)
	hashes := make([][32]byte, len(segs))
	cum := make([]int, len(segs))
	h := sha256.Sum256([]byte(req.Model))
	chars := 0
	lastBP := -1
	for i, sg := range segs {
		h = sha256.Sum256(append(h[:], sg.key...))
		hashes[i] = h
		chars += sg.chars
		cum[i] = chars
		if sg.cache {
			lastBP = i
		}
	}
	total := tokens(chars)
	if lastBP < 0 || tokens(cum[lastBP]) < s.minCacheTokens {
		return Usage{InputTokens: total}
	}
	read := 0
	for i, sg := range segs {
		if !sg.cache {
			continue
		}
		for j := i; j >= 0 && j > i-lookback; j-- {
			if s.cached[hashes[j]] {
				read = max(read, tokens(cum[j]))
				break
			}
		}
	}
	written := tokens(cum[lastBP]) - read
	for i, sg := range segs {
		if sg.cache && tokens(cum[i]) >= s.minCacheTokens {
			s.cached[hashes[i]] = true
		}
	}
	return Usage{InputTokens: total - read - written, CacheCreationInputTokens: written, CacheReadInputTokens: read}
}

func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}

func defaultMessage(typ string) string {
	switch typ {
	case "rate_limit_error":
		return "Number of request tokens has exceeded your per-minute rate limit"
	case "overloaded_error":
		return "Overloaded"
	case "api_error":
		return "Internal server error"
	default:
		return typ
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": typ, "message": msg},
		"request_id": "req_fake_error",
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
