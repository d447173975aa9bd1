package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/doctor"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/openai"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

// TestEveryRequestCouncilSends walks one request of every kind council sends (reviewer turns,
// validator checks, warm-ups, overview, thread check, question, judge, persona build, learn),
// made by the code that sends them, through the SDK to the fake, which refuses what the API
// refuses: through the Responses API, as council sends them to api.openai.com, and through
// Chat Completions, as to a compatible server or with COUNCIL_OPENAI_API=chat; and does so for
// models with different rules (the default, a reasoning model, the smallest output limit, a
// GPT-6 model that takes tools on Chat Completions only with reasoning_effort "none").
// It also compares every tool schema in the HTTP body the SDK sent with the one council wrote,
// and on the Responses API checks that every tool says whether it is strict: left out, the
// service would make every optional field of council's schemas required.
func TestEveryRequestCouncilSends(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		model     string
		maxOutput int
		official  bool // sent as to api.openai.com: max_completion_tokens, and the GPT-6 rules
		api       openai.API
	}{
		{"gpt-6.2-sol", 0, true, openai.APIAuto}, // the default, as most users send it: Responses
		{"gpt-4.1", 0, true, openai.APIAuto},
		{"gpt-5-mini", 0, true, openai.APIAuto},
		{"gpt-4.1", 0, false, openai.APIResponses}, // a compatible server that speaks Responses
		{"gpt-4.1", 0, false, openai.APIAuto},      // a compatible server: Chat Completions
		{"gpt-4.1", 0, true, openai.APIChat},
		{"o4-mini", 0, false, openai.APIAuto},
		{"gpt-4o-2024-08-06", 16384, false, openai.APIAuto},
		{"gpt-6-luna", 0, true, openai.APIChat},
	} {
		samples, err := doctor.Requests(context.Background(), doctor.RequestOptions{Provider: "openai", Model: m.model, MaxOutputTokens: m.maxOutput})
		if err != nil {
			t.Fatal(err)
		}
		fake := openaitest.New(t)
		client := openai.New(openai.Options{APIKey: fake.APIKey, BaseURL: fake.URL, API: m.api})
		if m.official {
			client = officialClient(t, fake, m.api)
		}
		api := openai.ChooseAPI(m.api, map[bool]string{true: "", false: fake.URL}[m.official])
		for i, s := range samples {
			t.Run(fmt.Sprintf("%s/official=%v/%s/%02d %s", m.model, m.official, api, i, s.Kind), func(t *testing.T) {
				if _, err := client.Complete(context.Background(), s.Request); err != nil {
					t.Errorf("refused: %v", err)
				}
				sent := sentTools(t, fake, api, i)
				if len(sent) != len(s.Request.Tools) {
					t.Fatalf("sent %d tools, want %d", len(sent), len(s.Request.Tools))
				}
				// Each tool's schema on the wire is the one council wrote, value for value and
				// type for type.
				for j, tool := range s.Request.Tools {
					if sent[j].name != tool.Name {
						t.Errorf("tool %d: sent %q, want %q", j, sent[j].name, tool.Name)
					} else if diff := cmp.Diff(exact(t, tool.InputSchema), exact(t, sent[j].parameters)); diff != "" {
						t.Errorf("tool %s: schema on the wire differs from council's (-council +sent):\n%s", tool.Name, diff)
					}
					if api == openai.APIResponses && sent[j].strict == nil {
						t.Errorf("tool %s: sent without strict", tool.Name)
					}
				}
			})
		}
		if got := fake.Calls(); got != len(samples) {
			t.Errorf("%s: the fake saw %d requests, want %d", m.model, got, len(samples))
		}
	}
}

type sentTool struct {
	name       string
	parameters json.RawMessage
	strict     *bool
}

// sentTools reads the tools of the fake's request i on the API it went to.
func sentTools(t *testing.T, fake *openaitest.Server, api openai.API, i int) []sentTool {
	t.Helper()
	var out []sentTool
	if api == openai.APIResponses {
		for _, tl := range fake.ResponsesRequests()[i].Tools {
			out = append(out, sentTool{tl.Name, tl.Parameters, tl.Strict})
		}
		return out
	}
	for _, tl := range fake.Requests()[i].Tools {
		out = append(out, sentTool{tl.Function.Name, tl.Function.Parameters, tl.Function.Strict})
	}
	return out
}

// exact decodes JSON keeping each number as written (json.Number), so that a number and the
// same digits as a string compare unequal.
func exact(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

var _ provider.Client = (*openai.Client)(nil)
