package openaitest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/council-dev/council/internal/provider/openai/openaiapi"
)

// reasoningModel matches the models the fake answers with a reasoning item first: OpenAI's
// reasoning models (o-series, gpt-5 and later), which "use internal reasoning tokens before
// producing a response" (https://developers.openai.com/api/docs/guides/reasoning).
var reasoningModel = regexp.MustCompile(`^(?:[\w.-]+/)?(?:o\d|gpt-[5-9])`)

// reasoningTokens is what each answer of a reasoning model spends on reasoning, counted in
// output_tokens as the service counts it (output_tokens_details.reasoning_tokens).
const reasoningTokens = 8

func defaultResponsesRespond(req ResponsesRequest) Reply {
	if name := req.ForcedFunction(); name != "" {
		return ToolReply(name, "{}")
	}
	if req.ToolRequired() {
		for _, t := range req.Tools {
			if t.Type == "function" {
				return ToolReply(t.Name, "{}")
			}
		}
	}
	return TextReply("ok")
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var req ResponsesRequest
	var raw map[string]json.RawMessage
	if !s.receive(w, r, func(body []byte) (err error) {
		if req, raw, err = openaiapi.DecodeResponses(body); err == nil {
			req.Header = r.Header.Clone()
			s.respReqs = append(s.respReqs, req)
		}
		return err
	}) {
		return
	}
	if e := openaiapi.CheckResponses(raw, req, s.models); e != nil {
		writeError(w, e.Status, *e)
		return
	}
	if e := s.checkEncrypted(req); e != nil {
		writeError(w, e.Status, *e)
		return
	}
	if s.refused(w, req.Model, len(req.Tools) > 0, req.Stream) {
		return
	}
	s.mu.Lock()
	respond := s.respondResp
	s.mu.Unlock()
	reply := respond(req)
	if s.scripted(w, r, reply, req.Model) {
		s.answerResponses(w, req, reply)
	}
}

// seal is the encrypted content of the reasoning item id: Fernet-like ("gAAAA…", as the
// service's begins) over the id and an HMAC of it with the server's secret.
func (s *Server) seal(id string) string {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte(id))
	return "gAAAA" + base64.StdEncoding.EncodeToString([]byte(id+"."+hex.EncodeToString(mac.Sum(nil))))
}

// checkEncrypted refuses a reasoning item whose encrypted content this server did not issue
// for that item, or that was changed: the service cannot decrypt it
// (https://developers.openai.com/api/docs/guides/reasoning#encrypted-reasoning-items; 400
// invalid_encrypted_content, "The encrypted content gAAA...DQ== could not be verified.",
// observed: https://github.com/openai/codex/issues/8145).
func (s *Server) checkEncrypted(req ResponsesRequest) *apiError {
	for _, it := range req.Items {
		if it.Kind() != "reasoning" || it.EncryptedContent == nil {
			continue
		}
		enc := *it.EncryptedContent
		if hmac.Equal([]byte(enc), []byte(s.seal(it.ID))) {
			continue
		}
		shown := enc
		if len(enc) > 8 {
			shown = enc[:4] + "..." + enc[len(enc)-4:]
		}
		return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: ptr("invalid_encrypted_content"),
			Message: fmt.Sprintf("The encrypted content %s could not be verified.", shown)}
	}
	return nil
}

func (s *Server) answerResponses(w http.ResponseWriter, req ResponsesRequest, reply Reply) {
	prompt := responsesPrompt(req)
	s.mu.Lock()
	s.ids++
	id := s.ids
	// The prompt_cache_key is combined with the prefix to route a request to a cache
	// (https://developers.openai.com/api/docs/guides/prompt-caching): requests under another key
	// do not read what this one wrote.
	cached := s.cachedTokens(req.Model+"\x00"+req.PromptCacheKey, prompt)
	s.mu.Unlock()

	var output []map[string]any
	reasons := reasoningModel.MatchString(req.Model)
	if reasons {
		// Reasoning items come first, with an empty summary unless one is asked for; their
		// encrypted content only with include ["reasoning.encrypted_content"]
		// (https://developers.openai.com/api/docs/guides/reasoning#encrypted-reasoning-items).
		rid := fmt.Sprintf("rs_fake%04d", id)
		item := map[string]any{"type": "reasoning", "id": rid, "summary": []any{}}
		if req.IncludesEncryptedReasoning() {
			item["encrypted_content"] = s.seal(rid)
		}
		output = append(output, item)
	}
	outChars := 0
	calls := reply.calls()
	if reply.Text != "" || len(calls) == 0 {
		output = append(output, map[string]any{
			"type": "message", "id": fmt.Sprintf("msg_fake%04d", id), "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": reply.Text, "annotations": []any{}}},
		})
		outChars += utf8.RuneCountInString(reply.Text)
	}
	for i, tc := range calls {
		output = append(output, map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_fake%04d_%d", id, i), "call_id": tc.callID(id, i),
			"name": tc.Name, "arguments": tc.Arguments, "status": "completed",
		})
		outChars += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
	}
	u := Usage{PromptTokens: tokens(utf8.RuneCountInString(prompt)), CompletionTokens: max(1, tokens(outChars)), CachedTokens: cached}
	if reasons {
		u.ReasoningTokens = reasoningTokens
		u.CompletionTokens += reasoningTokens
	}
	if reply.Usage != nil {
		u = *reply.Usage
	}
	status, incomplete := "completed", any(nil)
	if reply.FinishReason == "length" {
		status, incomplete = "incomplete", map[string]string{"reason": "max_output_tokens"}
	}
	h := w.Header()
	h.Set("x-request-id", fmt.Sprintf("req_fake%04d", id))
	h.Set("x-ratelimit-limit-requests", "500")
	h.Set("x-ratelimit-remaining-requests", "499")
	var tools []any
	for _, t := range req.Tools {
		tools = append(tools, t)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": fmt.Sprintf("resp_fake%04d", id), "object": "response", "created_at": time.Now().Unix(),
		"status": status, "incomplete_details": incomplete, "error": nil, "model": req.Model,
		"output": output, "parallel_tool_calls": req.ParallelToolCalls == nil || *req.ParallelToolCalls,
		"store": req.Stored(), "tool_choice": req.ToolChoice, "tools": tools,
		"prompt_cache_key": req.PromptCacheKey,
		"usage": map[string]any{
			"input_tokens": u.PromptTokens,
			"input_tokens_details": map[string]int{
				"cached_tokens": u.CachedTokens, "cache_write_tokens": u.CacheWriteTokens,
			},
			"output_tokens":         u.CompletionTokens,
			"output_tokens_details": map[string]int{"reasoning_tokens": u.ReasoningTokens},
			"total_tokens":          u.PromptTokens + u.CompletionTokens,
		},
	})
}

// responsesPrompt is the prompt in the order the service caches it: instructions, tools, then
// the input items.
func responsesPrompt(req ResponsesRequest) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "instructions\x00%s\x00", req.Instructions)
	for _, t := range req.Tools {
		fmt.Fprintf(&sb, "tool\x00%s\x00%s\x00%s\x00", t.Name, t.Description, t.Parameters)
	}
	for _, it := range req.Items {
		fmt.Fprintf(&sb, "%s\x00%s\x00%s\x00", it.Kind(), it.Role, it.Text())
		if it.CallID != "" {
			sb.WriteString(it.CallID + "\x00" + it.Name + "\x00")
		}
		if it.Arguments != nil {
			sb.WriteString(*it.Arguments + "\x00")
		}
		if it.EncryptedContent != nil {
			sb.WriteString(*it.EncryptedContent + "\x00")
		}
	}
	return sb.String()
}
