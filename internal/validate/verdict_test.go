package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
)

const goodVerdicts = `{"verdicts": [
 {"issue": 1, "reason": "Line 12 reads cfg before the nil check on line 14.", "decision": "keep", "severity": "high", "attention": true},
 {"issue": 2, "reason": "Line 20 handles the empty case.", "decision": "reject", "failed_check": "true_of_code", "severity": "low", "attention": false},
 {"issue": 3, "reason": "Same as 1.", "decision": "duplicate", "same_as": 1, "severity": "high", "attention": true}]}`

var wantGood = map[int]Verdict{
	1: {Issue: 1, Reason: "Line 12 reads cfg before the nil check on line 14.", Decision: Keep, Severity: finding.High, Attention: true},
	2: {Issue: 2, Reason: "Line 20 handles the empty case.", Decision: Reject, FailedCheck: CheckTrue, Severity: finding.Low},
	3: {Issue: 3, Reason: "Same as 1.", Decision: Duplicate, SameAs: 1, Severity: finding.High, Attention: true},
}

func toolAnswer(input string) provider.Response {
	return provider.Response{StopReason: provider.StopToolUse, Content: []provider.Block{
		{Type: provider.ToolUse, ToolUseID: "v1", Name: VerdictTool, Input: json.RawMessage(input)},
	}}
}

func textAnswer(text string) provider.Response {
	return provider.Response{StopReason: provider.StopEndTurn, Content: []provider.Block{{Type: provider.Text, Text: text}}}
}

func TestParseVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		resp     provider.Response
		n        int
		want     map[int]Verdict
		wantErrs map[int]string // issue -> a part of its error
	}{
		{name: "tool call", resp: toolAnswer(goodVerdicts), n: 3, want: wantGood},
		{name: "fenced JSON in prose", resp: textAnswer("Here:\n```json\n" + goodVerdicts + "\n```"), n: 3, want: wantGood},
		{name: "arguments as a JSON string", resp: toolAnswer(mustString(goodVerdicts)), n: 3, want: wantGood},
		{
			name: "a missing verdict is that issue's error only",
			resp: toolAnswer(`{"verdicts":[{"issue":2,"reason":"r","decision":"keep","severity":"low","attention":"no"}]}`), n: 2,
			want:     map[int]Verdict{2: {Issue: 2, Reason: "r", Decision: Keep, Severity: finding.Low}},
			wantErrs: map[int]string{1: "no verdict for issue 1"},
		},
		{
			name: "a broken verdict is pinned on its issue",
			resp: toolAnswer(`{"verdicts":[{"issue":1,"reason":"r","decision":"maybe","severity":"low","attention":true},{"issue":2,"reason":"r","decision":"duplicate","same_as":2,"severity":"low","attention":true}]}`), n: 2,
			want:     map[int]Verdict{},
			wantErrs: map[int]string{1: `decision "maybe"`, 2: "duplicate of 2"},
		},
		{
			name: "narrow without a body",
			resp: toolAnswer(`{"verdicts":[{"issue":1,"reason":"r","decision":"narrow","severity":"low","attention":true}]}`), n: 1,
			want: map[int]Verdict{}, wantErrs: map[int]string{1: "narrow without"},
		},
		{name: "prose only", resp: textAnswer("Looks fine."), n: 2, want: map[int]Verdict{}, wantErrs: map[int]string{1: "no JSON object", 2: "no JSON object"}},
		{
			name: "truncated",
			resp: provider.Response{StopReason: provider.StopMaxTokens, Content: []provider.Block{{Type: provider.Text, Text: `{"verdicts": [{"issue": 1,`}}}, n: 1,
			want: map[int]Verdict{}, wantErrs: map[int]string{1: "truncated at max_tokens"},
		},
		{name: "empty", resp: provider.Response{}, n: 1, want: map[int]Verdict{}, wantErrs: map[int]string{1: "empty answer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs := ParseVerdicts(tt.resp, tt.n)
			if got == nil {
				got = map[int]Verdict{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if len(errs) != len(tt.wantErrs) {
				t.Errorf("errors %v, want for issues %v", errs, tt.wantErrs)
			}
			for i, part := range tt.wantErrs {
				var ve *VerdictError
				if err := errs[i]; err == nil || !errors.As(err, &ve) || !strings.Contains(err.Error(), part) {
					t.Errorf("issue %d: error %v, want a *VerdictError with %q", i, err, part)
				}
			}
		})
	}
}

func mustString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

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
	if err := c.AddResource("submit_verdicts.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("submit_verdicts.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	marshalled, _ := json.Marshal(map[string]any{"verdicts": []Verdict{wantGood[1], wantGood[2], wantGood[3]}})
	tests := []struct {
		name  string
		in    string
		valid bool
	}{
		{"verdicts", goodVerdicts, true},
		{"marshalled Verdicts", string(marshalled), true},
		{"missing attention", `{"verdicts":[{"issue":1,"reason":"r","decision":"keep","severity":"low"}]}`, false},
		{"unknown decision", `{"verdicts":[{"issue":1,"reason":"r","decision":"maybe","severity":"low","attention":true}]}`, false},
		{"issue as a string", `{"verdicts":[{"issue":"1","reason":"r","decision":"keep","severity":"low","attention":true}]}`, false},
		{"extra key", `{"verdicts":[{"issue":1,"reason":"r","decision":"keep","severity":"low","attention":true,"confidence":1}]}`, false},
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
			if _, errs := ParseVerdicts(toolAnswer(tt.in), 1); tt.valid && len(errs) > 0 {
				t.Errorf("ParseVerdicts rejects schema-valid verdicts: %v", errs)
			}
		})
	}
}

func TestVerdictFilterReason(t *testing.T) {
	t.Parallel()
	v := Verdict{Decision: Reject, FailedCheck: CheckIntroduced, Reason: "The same code\nis at base."}
	if got, want := v.FilterReason(), "validator: introduced_by_change: The same code is at base."; got != want {
		t.Errorf("FilterReason() = %q, want %q", got, want)
	}
	if got := (Verdict{Decision: Reject}).FilterReason(); got != "validator: rejected: no reason given" {
		t.Errorf("FilterReason() without a check or reason = %q", got)
	}
}

func FuzzParseVerdicts(f *testing.F) {
	f.Add(goodVerdicts, "", false)
	f.Add("", "```json\n"+goodVerdicts+"\n```", false)
	f.Add(`"{\"verdicts\": []}"`, `{"x": {"verdicts": "no"}}`, true)
	f.Add(`{"verdicts": [{"issue": "2", "decision": "KEEP", "reason": 1}]}`, strings.Repeat("{", 100), false)
	f.Fuzz(func(t *testing.T, input, text string, truncated bool) {
		resp := provider.Response{Content: []provider.Block{
			{Type: provider.ToolUse, Name: VerdictTool, Input: json.RawMessage(input)},
			{Type: provider.Text, Text: text},
		}}
		if truncated {
			resp.StopReason = provider.StopMaxTokens
		}
		const n = 3
		vs, errs := ParseVerdicts(resp, n)
		for i := 1; i <= n; i++ {
			_, ok := vs[i]
			if ok == (errs[i] != nil) {
				t.Fatalf("issue %d: verdict %v and error %v; want exactly one", i, ok, errs[i])
			}
		}
		// What was parsed survives a round trip through the tool call.
		list := make([]Verdict, 0, len(vs))
		for i := 1; i <= n; i++ {
			if v, ok := vs[i]; ok {
				list = append(list, v)
			}
		}
		again, _ := json.Marshal(map[string]any{"verdicts": list})
		back, _ := ParseVerdicts(toolAnswer(string(again)), n)
		if diff := cmp.Diff(vs, back); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}
