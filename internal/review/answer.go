package review

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
)

// SubmitTool is the tool a reviewer calls with its answer.
const SubmitTool = "submit_review"

// SubmitToolSchema is the JSON Schema of a reviewer's answer, the input_schema of SubmitTool.
// It is the same bytes on every call: tools are part of the prompt prefix providers cache.
func SubmitToolSchema() json.RawMessage {
	return slices.Clone(submitSchema())
}

var submitSchema = sync.OnceValue(func() json.RawMessage {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	finding := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":       map[string]any{"type": "string", "minLength": 1, "description": "File path as shown in the diff (the new path for a rename)."},
			"line":       map[string]any{"type": "integer", "minimum": 1, "description": "Line number shown in the diff: new side, or old side when side is LEFT. The last line for several lines."},
			"start_line": map[string]any{"type": "integer", "minimum": 1, "description": "First line, when the finding covers several consecutive lines."},
			"side":       map[string]any{"type": "string", "enum": []string{string(finding.Right), string(finding.Left)}, "description": "RIGHT (default) for added or unchanged lines, LEFT for deleted lines."},
			"quote":      str("The exact code of the line(s) concerned, copied from the diff without line numbers or diff markers."),
			"severity":   map[string]any{"type": "string", "enum": severityNames()},
			"category":   map[string]any{"type": "string", "enum": finding.Categories},
			"title":      str("One line."),
			"body":       str("Markdown: what is wrong, the impact, and the fix."),
			"suggestion": str("Optional: a complete, committable replacement for exactly the quoted lines."),
			"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "Probability that a careful maintainer agrees this is a real problem worth fixing."},
			"fix_prompt": str("Optional: one short instruction a coding agent could act on."),
		},
		"required":             []string{"path", "quote", "severity", "category", "title", "body"},
		"additionalProperties": false,
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"findings": map[string]any{"type": "array", "items": finding, "description": "The problems found; empty when there are none."},
			"summary":  str("1 to 4 short Markdown bullets: the overall assessment from your focus."),
		},
		"required":             []string{"findings"},
		"additionalProperties": false,
	}
	data, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("review: marshal submit_review schema: %v", err))
	}
	return data
})

func severityNames() []string {
	out := make([]string, len(finding.Severities))
	for i, s := range finding.Severities {
		out[i] = string(s)
	}
	return out
}

// Answer is one reviewer's parsed answer for one request.
type Answer struct {
	Findings []finding.Finding
	Summary  string
	// Problems lists what the parser repaired or dropped (an unknown severity, a finding
	// without a body): shown with the reviewer's results, never silently lost.
	Problems []string
}

// AnswerError is an answer that cannot be used at all: no JSON object, invalid JSON, findings
// that are not a list, or an answer cut off at the output limit. It is recorded against the
// reviewer; the run goes on.
type AnswerError struct {
	Reviewer string
	Reason   string
	Excerpt  string // the start of the raw answer, at most excerptRunes runes
}

func (e *AnswerError) Error() string {
	s := fmt.Sprintf("reviewer %s: %s", e.Reviewer, e.Reason)
	if e.Excerpt != "" {
		s += fmt.Sprintf(" (answer began %q)", e.Excerpt)
	}
	return s
}

const excerptRunes = 200

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= excerptRunes {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	r := []rune(s)
	return string(r[:excerptRunes])
}

// maxLine is the largest line number believed; beyond it the model is making numbers up.
const maxLine = 10_000_000

// ParseAnswer reads a reviewer's answer: the input of a submit_review tool call when there is
// one (several calls are merged), else a JSON object in the text, fenced or not, surrounded by
// prose or not (the first balanced object with a "findings" key). It is lenient per finding
// and strict per answer: a finding with a bad field is repaired or dropped with a Problem; an
// answer without a usable object is an *AnswerError. It never panics.
func ParseAnswer(reviewer string, resp provider.Response) (Answer, error) {
	truncated := resp.StopReason == "max_tokens" || resp.StopReason == "length"
	fail := func(reason, raw string) error {
		if truncated {
			reason = "answer truncated at max_tokens; raise budget.max_output_tokens"
		}
		return &AnswerError{Reviewer: reviewer, Reason: reason, Excerpt: excerpt(raw)}
	}

	var (
		merged   Answer
		answered int
		calls    int
		toolWhy  string // why the first unusable submit_review call is unusable
		toolRaw  string // its input
	)
	for _, b := range resp.Content {
		if b.Type != provider.ToolUse || b.Name != SubmitTool {
			continue
		}
		calls++
		obj, reason := toolObject(b.Input)
		var a Answer
		if obj != nil {
			a, reason = fromObject(reviewer, obj)
		}
		if reason != "" {
			if toolWhy == "" {
				toolWhy, toolRaw = reason, string(b.Input)
			}
			merged.Problems = append(merged.Problems, fmt.Sprintf("submit_review call %d ignored: %s", calls, reason))
			continue
		}
		answered++
		merged.Findings = append(merged.Findings, a.Findings...)
		merged.Problems = append(merged.Problems, a.Problems...)
		if a.Summary != "" {
			if merged.Summary != "" {
				merged.Summary += "\n"
			}
			merged.Summary += a.Summary
		}
	}
	if answered > 0 {
		if calls > 1 {
			merged.Problems = append(merged.Problems, fmt.Sprintf("%d submit_review calls; merged the %d usable ones", calls, answered))
		}
		return merged, nil
	}

	// No usable tool call: the answer may be JSON in the text.
	text := resp.Text()
	obj, reason := findObject(text)
	if obj != nil {
		a, reason := fromObject(reviewer, obj)
		if reason != "" {
			return Answer{}, fail(reason, text)
		}
		a.Problems = append(merged.Problems, a.Problems...) // the unusable tool calls, if any
		return a, nil
	}
	switch {
	case toolWhy != "" && (!truncated || strings.TrimSpace(text) == ""):
		return Answer{}, fail(toolWhy, toolRaw)
	case strings.TrimSpace(text) == "":
		reason = "empty answer: no submit_review call and no text"
	}
	return Answer{}, fail(reason, text)
}

// toolObject decodes a tool call's input, tolerating an object that arrives JSON-encoded as a
// string, as some OpenAI-compatible servers send arguments.
func toolObject(input json.RawMessage) (map[string]json.RawMessage, string) {
	if len(strings.TrimSpace(string(input))) == 0 {
		return nil, "submit_review was called without input"
	}
	var obj map[string]json.RawMessage
	err := json.Unmarshal(input, &obj)
	if err != nil {
		var s string
		if json.Unmarshal(input, &s) == nil {
			err = json.Unmarshal([]byte(s), &obj)
		}
	}
	if err != nil {
		return nil, "invalid JSON in submit_review input: " + err.Error()
	}
	if obj == nil {
		return nil, "submit_review input is null, not an object"
	}
	if _, ok := obj["findings"]; !ok {
		return nil, `submit_review input has no "findings" key`
	}
	return obj, ""
}

// findObject finds the first top-level JSON object in text with a "findings" key, or says why
// there is none.
func findObject(text string) (map[string]json.RawMessage, string) {
	obj, saw, problem := FindObject(text, func(o map[string]json.RawMessage) bool {
		_, ok := o["findings"]
		return ok
	}, false)
	switch {
	case obj != nil:
		return obj, ""
	case problem != "":
		return nil, problem
	case saw:
		return nil, `no JSON object with a "findings" key`
	default:
		return nil, "no JSON object found in the answer"
	}
}

// fromObject turns a decoded answer object into an Answer, or says why it cannot.
func fromObject(reviewer string, obj map[string]json.RawMessage) (Answer, string) {
	var a Answer
	items, problem, reason := findingList(obj["findings"])
	if reason != "" {
		return Answer{}, reason
	}
	if problem != "" {
		a.Problems = append(a.Problems, problem)
	}
	for i, item := range items {
		f, problems, ok := parseFinding(reviewer, i+1, len(items), item)
		a.Problems = append(a.Problems, problems...)
		if ok {
			a.Findings = append(a.Findings, f)
		}
	}
	if raw, ok := obj["summary"]; ok {
		s, problem := summary(raw)
		a.Summary = s
		if problem != "" {
			a.Problems = append(a.Problems, problem)
		}
	}
	return a, ""
}

// findingList decodes the "findings" value: an array; null or a JSON-encoded array string are
// accepted with a problem noted; anything else is a reason to reject the answer.
func findingList(raw json.RawMessage) (items []json.RawMessage, problem, reason string) {
	if err := json.Unmarshal(raw, &items); err == nil {
		if items == nil && strings.TrimSpace(string(raw)) == "null" {
			return nil, `"findings" was null; read as no findings`, ""
		}
		return items, "", ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && json.Unmarshal([]byte(s), &items) == nil && items != nil {
		return items, `"findings" was a JSON-encoded string; decoded it`, ""
	}
	return nil, "", fmt.Sprintf(`"findings" is not an array (got %s)`, jsonKind(raw))
}

func jsonKind(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '[':
		return "an array"
	}
	return "a number"
}

func summary(raw json.RawMessage) (string, string) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strings.TrimSpace(s), ""
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		var b strings.Builder
		for _, item := range list {
			if item = strings.TrimSpace(item); item != "" {
				if !strings.HasPrefix(item, "- ") && !strings.HasPrefix(item, "* ") {
					b.WriteString("- ")
				}
				b.WriteString(item)
				b.WriteString("\n")
			}
		}
		return strings.TrimSpace(b.String()), ""
	}
	return "", fmt.Sprintf("summary ignored: not a string (got %s)", jsonKind(raw))
}

// severitySynonyms are the words models use for the contract's severities.
var severitySynonyms = invert(map[finding.Severity][]string{
	finding.Critical: {"blocker", "fatal"},
	finding.High:     {"error", "major"},
	finding.Medium:   {"moderate", "normal"},
	finding.Low:      {"warning", "warn", "minor"},
	finding.Nit:      {"info", "informational", "suggestion", "trivial", "style"},
})

// categorySynonyms map common variants onto the contract's categories.
var categorySynonyms = invert(map[string][]string{
	"bug":            {"bugs", "correctness", "logic"},
	"concurrency":    {"race", "race-condition", "data-race", "deadlock"},
	"error-handling": {"error", "errors"},
	"security":       {"sec", "vulnerability"},
	"performance":    {"perf"},
	"tests":          {"test", "testing", "test-coverage"},
	"docs":           {"doc", "documentation", "comment", "comments"},
	"naming":         {"name"},
	"api-design":     {"api", "design"},
	"style":          {"formatting"},
})

func invert[V comparable](m map[V][]string) map[string]V {
	out := map[string]V{}
	for v, words := range m {
		for _, w := range words {
			out[w] = v
		}
	}
	return out
}

// parseFinding reads the n-th of total findings. It returns ok false when the finding is
// dropped; problems say what was repaired or why it was dropped.
func parseFinding(reviewer string, n, total int, raw json.RawMessage) (finding.Finding, []string, bool) {
	var problems []string
	note := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("finding %d of %d: ", n, total)+fmt.Sprintf(format, args...))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		note("dropped: not a JSON object (got %s)", jsonKind(raw))
		return finding.Finding{}, problems, false
	}
	str := func(key string) (string, bool) {
		v, ok := m[key]
		if !ok || strings.TrimSpace(string(v)) == "null" {
			return "", false
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			note("%s ignored: not a string (got %s)", key, jsonKind(v))
			return "", false
		}
		return s, true
	}

	f := finding.Finding{Lenses: []string{reviewer}, Side: finding.Right}
	path, _ := str("path")
	f.Path = strings.TrimSpace(path)
	title, _ := str("title")
	f.Title = strings.TrimSpace(title)
	body, _ := str("body")
	f.Body = strings.TrimSpace(body)
	var missing []string
	for _, fv := range []struct{ key, v string }{{"path", f.Path}, {"title", f.Title}, {"body", f.Body}} {
		if fv.v == "" {
			missing = append(missing, fv.key)
		}
	}
	if len(missing) > 0 {
		what := f.Title
		if what == "" {
			what = f.Path
		}
		if what != "" {
			note("dropped (%q): no %s", excerptShort(what), strings.Join(missing, ", no "))
		} else {
			note("dropped: no %s", strings.Join(missing, ", no "))
		}
		return finding.Finding{}, problems, false
	}

	f.Quote, _ = str("quote")
	if strings.TrimSpace(f.Quote) == "" {
		f.Quote = ""
		note("no quote; the anchor has only the line number to go on")
	}
	f.Suggestion, _ = str("suggestion")
	fixPrompt, _ := str("fix_prompt")
	f.FixPrompt = strings.TrimSpace(fixPrompt)

	f.Line = lineNumber(m, "line", note)
	f.StartLine = lineNumber(m, "start_line", note)
	if f.StartLine > f.Line {
		f.StartLine, f.Line = f.Line, f.StartLine
	}
	f.HintLine, f.HintStartLine = f.Line, f.StartLine

	if side, ok := str("side"); ok {
		switch strings.ToUpper(strings.TrimSpace(side)) {
		case string(finding.Right), "":
		case string(finding.Left):
			f.Side = finding.Left
		default:
			note("side %q is not RIGHT or LEFT; using RIGHT", side)
		}
	}

	sev, ok := str("severity")
	key := strings.ToLower(strings.TrimSpace(sev))
	switch {
	case !ok:
		f.Severity = finding.Medium
		note("no severity; using medium")
	case finding.Severity(key).Rank() > 0:
		f.Severity = finding.Severity(key)
	case severitySynonyms[key] != "":
		f.Severity = severitySynonyms[key]
	default:
		f.Severity = finding.Medium
		note("severity %q is not one of %s; using medium", sev, strings.Join(severityNames(), ", "))
	}

	cat, ok := str("category")
	key = strings.NewReplacer(" ", "-", "_", "-").Replace(strings.ToLower(strings.TrimSpace(cat)))
	switch {
	case !ok || key == "":
		f.Category = "other"
		note("no category; using other")
	case slices.Contains(finding.Categories, key):
		f.Category = key
	case categorySynonyms[key] != "":
		f.Category = categorySynonyms[key]
	default:
		f.Category = "other"
		note("category %q is not one of %s; using other", cat, strings.Join(finding.Categories, ", "))
	}

	f.Confidence = 0.5
	if v, ok := m["confidence"]; ok && strings.TrimSpace(string(v)) != "null" {
		c, ok := number(v)
		switch {
		case !ok:
			note("confidence %s is not a number; using 0.5", excerptShort(string(v)))
		case c < 0:
			f.Confidence = 0
			note("confidence %g is below 0; using 0", c)
		case c > 1:
			f.Confidence = 1
			note("confidence %g is above 1; using 1", c)
		default:
			f.Confidence = c
		}
	}
	return f, problems, true
}

// lineNumber reads a line number given as a JSON number or a numeric string; 0 when absent.
func lineNumber(m map[string]json.RawMessage, key string, note func(string, ...any)) int {
	v, ok := m[key]
	if !ok || strings.TrimSpace(string(v)) == "null" {
		return 0
	}
	x, ok := number(v)
	if !ok || x != math.Trunc(x) || x < 0 || x > maxLine {
		note("%s %s is not a line number; ignored", key, excerptShort(string(v)))
		return 0
	}
	return int(x)
}

// number reads a JSON number or a string holding one.
func number(v json.RawMessage) (float64, bool) {
	var x float64
	if err := json.Unmarshal(v, &x); err == nil {
		return x, true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

func excerptShort(s string) string {
	const limit = 40
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
