package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/provider"
)

const goodVerdict = `{"true_of_code": {"reason": "Line 12 dereferences cfg before the nil check on line 14.", "ok": true}, "introduced_by_change": {"reason": "Line 12 is added by this change.", "ok": true}, "specific_and_actionable": {"reason": "Names the line and the fix.", "ok": true}}`

var wantGood = Verdict{
	True:       Check{OK: true, Reason: "Line 12 dereferences cfg before the nil check on line 14."},
	Introduced: Check{OK: true, Reason: "Line 12 is added by this change."},
	Actionable: Check{OK: true, Reason: "Names the line and the fix."},
}

func toolAnswer(input string) provider.Response {
	return provider.Response{StopReason: provider.StopToolUse, Content: []provider.Block{
		{Type: provider.ToolUse, ToolUseID: "v1", Name: VerdictTool, Input: json.RawMessage(input)},
	}}
}

func textAnswer(text string) provider.Response {
	return provider.Response{StopReason: provider.StopEndTurn, Content: []provider.Block{{Type: provider.Text, Text: text}}}
}

func TestParseVerdict(t *testing.T) {
	t.Parallel()
	encoded, _ := json.Marshal(goodVerdict)
	yesNo := `{"true_of_code": {"ok": "Yes", "reason": "r1"}, "introduced_by_change": {"ok": "no", "reason": "exists at base"}, "specific_and_actionable": {"ok": "yes", "reason": "r3"}}`
	tests := []struct {
		name    string
		resp    provider.Response
		want    Verdict
		wantErr string // a substring of the error; "" for none
	}{
		{"tool call", toolAnswer(goodVerdict), wantGood, ""},
		{"tool input JSON-encoded as a string", toolAnswer(string(encoded)), wantGood, ""},
		{"yes and no strings", toolAnswer(yesNo), Verdict{
			True: Check{OK: true, Reason: "r1"}, Introduced: Check{Reason: "exists at base"}, Actionable: Check{OK: true, Reason: "r3"},
		}, ""},
		{"bare booleans for checks", toolAnswer(`{"true_of_code": true, "introduced_by_change": "yes", "specific_and_actionable": false}`),
			Verdict{True: Check{OK: true}, Introduced: Check{OK: true}}, ""},
		{"a reason that is not a string is kept", toolAnswer(`{"true_of_code": {"ok": false, "reason": ["a", 1]}, "introduced_by_change": {"ok": true}, "specific_and_actionable": {"ok": true, "reason": null}}`),
			Verdict{True: Check{Reason: `["a",1]`}, Introduced: Check{OK: true}, Actionable: Check{OK: true}}, ""},
		{"fenced JSON in prose", textAnswer("Here is my verdict:\n```json\n" + goodVerdict + "\n```\nDone."), wantGood, ""},
		{"bare JSON", textAnswer(goodVerdict), wantGood, ""},
		{"JSON after an unrelated object", textAnswer(`I read {"path": "a.go"} first. ` + goodVerdict), wantGood, ""},
		{"wrapped verdict", textAnswer(`{"verdict": ` + goodVerdict + `}`), wantGood, ""},
		{"an unusable tool call, a good text", provider.Response{Content: []provider.Block{
			{Type: provider.ToolUse, Name: VerdictTool, Input: json.RawMessage(`{"true_of_code": {"ok": true}}`)},
			{Type: provider.Text, Text: goodVerdict},
		}}, wantGood, ""},
		{"the first usable tool call wins", provider.Response{Content: []provider.Block{
			{Type: provider.ToolUse, Name: "read_file", Input: json.RawMessage(`{"path": "a.go"}`)},
			{Type: provider.ToolUse, Name: VerdictTool, Input: json.RawMessage(goodVerdict)},
			{Type: provider.ToolUse, Name: VerdictTool, Input: json.RawMessage(yesNo)},
		}}, wantGood, ""},
		{"missing check", toolAnswer(`{"true_of_code": {"ok": true, "reason": "r"}, "introduced_by_change": {"ok": true, "reason": "r"}}`), Verdict{}, `"specific_and_actionable" is missing`},
		{"null check", toolAnswer(`{"true_of_code": null, "introduced_by_change": {"ok": true}, "specific_and_actionable": {"ok": true}}`), Verdict{}, `"true_of_code" is missing`},
		{"ok neither boolean nor yes/no", toolAnswer(`{"true_of_code": {"ok": "maybe"}, "introduced_by_change": {"ok": true}, "specific_and_actionable": {"ok": true}}`), Verdict{}, `"ok" is not a boolean or yes/no`},
		{"no ok", toolAnswer(`{"true_of_code": {"reason": "r"}, "introduced_by_change": {"ok": true}, "specific_and_actionable": {"ok": true}}`), Verdict{}, `no "ok"`},
		{"check is a number", toolAnswer(`{"true_of_code": 1, "introduced_by_change": {"ok": true}, "specific_and_actionable": {"ok": true}}`), Verdict{}, "not an object"},
		{"tool input null", toolAnswer(`null`), Verdict{}, "null, not an object"},
		{"tool input empty", toolAnswer(``), Verdict{}, "without input"},
		{"tool input invalid", toolAnswer(`{"true_of_code":`), Verdict{}, "invalid JSON in submit_verdict input"},
		{"prose only", textAnswer("The finding looks right to me."), Verdict{}, "no JSON object found"},
		{"JSON without checks", textAnswer(`{"findings": []}`), Verdict{}, "no JSON object with"},
		{"unbalanced", textAnswer(`{"true_of_code": {"ok": true`), Verdict{}, "not closed"},
		{"empty", provider.Response{}, Verdict{}, "empty answer"},
		{"truncated", provider.Response{StopReason: provider.StopMaxTokens, Content: []provider.Block{
			{Type: provider.ToolUse, Name: VerdictTool, Input: json.RawMessage(`{"true_of_code": {"reason": "the nil ch`)},
		}}, Verdict{}, "truncated at max_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseVerdict(tt.resp)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("verdict (-want +got):\n%s", diff)
				}
				return
			}
			var ve *VerdictError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v (%T), want a *VerdictError", err, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestVerdictFilterReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    Verdict
		want string
	}{
		{"passed", wantGood, ""},
		{"one failed", Verdict{True: Check{OK: true}, Introduced: Check{Reason: "exists\n at base"}, Actionable: Check{OK: true}},
			"validator: introduced_by_change: exists at base"},
		{"two failed, no reason", Verdict{Introduced: Check{OK: true}, Actionable: Check{Reason: "vague"}},
			"validator: true_of_code: no reason given; specific_and_actionable: vague"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.v.FilterReason(); got != tt.want {
				t.Errorf("FilterReason() = %q, want %q", got, tt.want)
			}
			if tt.v.Passed() != (tt.want == "") {
				t.Errorf("Passed() = %v", tt.v.Passed())
			}
		})
	}
}

// TestVerdictToolSchema checks that the schema the model is given compiles, accepts what
// ParseVerdict accepts from a well-behaved model, and rejects what it rejects.
func TestVerdictToolSchema(t *testing.T) {
	t.Parallel()
	raw := VerdictToolSchema()
	if !bytes.Equal(raw, VerdictToolSchema()) {
		t.Fatal("the schema is not the same bytes on every call")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("submit_verdict.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("submit_verdict.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	marshalled, _ := json.Marshal(wantGood)
	tests := []struct {
		name  string
		in    string
		valid bool
	}{
		{"verdict", goodVerdict, true},
		{"marshalled Verdict", string(marshalled), true},
		{"missing check", `{"true_of_code": {"ok": true, "reason": "r"}, "introduced_by_change": {"ok": true, "reason": "r"}}`, false},
		{"missing reason", `{"true_of_code": {"ok": true}, "introduced_by_change": {"ok": true, "reason": "r"}, "specific_and_actionable": {"ok": true, "reason": "r"}}`, false},
		{"extra key", `{"true_of_code": {"ok": true, "reason": "r"}, "introduced_by_change": {"ok": true, "reason": "r"}, "specific_and_actionable": {"ok": true, "reason": "r"}, "confidence": 1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); (err == nil) != tt.valid {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tt.valid, err)
			}
			if _, err := ParseVerdict(toolAnswer(tt.in)); tt.valid && err != nil {
				t.Errorf("ParseVerdict rejects a schema-valid verdict: %v", err)
			}
		})
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add(goodVerdict, "", false)
	f.Add("", "```json\n"+goodVerdict+"\n```", false)
	f.Add(`"{\"true_of_code\": true}"`, `{"verdict": {"true_of_code": "no"}}`, true)
	f.Add(`{"true_of_code": {"ok": "yes", "reason": 1}}`, strings.Repeat("{", 100), false)
	f.Add("null", `{"true_of_code": {"ok": "n"}, "introduced_by_change": false, "specific_and_actionable": {"ok": true}} {`, false)
	f.Fuzz(func(t *testing.T, input, text string, truncated bool) {
		resp := provider.Response{Content: []provider.Block{
			{Type: provider.ToolUse, Name: VerdictTool, Input: json.RawMessage(input)},
			{Type: provider.Text, Text: text},
		}}
		if truncated {
			resp.StopReason = provider.StopMaxTokens
		}
		v, err := ParseVerdict(resp)
		if err != nil {
			var ve *VerdictError
			if !errors.As(err, &ve) {
				t.Fatalf("err %v is not a *VerdictError", err)
			}
			return
		}
		// What was parsed survives a round trip through the tool call.
		again, _ := json.Marshal(v)
		back, err := ParseVerdict(toolAnswer(string(again)))
		if err != nil {
			t.Fatalf("re-parse of %s: %v", again, err)
		}
		if diff := cmp.Diff(v, back); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		_ = v.FilterReason()
	})
}
