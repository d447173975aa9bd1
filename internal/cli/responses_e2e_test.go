package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

// responsesDemoReply plays the demo's model on the Responses API: a turn that must call a tool
// and has no tool output yet reads the change with two calls at once; then the reviewers
// answer as demoReply's, and the validator keeps all but the vague finding.
func responsesDemoReply(req openaitest.ResponsesRequest) openaitest.Reply {
	user, outputs := "", 0
	for _, it := range req.Items {
		switch {
		case it.Kind() == "function_call_output":
			outputs++
		case it.Kind() == "message" && it.Role == "user":
			user = it.Text()
		}
	}
	offered := func(name string) bool {
		return slices.ContainsFunc(req.Tools, func(t openaitest.ResponsesTool) bool { return t.Name == name })
	}
	call := func(name string, input any) openaitest.ReplyToolCall {
		data, _ := json.Marshal(input)
		return openaitest.ReplyToolCall{Name: name, Arguments: string(data)}
	}
	switch {
	case req.ToolRequired() && outputs == 0 && offered("read_file"):
		return openaitest.Reply{ToolCalls: []openaitest.ReplyToolCall{
			call("read_file", map[string]any{"path": "store.go", "start_line": 1, "end_line": 60}),
			call("grep", map[string]any{"pattern": "Reserve"}),
		}}
	case strings.Contains(user, checkHeading):
		return openaitest.Reply{ToolCalls: []openaitest.ReplyToolCall{call("submit_verdicts", demoVerdict(user))}}
	}
	answer := map[string]any{"findings": []any{}} // a cache warm-up
	if r := reviewerOf(user); r != "" {
		answer = demoAnswer(r)
	}
	return openaitest.Reply{ToolCalls: []openaitest.ReplyToolCall{call("submit_review", answer)}}
}

// TestReviewOpenAIResponses: council review --provider openai with COUNCIL_OPENAI_API=responses
// at a server that speaks the Responses API reviews the demo end to end on the default model:
// tool rounds with parallel calls, the validator, the outputs; every request goes to
// /responses, nothing is stored, the reasoning goes back with the turns, and the reviewers of
// the unit share a prompt_cache_key and so the cache. Without the variable, the same base URL
// gets Chat Completions, as before.
func TestReviewOpenAIResponses(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	fake := openaitest.New(t, openaitest.WithResponsesRespond(responsesDemoReply), openaitest.WithRespond(openAIDemoReply))
	env := map[string]string{"OPENAI_API_KEY": fake.APIKey, "OPENAI_BASE_URL": fake.URL, "COUNCIL_OPENAI_API": "responses"}

	r := council(t, env, "review", "--provider", "openai", "--repo", repo, "--base", "v1", "--head", "v2", "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	rep := decodeReport(t, []byte(r.out))
	if rep.Reviewers[0].Model != "gpt-6.2-sol" || len(rep.Failed()) != 0 {
		t.Errorf("reviewers %+v: want the default model, none failed", rep.Reviewers)
	}
	if f := findingTitled(t, rep, "Path traversal in /export"); !f.Anchored || f.Severity != finding.Critical {
		t.Errorf("path traversal: %+v", f)
	}
	if f := findingTitled(t, rep, "Consider logging reservations"); f.Status != finding.Filtered || !strings.Contains(f.FilterReason, "specific_and_actionable") {
		t.Errorf("the vague finding was not filtered by the validator: %+v", f)
	}
	if rep.Validation.Checked == 0 || len(rep.Validation.Errors) > 0 {
		t.Errorf("validation %+v: want checks without errors", rep.Validation)
	}
	if rep.Usage.CacheReadTokens == 0 {
		t.Errorf("usage %+v: the reviewers read nothing from the prompt cache", rep.Usage)
	}
	for _, p := range fake.Paths() {
		if p != "POST /v1/responses" {
			t.Errorf("request to %s, want every one to POST /v1/responses", p)
		}
	}
	var toolRounds, reasoningBack int
	keys := map[string]bool{}
	for _, req := range fake.ResponsesRequests() {
		if req.Stored() {
			t.Errorf("a request asks OpenAI to store it")
		}
		outputs := 0
		for _, it := range req.Items {
			switch it.Kind() {
			case "function_call_output":
				outputs++
			case "reasoning":
				reasoningBack++
			}
		}
		if outputs >= 2 {
			toolRounds++
		}
		if reviewerOf(req.Items[0].Text()) != "" && len(req.Items) == 1 {
			keys[req.PromptCacheKey] = true
		}
	}
	if toolRounds == 0 || reasoningBack == 0 {
		t.Errorf("%d turns after parallel tool calls, %d reasoning items sent back: want both", toolRounds, reasoningBack)
	}
	if len(keys) != 1 {
		t.Errorf("the reviewers' first turns sent %d prompt_cache_keys, want one: %v", len(keys), keys)
	}

	before := len(fake.Paths())
	delete(env, "COUNCIL_OPENAI_API")
	r = council(t, env, "review", "--provider", "openai", "--model", "gpt-4.1", "--repo", repo, "--base", "v1", "--head", "v2", "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("without COUNCIL_OPENAI_API: exit %d; stderr:\n%s", r.code, r.err)
	}
	for _, p := range fake.Paths()[before:] {
		if p != "POST /v1/chat/completions" {
			t.Errorf("without COUNCIL_OPENAI_API: request to %s, want POST /v1/chat/completions", p)
		}
	}
}

// TestReviewOpenAIBadInput: a server without the Responses API, a key without access to the
// model, and a model that refuses tools each fail every reviewer with one line on stderr that
// says what to set, exit 3, and post nothing on the pull request but the summary that council
// could not review it, without the provider's error.
func TestReviewOpenAIBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fake []openaitest.Option
		env  map[string]string
		args []string
		want string
	}{
		{"a server without the Responses API", []openaitest.Option{openaitest.WithoutResponsesAPI()},
			map[string]string{"COUNCIL_OPENAI_API": "responses"}, nil, "set COUNCIL_OPENAI_API=chat"},
		{"a key without access to the model", []openaitest.Option{openaitest.WithoutAccess("gpt-6.2-sol")},
			map[string]string{"COUNCIL_OPENAI_API": "responses"}, nil, "the API key's project may not use gpt-6.2-sol"},
		{"a model that refuses tools", []openaitest.Option{openaitest.WithModel("gemma3:4b", 0), openaitest.WithoutTools("gemma3:4b")},
			nil, []string{"--model", "gemma3:4b"}, "the model cannot call tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setupPR(t)
			fake := openaitest.New(t, tt.fake...)
			s.env = map[string]string{"OPENAI_API_KEY": fake.APIKey, "OPENAI_BASE_URL": fake.URL, "GITHUB_TOKEN": prToken, "GITHUB_API_URL": s.gh.URL}
			for k, v := range tt.env {
				s.env[k] = v
			}
			r := council(t, s.env, append([]string{"review", "--pr", "acme/inventory#7", "--post", "--repo", s.repo, "--format", "json"}, tt.args...)...)
			if r.code != ExitIncomplete {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
			}
			if n := s.gh.Count("POST", prReviews); n != 0 {
				t.Errorf("%d reviews posted, want none:\n%s", n, s.posted(t))
			}
			bodies := s.gh.IssueCommentBodies("acme", "inventory", 7)
			if len(bodies) != 1 || !strings.Contains(bodies[0], wantCouldNotReview(t, s)) {
				t.Fatalf("summary comments %q, want the one that says council could not review", bodies)
			}
			assertNoRawError(t, "the summary comment", bodies[0])
			rep := assertErrorsOnStderr(t, r)
			if len(rep.Failed()) != 3 {
				t.Errorf("%d reviewers failed, want 3", len(rep.Failed()))
			}
			for _, rv := range rep.Reviewers {
				for _, e := range rv.Errors {
					if !strings.Contains(e, tt.want) || strings.Contains(e, "\n") || strings.Contains(e, fake.APIKey) {
						t.Errorf("%s: error %q: want one line saying %q, without the key", rv.Name, e, tt.want)
					}
				}
			}
		})
	}
}

// TestReviewBadOpenAIAPI: a COUNCIL_OPENAI_API council does not know stops the review before
// any request, with one line naming the allowed values.
func TestReviewBadOpenAIAPI(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	fake := openaitest.New(t)
	r := council(t, map[string]string{"OPENAI_API_KEY": fake.APIKey, "OPENAI_BASE_URL": fake.URL, "COUNCIL_OPENAI_API": "completions"},
		"review", "--provider", "openai", "--repo", repo, "--base", "v1", "--head", "v2")
	want := `council: set up openai provider: COUNCIL_OPENAI_API="completions": must be one of responses, chat, or unset to choose by the base URL` + "\n"
	if r.code != ExitUsage || r.err != want || fake.Calls() != 0 {
		t.Errorf("exit %d, %d requests, stderr %q; want exit %d, none, %q", r.code, fake.Calls(), r.err, ExitUsage, want)
	}
}
