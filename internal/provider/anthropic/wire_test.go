package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/overview"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
	"github.com/council-dev/council/internal/tools"
	"github.com/council-dev/council/internal/validate"
)

// everyType is a tool schema with a value of every JSON type where the SDK's encoder could
// change it: integers, a negative number, a fraction, an exponent, booleans, null, nested
// arrays and objects.
const everyType = `{"type":"object","properties":{` +
	`"n":{"type":"integer","minimum":1,"maximum":20,"default":3,"multipleOf":1},` +
	`"x":{"type":"number","exclusiveMinimum":-1.5,"maximum":1e3},` +
	`"flag":{"type":"boolean","default":false},` +
	`"pick":{"enum":["a",1,2.5,true,null]},` +
	`"list":{"type":"array","items":{"type":"string","minLength":1},"minItems":0,"maxItems":50,"uniqueItems":true},` +
	`"nested":{"type":"object","properties":{"deep":{"type":["string","null"],"const":"z"}},"additionalProperties":false}` +
	`},"required":["n"],"additionalProperties":false,"description":"every type"}`

// councilTools is every tool schema council sends: the repository tools, and the answer tools
// of the reviewers, the validator and the overview.
func councilTools() []provider.Tool {
	out := tools.New(nil, "base", "head", tools.Limits{}).Tools()
	return append(out,
		provider.Tool{Name: review.SubmitTool, Description: "review", InputSchema: review.SubmitToolSchema()},
		provider.Tool{Name: validate.VerdictTool, Description: "verdict", InputSchema: validate.VerdictToolSchema()},
		provider.Tool{Name: "submit_overview", Description: "overview", InputSchema: overview.ToolSchema()},
		provider.Tool{Name: "every_type", Description: "every JSON type", InputSchema: json.RawMessage(everyType)},
	)
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

// TestToolSchemasOnTheWire reads each tool's input_schema from the HTTP body the SDK sent and
// compares it with the schema council wrote, value for value and type for type.
func TestToolSchemasOnTheWire(t *testing.T) {
	t.Parallel()
	b := setup(t)
	src := councilTools()
	_, err := b.client.Complete(context.Background(), provider.Request{
		Model: model, MaxTokens: 100, Messages: []provider.Message{userText("review")}, Tools: src,
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := b.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("fake got %d requests, want 1", len(reqs))
	}
	sent := reqs[0].Tools
	if len(sent) != len(src) {
		t.Fatalf("sent %d tools, want %d", len(sent), len(src))
	}
	for i, tool := range src {
		if sent[i].Name != tool.Name {
			t.Errorf("tool %d: sent %q, want %q", i, sent[i].Name, tool.Name)
			continue
		}
		if diff := cmp.Diff(exact(t, tool.InputSchema), exact(t, sent[i].InputSchema)); diff != "" {
			t.Errorf("tool %s: input_schema on the wire differs from the source (-source +sent):\n%s", tool.Name, diff)
		}
	}
}
