package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
)

// Verdict is the validator's answer about one issue.
type Verdict struct {
	Issue       int              `json:"issue"` // from 1, as numbered in the request
	Reason      string           `json:"reason"`
	Decision    string           `json:"decision"`
	FailedCheck string           `json:"failed_check,omitempty"`
	SameAs      int              `json:"same_as,omitempty"`
	Severity    finding.Severity `json:"severity"`
	Attention   bool             `json:"attention"`
	Title       string           `json:"title,omitempty"`
	Body        string           `json:"body,omitempty"`
	Ask         string           `json:"ask,omitempty"` // the id of the repository's ask the issue is an instance of
}

// FilterReason is the reason a rejected finding carries: "validator: <check>: <reason>".
func (v Verdict) FilterReason() string {
	check := v.FailedCheck
	if check == "" {
		check = "rejected"
	}
	reason := oneLine(v.Reason)
	if reason == "" {
		reason = "no reason given"
	}
	return "validator: " + check + ": " + reason
}

// VerdictError is an answer that holds no usable verdict for an issue: no JSON object, a
// missing field, a value outside its enum, or an answer cut off at the output limit. The issue
// it was about is kept unchecked.
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

// ParseVerdicts reads the validator's answer about n issues: the input of the first usable
// submit_verdicts call, else a JSON object with "verdicts" in the text, fenced or not. It
// returns the verdicts by issue number and, per issue it could not read (absent, or a verdict
// that breaks the contract), the error; an answer with nothing usable at all is one error for
// every issue. It never panics.
func ParseVerdicts(resp provider.Response, n int) (map[int]Verdict, map[int]error) {
	all := func(err error) map[int]error {
		errs := make(map[int]error, n)
		for i := 1; i <= n; i++ {
			errs[i] = err
		}
		return errs
	}
	fail := func(reason, raw string) map[int]error {
		if resp.Truncated() {
			reason = "answer truncated at max_tokens; raise the validator's max output tokens"
		}
		return all(&VerdictError{Reason: reason, Excerpt: excerpt(raw)})
	}
	var items []json.RawMessage
	var why, raw string
	for _, b := range resp.Content {
		if b.Type != provider.ToolUse || b.Name != VerdictTool {
			continue
		}
		if items, why = verdictList(toolObject(b.Input)); why == "" {
			break
		}
		raw = string(b.Input)
	}
	if items == nil {
		text := resp.Text()
		obj, saw, problem := review.FindObject(text, func(o map[string]json.RawMessage) bool {
			_, ok := o["verdicts"]
			return ok
		}, true)
		switch {
		case obj != nil:
			if items, why = verdictList(obj, ""); why != "" {
				return nil, fail(why, text)
			}
		case why != "":
			return nil, fail(why, raw)
		case strings.TrimSpace(text) == "":
			return nil, fail("empty answer: no "+VerdictTool+" call and no text", "")
		case saw:
			return nil, fail(`no JSON object with "verdicts"`, text)
		case problem != "":
			return nil, fail(problem, text)
		default:
			return nil, fail("no JSON object found in the answer", text)
		}
	}

	verdicts := map[int]Verdict{}
	errs := map[int]error{}
	for _, item := range items {
		v, problem := parseVerdict(item, n)
		if v.Issue < 1 || v.Issue > n {
			continue // no issue to pin it on: the issue it meant gets "no verdict" below
		}
		if _, dup := verdicts[v.Issue]; dup {
			continue // the first verdict on an issue stands
		}
		if problem != "" {
			errs[v.Issue] = &VerdictError{Reason: fmt.Sprintf("issue %d: %s", v.Issue, problem), Excerpt: excerpt(string(item))}
			continue
		}
		verdicts[v.Issue] = v
	}
	for i := 1; i <= n; i++ {
		if _, ok := verdicts[i]; !ok && errs[i] == nil {
			reason := fmt.Sprintf("no verdict for issue %d", i)
			if resp.Truncated() {
				reason += " (answer truncated at max_tokens; raise the validator's max output tokens)"
			}
			errs[i] = &VerdictError{Reason: reason}
		}
		if errs[i] != nil {
			delete(verdicts, i)
		}
	}
	return verdicts, errs
}

// toolObject decodes a tool call's input, tolerating an object that arrives JSON-encoded as a
// string, as some OpenAI-compatible servers send arguments.
func toolObject(input json.RawMessage) (map[string]json.RawMessage, string) {
	if len(bytes.TrimSpace(input)) == 0 {
		return nil, VerdictTool + " was called without input"
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
		return nil, "invalid JSON in " + VerdictTool + " input: " + err.Error()
	}
	if obj == nil {
		return nil, VerdictTool + " input is null, not an object"
	}
	return obj, ""
}

// verdictList is the "verdicts" array of obj (a bare verdict object counts as a list of one).
func verdictList(obj map[string]json.RawMessage, why string) ([]json.RawMessage, string) {
	if why != "" {
		return nil, why
	}
	raw, ok := obj["verdicts"]
	if !ok {
		if _, single := obj["decision"]; single {
			b, _ := json.Marshal(obj)
			return []json.RawMessage{b}, ""
		}
		return nil, `no "verdicts"`
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var s string // an array that arrives JSON-encoded as a string
		if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &items) != nil {
			return nil, `"verdicts" is not an array`
		}
	}
	return items, ""
}

// parseVerdict reads one verdict. Issue is set whenever it can be read, so that a problem with
// the rest is pinned on its issue.
func parseVerdict(raw json.RawMessage, n int) (Verdict, string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Verdict{}, "not an object"
	}
	var v Verdict
	v.Issue, _ = intOf(m["issue"])
	str := func(k string) string {
		var s string
		if r, ok := m[k]; ok && json.Unmarshal(r, &s) != nil {
			var b bytes.Buffer
			if json.Compact(&b, r) == nil {
				s = b.String() // not a string: keep what the model said
			}
		}
		return strings.TrimSpace(s)
	}
	v.Reason, v.Title, v.Body, v.Ask = str("reason"), str("title"), str("body"), str("ask")
	v.Decision = strings.ToLower(str("decision"))
	switch v.Decision {
	case Keep, Lower, Narrow, Reject, Duplicate:
	case "":
		return v, `no "decision"`
	default:
		return v, fmt.Sprintf("decision %q is not one of keep, lower, narrow, reject, duplicate", excerptShort(v.Decision))
	}
	if s := str("severity"); s != "" {
		sev, err := finding.ParseSeverity(s)
		if err != nil {
			return v, err.Error()
		}
		v.Severity = sev
	}
	if a, ok := m["attention"]; ok {
		v.Attention, ok = yesNo(a)
		if !ok {
			return v, `"attention" is not a boolean`
		}
	} else {
		v.Attention = true // unsaid: the issue stays inline, as it was raised
	}
	v.FailedCheck = str("failed_check")
	switch v.FailedCheck {
	case "", CheckTrue, CheckIntroduced, CheckActionable:
	default:
		return v, fmt.Sprintf("failed_check %q is not one of %s, %s, %s", excerptShort(v.FailedCheck), CheckTrue, CheckIntroduced, CheckActionable)
	}
	if r, ok := m["same_as"]; ok && !isNull(r) {
		var good bool
		if v.SameAs, good = intOf(r); !good {
			return v, `"same_as" is not an issue number`
		}
	}
	if v.Decision == Duplicate && (v.SameAs < 1 || v.SameAs > n || v.SameAs == v.Issue) {
		return v, fmt.Sprintf("duplicate of %d, which is not another issue of this request", v.SameAs)
	}
	if v.Decision == Narrow && v.Body == "" {
		return v, `narrow without a "body" restating what holds`
	}
	return v, ""
}

// intOf reads a JSON integer, or a string holding one.
func intOf(raw json.RawMessage) (int, bool) {
	var i int
	if json.Unmarshal(raw, &i) == nil {
		return i, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if i, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "#"))); err == nil {
			return i, true
		}
	}
	return 0, false
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
	case "yes", "y", "true":
		return true, true
	case "no", "n", "false":
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
