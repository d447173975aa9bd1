package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
)

const goodFinding = `{"path": "felix/bpf/conntrack/scanner.go", "line": 189, "quote": "log.WithError(err).Debug(\"Failed to update\")", "severity": "medium", "category": "error-handling", "title": "Enqueue failure logged at Debug", "body": "If the update fails the entry is never cleaned up.", "confidence": 0.8}`

// wantGood is goodFinding as parsed for reviewer "correctness".
func wantGood() finding.Finding {
	return finding.Finding{
		Lenses:     []string{"correctness"},
		Path:       "felix/bpf/conntrack/scanner.go",
		Line:       189,
		HintLine:   189,
		Side:       finding.Right,
		Quote:      `log.WithError(err).Debug("Failed to update")`,
		Severity:   finding.Medium,
		Category:   "error-handling",
		Title:      "Enqueue failure logged at Debug",
		Body:       "If the update fails the entry is never cleaned up.",
		Confidence: 0.8,
	}
}

func textResponse(text string) provider.Response {
	return provider.Response{Content: []provider.Block{{Type: provider.Text, Text: text}}, StopReason: "end_turn"}
}

func toolResponse(inputs ...string) provider.Response {
	resp := provider.Response{StopReason: "tool_use"}
	for i, in := range inputs {
		resp.Content = append(resp.Content, provider.Block{Type: provider.ToolUse, ToolUseID: "toolu_" + string(rune('a'+i)), Name: SubmitTool, Input: json.RawMessage(in)})
	}
	return resp
}

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	withGood := func(edit func(*finding.Finding)) finding.Finding {
		f := wantGood()
		edit(&f)
		return f
	}
	tests := []struct {
		name string
		resp provider.Response
		want Answer
	}{
		{
			name: "tool call",
			resp: toolResponse(`{"findings": [` + goodFinding + `], "summary": "- One leak on the error path."}`),
			want: Answer{Findings: []finding.Finding{wantGood()}, Summary: "- One leak on the error path."},
		},
		{
			name: "tool call preferred over text",
			resp: provider.Response{Content: []provider.Block{
				{Type: provider.Text, Text: `{"findings": []}`},
				{Type: provider.ToolUse, Name: "read_file", Input: json.RawMessage(`{"path": "x"}`)},
				{Type: provider.ToolUse, Name: SubmitTool, Input: json.RawMessage(`{"findings": [` + goodFinding + `]}`)},
			}},
			want: Answer{Findings: []finding.Finding{wantGood()}},
		},
		{
			name: "tool input as a JSON string",
			resp: toolResponse(mustQuote(`{"findings": [` + goodFinding + `]}`)),
			want: Answer{Findings: []finding.Finding{wantGood()}},
		},
		{
			name: "several tool calls are merged",
			resp: toolResponse(`{"findings": [`+goodFinding+`], "summary": "a"}`, `{"findings": [], "summary": "b"}`, `{"findings": 3}`),
			want: Answer{Findings: []finding.Finding{wantGood()}, Summary: "a\nb", Problems: []string{
				`submit_review call 3 ignored: "findings" is not an array (got a number)`,
				"3 submit_review calls; merged the 2 usable ones",
			}},
		},
		{
			name: "unusable tool call, JSON in the text",
			resp: provider.Response{Content: []provider.Block{
				{Type: provider.Text, Text: "```json\n{\"findings\": [" + goodFinding + "]}\n```"},
				{Type: provider.ToolUse, Name: SubmitTool, Input: json.RawMessage(`{"findings": [`)},
			}},
			want: Answer{Findings: []finding.Finding{wantGood()}, Problems: []string{
				"submit_review call 1 ignored: invalid JSON in submit_review input: unexpected end of JSON input",
			}},
		},
		{
			name: "fenced json",
			resp: textResponse("Here is my review.\n\n```json\n{\"findings\": [" + goodFinding + "], \"summary\": \"ok\"}\n```\n"),
			want: Answer{Findings: []finding.Finding{wantGood()}, Summary: "ok"},
		},
		{
			name: "bare fence",
			resp: textResponse("```\n{\"findings\": [" + goodFinding + "]}\n```"),
			want: Answer{Findings: []finding.Finding{wantGood()}},
		},
		{
			name: "bare json with prose and braces around it",
			resp: textResponse("I looked at `func f() { return }` and map[string]{}.\n{\"summary\": \"not this\"}\nThen: {\"findings\": [" + goodFinding + "], \"summary\": \"this {one}\"} Thanks!"),
			want: Answer{Findings: []finding.Finding{wantGood()}, Summary: "this {one}"},
		},
		{
			name: "two json blocks: the first with findings wins",
			resp: textResponse("```json\n{\"findings\": [], \"summary\": \"first\"}\n```\nOn reflection:\n```json\n{\"findings\": [" + goodFinding + "], \"summary\": \"second\"}\n```"),
			want: Answer{Summary: "first"},
		},
		{
			name: "invalid block before a valid one",
			resp: textResponse("```json\n{\"findings\": [,]}\n```\n```json\n{\"findings\": [" + goodFinding + "]}\n```"),
			want: Answer{Findings: []finding.Finding{wantGood()}},
		},
		{
			name: "empty",
			resp: toolResponse(`{"findings": []}`),
			want: Answer{},
		},
		{
			name: "findings null",
			resp: toolResponse(`{"findings": null, "summary": "Nothing to report."}`),
			want: Answer{Summary: "Nothing to report.", Problems: []string{`"findings" was null; read as no findings`}},
		},
		{
			name: "summary as a list",
			resp: toolResponse(`{"findings": [], "summary": ["Looks right.", "- Tests cover it."]}`),
			want: Answer{Summary: "- Looks right.\n- Tests cover it."},
		},
		{
			name: "severity synonyms",
			resp: toolResponse(`{"findings": [` +
				strings.Replace(goodFinding, `"medium"`, `"Blocker"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"error"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"major"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"warning"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"minor"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"info"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"suggestion"`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `" HIGH "`, 1) + `,` +
				strings.Replace(goodFinding, `"medium"`, `"urgent"`, 1) + `]}`),
			want: Answer{
				Findings: []finding.Finding{
					withGood(func(f *finding.Finding) { f.Severity = finding.Critical }),
					withGood(func(f *finding.Finding) { f.Severity = finding.High }),
					withGood(func(f *finding.Finding) { f.Severity = finding.High }),
					withGood(func(f *finding.Finding) { f.Severity = finding.Low }),
					withGood(func(f *finding.Finding) { f.Severity = finding.Low }),
					withGood(func(f *finding.Finding) { f.Severity = finding.Nit }),
					withGood(func(f *finding.Finding) { f.Severity = finding.Nit }),
					withGood(func(f *finding.Finding) { f.Severity = finding.High }),
					wantGood(),
				},
				Problems: []string{`finding 9 of 9: severity "urgent" is not one of critical, high, medium, low, nit; using medium`},
			},
		},
		{
			name: "categories",
			resp: toolResponse(`{"findings": [` +
				strings.Replace(goodFinding, `"error-handling"`, `"Error Handling"`, 1) + `,` +
				strings.Replace(goodFinding, `"error-handling"`, `"race condition"`, 1) + `,` +
				strings.Replace(goodFinding, `"error-handling"`, `"cosmic-rays"`, 1) + `,` +
				strings.Replace(goodFinding, `"category": "error-handling", `, ``, 1) + `]}`),
			want: Answer{
				Findings: []finding.Finding{
					wantGood(),
					withGood(func(f *finding.Finding) { f.Category = "concurrency" }),
					withGood(func(f *finding.Finding) { f.Category = "other" }),
					withGood(func(f *finding.Finding) { f.Category = "other" }),
				},
				Problems: []string{
					`finding 3 of 4: category "cosmic-rays" is not one of bug, concurrency, error-handling, security, performance, tests, docs, naming, api-design, style, other; using other`,
					"finding 4 of 4: no category; using other",
				},
			},
		},
		{
			name: "bad finding among good",
			resp: toolResponse(`{"findings": [` + goodFinding + `,
				{"path": "a.go", "line": 3, "quote": "x", "severity": "high", "category": "bug", "title": "No body"},
				"just a string",
				{"line": 4, "severity": "high"},
				{"path": "b.go", "title": 7, "body": "Title is a number."},
				` + goodFinding + `]}`),
			want: Answer{
				Findings: []finding.Finding{wantGood(), wantGood()},
				Problems: []string{
					`finding 2 of 6: dropped ("No body"): no body`,
					"finding 3 of 6: dropped: not a JSON object (got a string)",
					"finding 4 of 6: dropped: no path, no title, no body",
					"finding 5 of 6: title ignored: not a string (got a number)",
					`finding 5 of 6: dropped ("b.go"): no title`,
				},
			},
		},
		{
			name: "numeric strings, swapped range, clamped confidence",
			resp: toolResponse(`{"findings": [{"path": "a.go", "line": "12", "start_line": " 20 ", "quote": "x := 1", "severity": "low", "category": "bug", "title": "T", "body": "B", "confidence": "1.7"}]}`),
			want: Answer{
				Findings: []finding.Finding{{
					Lenses: []string{"correctness"}, Path: "a.go", Line: 20, StartLine: 12, HintLine: 20, HintStartLine: 12,
					Side: finding.Right, Quote: "x := 1", Severity: finding.Low, Category: "bug", Title: "T", Body: "B", Confidence: 1,
				}},
				Problems: []string{"finding 1 of 1: confidence 1.7 is above 1; using 1"},
			},
		},
		{
			name: "bad line numbers, missing quote and confidence",
			resp: toolResponse(`{"findings": [{"path": "a.go", "line": "twelve", "start_line": 2.5, "side": "middle", "severity": "nit", "category": "naming", "title": "T", "body": "B", "suggestion": "  y := 2\n", "fix_prompt": " rename x "}]}`),
			want: Answer{
				Findings: []finding.Finding{{
					Lenses: []string{"correctness"}, Path: "a.go", Side: finding.Right, Severity: finding.Nit, Category: "naming",
					Title: "T", Body: "B", Suggestion: "  y := 2\n", FixPrompt: "rename x", Confidence: 0.5,
				}},
				Problems: []string{
					"finding 1 of 1: no quote; the anchor has only the line number to go on",
					`finding 1 of 1: line "twelve" is not a line number; ignored`,
					"finding 1 of 1: start_line 2.5 is not a line number; ignored",
					`finding 1 of 1: side "middle" is not RIGHT or LEFT; using RIGHT`,
				},
			},
		},
		{
			name: "LEFT side",
			resp: toolResponse(`{"findings": [{"path": "a.go", "line": 7, "side": "left", "quote": "return maps.IterDelete", "severity": "high", "category": "bug", "title": "Inline delete removed", "body": "Nothing deletes now.", "confidence": 0.9}]}`),
			want: Answer{Findings: []finding.Finding{{
				Lenses: []string{"correctness"}, Path: "a.go", Line: 7, HintLine: 7, Side: finding.Left, Quote: "return maps.IterDelete",
				Severity: finding.High, Category: "bug", Title: "Inline delete removed", Body: "Nothing deletes now.", Confidence: 0.9,
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseAnswer("correctness", tt.resp)
			if err != nil {
				t.Fatalf("ParseAnswer() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseAnswer() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseAnswerErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 500)
	tests := []struct {
		name    string
		resp    provider.Response
		reason  string
		excerpt string
	}{
		{
			name:    "garbage",
			resp:    textResponse("I could not review this change, sorry."),
			reason:  "no JSON object found in the answer",
			excerpt: "I could not review this change, sorry.",
		},
		{
			name:    "invalid json",
			resp:    textResponse("```json\n{\"findings\": [{\"path\": \"a.go\",}]}\n```"),
			reason:  "invalid JSON: invalid character '}' looking for beginning of object key string",
			excerpt: "```json\n{\"findings\": [{\"path\": \"a.go\",}]}\n```",
		},
		{
			name:    "object without findings",
			resp:    textResponse(`{"issues": []}`),
			reason:  `no JSON object with a "findings" key`,
			excerpt: `{"issues": []}`,
		},
		{
			name:    "findings not an array",
			resp:    textResponse(`{"findings": {"path": "a.go"}}`),
			reason:  `"findings" is not an array (got an object)`,
			excerpt: `{"findings": {"path": "a.go"}}`,
		},
		{
			name:    "tool input not an object",
			resp:    toolResponse(`[1, 2]`),
			reason:  "invalid JSON in submit_review input: json: cannot unmarshal array into Go value of type map[string]json.RawMessage",
			excerpt: `[1, 2]`,
		},
		{
			name:    "tool input without findings",
			resp:    toolResponse(`{"summary": "fine"}`),
			reason:  `submit_review input has no "findings" key`,
			excerpt: `{"summary": "fine"}`,
		},
		{
			name:   "empty",
			resp:   provider.Response{StopReason: "end_turn"},
			reason: "empty answer: no submit_review call and no text",
		},
		{
			name:    "truncated text",
			resp:    provider.Response{Content: []provider.Block{{Type: provider.Text, Text: "```json\n{\"findings\": [{\"path\": \"a.go\", \"body\": \"The"}}, StopReason: "max_tokens"},
			reason:  "answer truncated at max_tokens; raise budget.max_output_tokens",
			excerpt: "```json\n{\"findings\": [{\"path\": \"a.go\", \"body\": \"The",
		},
		{
			name:    "truncated tool call",
			resp:    provider.Response{Content: []provider.Block{{Type: provider.ToolUse, Name: SubmitTool, Input: json.RawMessage(`{"findings": [{"pa`)}}, StopReason: "length"},
			reason:  "answer truncated at max_tokens; raise budget.max_output_tokens",
			excerpt: `{"findings": [{"pa`,
		},
		{
			name:    "excerpt is at most 200 characters",
			resp:    textResponse(long),
			reason:  "no JSON object found in the answer",
			excerpt: strings.Repeat("é", 200),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseAnswer("security", tt.resp)
			var ae *AnswerError
			if !errors.As(err, &ae) {
				t.Fatalf("ParseAnswer() error = %v, want an *AnswerError", err)
			}
			want := &AnswerError{Reviewer: "security", Reason: tt.reason, Excerpt: tt.excerpt}
			if diff := cmp.Diff(want, ae); diff != "" {
				t.Errorf("AnswerError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnswerErrorMessage(t *testing.T) {
	t.Parallel()
	err := &AnswerError{Reviewer: "security", Reason: "no JSON object found in the answer", Excerpt: "Sorry,\nno."}
	want := `reviewer security: no JSON object found in the answer (answer began "Sorry,\nno.")`
	if err.Error() != want {
		t.Errorf("Error() = %s, want %s", err, want)
	}
}

func TestParseAnswerAdversarialText(t *testing.T) {
	t.Parallel()
	// Many unclosed braces must not make the scan quadratic; this finishes in milliseconds.
	text := strings.Repeat(`{"a":[`, 200000) + `{"findings": []}`
	_, err := ParseAnswer("correctness", textResponse(text))
	var ae *AnswerError
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v, want an *AnswerError (the scan budget is spent before the end)", err)
	}
}

func TestSubmitToolSchema(t *testing.T) {
	t.Parallel()
	raw := SubmitToolSchema()
	if !bytes.Equal(raw, SubmitToolSchema()) {
		t.Fatal("SubmitToolSchema() differs between calls: it is part of the cached prompt prefix")
	}
	raw[0] = 'X' // callers own the copy
	raw = SubmitToolSchema()

	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("submit_review.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("submit_review.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}

	valid := []string{
		`{"findings": []}`,
		`{"findings": [` + goodFinding + `], "summary": "- fine"}`,
		`{"findings": [{"path": "a.go", "line": 3, "start_line": 1, "side": "LEFT", "quote": "x", "severity": "nit", "category": "docs", "title": "t", "body": "b", "suggestion": "y", "confidence": 1, "fix_prompt": "do"}]}`,
	}
	invalid := []string{
		`{}`,
		`{"findings": {}}`,
		`{"findings": [], "extra": 1}`,
		`{"findings": [{"path": "a.go"}]}`,
		strings.Replace(`{"findings": [`+goodFinding+`]}`, `"medium"`, `"urgent"`, 1),
		strings.Replace(`{"findings": [`+goodFinding+`]}`, `"error-handling"`, `"cosmic"`, 1),
		strings.Replace(`{"findings": [`+goodFinding+`]}`, `0.8`, `1.5`, 1),
		strings.Replace(`{"findings": [`+goodFinding+`]}`, `189`, `0`, 1),
	}
	for _, in := range valid {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("valid answer rejected: %s\n%v", in, err)
		}
		if _, err := ParseAnswer("x", toolResponse(in)); err != nil {
			t.Errorf("ParseAnswer rejects a schema-valid answer %s: %v", in, err)
		}
	}
	for _, in := range invalid {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err == nil {
			t.Errorf("invalid answer accepted: %s", in)
		}
	}

	// The enums are the finding package's, so the two cannot drift.
	var s struct {
		Properties struct {
			Findings struct {
				Items struct {
					Properties map[string]struct {
						Enum []string `json:"enum"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"findings"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	props := s.Properties.Findings.Items.Properties
	if !slices.Equal(props["category"].Enum, finding.Categories) {
		t.Errorf("category enum = %v, want %v", props["category"].Enum, finding.Categories)
	}
	if len(props["severity"].Enum) != len(finding.Severities) {
		t.Errorf("severity enum = %v", props["severity"].Enum)
	}
}

func mustQuote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// FuzzParseAnswer feeds random text and tool input to ParseAnswer: it must never panic, and
// whatever it returns must keep the contract.
func FuzzParseAnswer(f *testing.F) {
	f.Add("", []byte(nil), false)
	f.Add("```json\n{\"findings\": ["+goodFinding+"]}\n```", []byte(nil), false)
	f.Add("prose {\"findings\": [{\"path\": \"a\", \"title\": \"t\", \"body\": \"b\", \"line\": \"9\", \"start_line\": 30}]} more", []byte(nil), false)
	f.Add("", []byte(`{"findings": [`+goodFinding+`], "summary": ["a", 1]}`), false)
	f.Add("", []byte(`"{\"findings\": []}"`), false)
	f.Add("{\"findings\": [{\"path\": \"a.go\", \"body\": \"The", []byte(nil), true)
	f.Add("{{{{\"\\", []byte(`{"findings": "[1]"}`), true)
	f.Add("{\"findings\":[{\"path\":\"p\",\"title\":\"t\",\"body\":\"b\",\"confidence\":\"NaN\",\"line\":1e300}]}", []byte(nil), false)
	f.Fuzz(func(t *testing.T, text string, input []byte, truncated bool) {
		resp := provider.Response{StopReason: "end_turn"}
		if truncated {
			resp.StopReason = "max_tokens"
		}
		if text != "" {
			resp.Content = append(resp.Content, provider.Block{Type: provider.Text, Text: text})
		}
		if input != nil {
			resp.Content = append(resp.Content, provider.Block{Type: provider.ToolUse, Name: SubmitTool, Input: input})
		}
		a, err := ParseAnswer("fuzz", resp)
		if err != nil {
			var ae *AnswerError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T is not an *AnswerError: %v", err, err)
			}
			if n := utf8.RuneCountInString(ae.Excerpt); n > excerptRunes {
				t.Fatalf("excerpt has %d runes", n)
			}
			if ae.Reviewer != "fuzz" || ae.Reason == "" {
				t.Fatalf("incomplete error %+v", ae)
			}
			return
		}
		for _, f := range a.Findings {
			switch {
			case f.Path == "" || f.Title == "" || f.Body == "":
				t.Fatalf("finding without path, title or body: %+v", f)
			case f.Severity.Rank() == 0:
				t.Fatalf("severity %q", f.Severity)
			case !slices.Contains(finding.Categories, f.Category):
				t.Fatalf("category %q", f.Category)
			case f.Side != finding.Right && f.Side != finding.Left:
				t.Fatalf("side %q", f.Side)
			case !(f.Confidence >= 0 && f.Confidence <= 1):
				t.Fatalf("confidence %v", f.Confidence)
			case f.Line < 0 || f.StartLine < 0 || f.StartLine > f.Line:
				t.Fatalf("lines %d..%d", f.StartLine, f.Line)
			case f.HintLine != f.Line || f.HintStartLine != f.StartLine:
				t.Fatalf("hints %d..%d for lines %d..%d", f.HintStartLine, f.HintLine, f.StartLine, f.Line)
			case len(f.Lenses) != 1 || f.Lenses[0] != "fuzz" || f.Status != "":
				t.Fatalf("lenses %v, status %q", f.Lenses, f.Status)
			}
		}
	})
}
