package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
)

// Check is the answer to one of the validator's questions.
type Check struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason"`
}

// Verdict is the validator's answer about one finding.
type Verdict struct {
	True       Check `json:"true_of_code"`
	Introduced Check `json:"introduced_by_change"`
	Actionable Check `json:"specific_and_actionable"`
}

// Passed says whether the finding passed every check.
func (v Verdict) Passed() bool {
	return v.True.OK && v.Introduced.OK && v.Actionable.OK
}

// FilterReason is the reason a rejected finding carries: "validator: <check>: <reason>" for
// each failed check, in the order they are asked, joined by "; ". It is empty when v passed.
func (v Verdict) FilterReason() string {
	var failed []string
	for _, c := range v.checks() {
		if !c.check.OK {
			reason := oneLine(c.check.Reason)
			if reason == "" {
				reason = "no reason given"
			}
			failed = append(failed, c.name+": "+reason)
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return "validator: " + strings.Join(failed, "; ")
}

func (v Verdict) checks() []struct {
	name  string
	check Check
} {
	return []struct {
		name  string
		check Check
	}{{CheckTrue, v.True}, {CheckIntroduced, v.Introduced}, {CheckActionable, v.Actionable}}
}

// VerdictError is an answer that holds no usable verdict: no JSON object, a missing check, an
// "ok" that is neither a boolean nor yes/no, or an answer cut off at the output limit. The
// finding it was about is kept unchecked.
type VerdictError struct {
	Reason  string
	Excerpt string // the start of the raw answer, at most excerptRunes runes
}

func (e *VerdictError) Error() string {
	s := "malformed verdict: " + e.Reason
	if e.Excerpt != "" {
		s += fmt.Sprintf(" (answer began %q)", e.Excerpt)
	}
	return s
}

const excerptRunes = 200

func excerpt(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	return string([]rune(s)[:excerptRunes])
}

// ParseVerdict reads the validator's answer: the input of a submit_verdict tool call when there
// is a usable one (the first), else a JSON object in the text, fenced or not, surrounded by
// prose or not (the first object holding one of the checks). Each check's "ok" may be a
// boolean or a "yes"/"no" ("true"/"false") string. A missing check is an error: a verdict is
// all three answers or none. It returns a *VerdictError for an unusable answer and never
// panics.
func ParseVerdict(resp provider.Response) (Verdict, error) {
	fail := func(reason, raw string) error {
		if resp.Truncated() {
			reason = "answer truncated at max_tokens; raise the validator's max output tokens"
		}
		return &VerdictError{Reason: reason, Excerpt: excerpt(raw)}
	}
	var toolWhy, toolRaw string // why the first unusable submit_verdict call is unusable
	for _, b := range resp.Content {
		if b.Type != provider.ToolUse || b.Name != VerdictTool {
			continue
		}
		obj, reason := toolObject(b.Input)
		var v Verdict
		if obj != nil {
			v, reason = fromObject(obj)
		}
		if reason == "" {
			return v, nil
		}
		if toolWhy == "" {
			toolWhy, toolRaw = reason, string(b.Input)
		}
	}

	text := resp.Text()
	if obj, reason := findObject(text); obj != nil {
		v, reason := fromObject(obj)
		if reason != "" {
			return Verdict{}, fail(reason, text)
		}
		return v, nil
	} else if toolWhy == "" {
		if strings.TrimSpace(text) == "" {
			reason = "empty answer: no submit_verdict call and no text"
		}
		return Verdict{}, fail(reason, text)
	}
	return Verdict{}, fail(toolWhy, toolRaw)
}

// toolObject decodes a tool call's input, tolerating an object that arrives JSON-encoded as a
// string, as some OpenAI-compatible servers send arguments.
func toolObject(input json.RawMessage) (map[string]json.RawMessage, string) {
	if len(bytes.TrimSpace(input)) == 0 {
		return nil, "submit_verdict was called without input"
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
		return nil, "invalid JSON in submit_verdict input: " + err.Error()
	}
	if obj == nil {
		return nil, "submit_verdict input is null, not an object"
	}
	return obj, ""
}

// hasCheck says whether obj holds at least one of the checks: the mark of a verdict object.
func hasCheck(obj map[string]json.RawMessage) bool {
	for _, k := range []string{CheckTrue, CheckIntroduced, CheckActionable} {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// findObject finds the first JSON object in text holding one of the checks, looking inside
// objects that do not (a verdict wrapped in {"verdict": ...}), or says why there is none.
func findObject(text string) (map[string]json.RawMessage, string) {
	obj, saw, problem := review.FindObject(text, hasCheck, true)
	switch {
	case obj != nil:
		return obj, ""
	case saw:
		return nil, fmt.Sprintf("no JSON object with %q, %q or %q", CheckTrue, CheckIntroduced, CheckActionable)
	case problem != "":
		return nil, problem
	default:
		return nil, "no JSON object found in the answer"
	}
}

// fromObject reads the three checks of a verdict object, or says why it cannot.
func fromObject(obj map[string]json.RawMessage) (Verdict, string) {
	var v Verdict
	var problems []string
	for _, c := range []struct {
		name string
		dst  *Check
	}{{CheckTrue, &v.True}, {CheckIntroduced, &v.Introduced}, {CheckActionable, &v.Actionable}} {
		raw, ok := obj[c.name]
		if !ok || isNull(raw) {
			problems = append(problems, fmt.Sprintf("%q is missing", c.name))
			continue
		}
		check, problem := parseCheck(raw)
		if problem != "" {
			problems = append(problems, fmt.Sprintf("%q: %s", c.name, problem))
			continue
		}
		*c.dst = check
	}
	if len(problems) > 0 {
		return Verdict{}, strings.Join(problems, "; ")
	}
	return v, ""
}

// parseCheck reads {"ok": ..., "reason": "..."}; a bare boolean or yes/no is read as a check
// without a reason.
func parseCheck(raw json.RawMessage) (Check, string) {
	if ok, good := yesNo(raw); good {
		return Check{OK: ok}, ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Check{}, fmt.Sprintf("not an object (got %s)", excerptShort(string(raw)))
	}
	okRaw, present := m["ok"]
	if !present || isNull(okRaw) {
		return Check{}, `no "ok"`
	}
	ok, good := yesNo(okRaw)
	if !good {
		return Check{}, fmt.Sprintf(`"ok" is not a boolean or yes/no (got %s)`, excerptShort(string(okRaw)))
	}
	c := Check{OK: ok}
	if r, present := m["reason"]; present && !isNull(r) {
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			// Not a string: keep what the model said rather than lose the reason.
			var b bytes.Buffer
			if json.Compact(&b, r) == nil {
				s = b.String()
			}
		}
		c.Reason = strings.TrimSpace(s)
	}
	return c, ""
}

// yesNo reads a JSON boolean, or a string saying yes or no.
func yesNo(raw json.RawMessage) (bool, bool) {
	if isNull(raw) {
		return false, false
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false, false
	}
	switch strings.ToLower(strings.Trim(strings.TrimSpace(s), ".!")) {
	case "yes", "y", "true", "ok", "pass", "passed":
		return true, true
	case "no", "n", "false", "fail", "failed":
		return false, true
	}
	return false, false
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func excerptShort(s string) string {
	const limit = 40
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
