package overview

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/review"
)

// PathOnly is the description of a reviewed file the model did not describe.
const PathOnly = "(described by path only)"

// AnswerError is an overview answer that cannot be used at all: no submit_overview call and no
// JSON object in the text, invalid JSON, a field of the wrong type, no summary, or an answer cut
// off at the output limit.
type AnswerError struct {
	Reason  string
	Excerpt string // the start of the raw answer, at most excerptRunes runes
}

func (e *AnswerError) Error() string {
	s := "overview answer: " + e.Reason
	if e.Excerpt != "" {
		s += fmt.Sprintf(" (answer began %q)", e.Excerpt)
	}
	return s
}

const excerptRunes = 200

// answer is the shape of the tool's input.
type answer struct {
	Summary *string  `json:"summary"`
	Changes []string `json:"changes"`
	Files   []File   `json:"files"`
}

// Parse reads the overview from a submit_overview tool call (the first usable one) or, failing
// that, a JSON object in the text. reviewed is the paths of the files the change's reviewers
// were given: a described path not among them is dropped, and a reviewed file the model did not
// describe gets PathOnly, each noted in Problems. An unusable answer is an *AnswerError.
func Parse(resp provider.Response, reviewed []string) (Overview, error) {
	fail := func(reason, raw string) error {
		if resp.Truncated() {
			reason = "answer truncated at the output token limit"
		}
		return &AnswerError{Reason: reason, Excerpt: excerpt(raw)}
	}

	var (
		problems []string
		found    *answer
		calls    int
		firstWhy string // why the first unusable submit_overview call is unusable
		firstRaw string // its input
	)
	for _, b := range resp.Content {
		if b.Type != provider.ToolUse || b.Name != Tool {
			continue
		}
		calls++
		a, why := decodeInput(b.Input)
		switch {
		case why != "":
			problems = append(problems, fmt.Sprintf("%s call %d ignored: %s", Tool, calls, why))
			if firstWhy == "" {
				firstWhy, firstRaw = why, string(b.Input)
			}
		case found != nil:
			problems = append(problems, fmt.Sprintf("%s call %d ignored: used the first usable call", Tool, calls))
		default:
			found = &a
		}
	}
	if found != nil {
		return build(*found, reviewed, problems), nil
	}

	text := resp.Text()
	obj, saw, problem := review.FindObject(text, func(o map[string]json.RawMessage) bool {
		_, ok := o["summary"]
		return ok
	}, true)
	switch {
	case obj != nil:
		raw, err := json.Marshal(obj)
		if err != nil {
			return Overview{}, fail("re-encode the answer object: "+err.Error(), text)
		}
		a, why := decode(raw)
		if why != "" {
			return Overview{}, fail(why, text)
		}
		return build(a, reviewed, problems), nil
	case firstWhy != "":
		return Overview{}, fail(firstWhy, firstRaw)
	case problem != "":
		return Overview{}, fail(problem, text)
	case saw:
		return Overview{}, fail(`no JSON object with a "summary" key`, text)
	case strings.TrimSpace(text) == "":
		return Overview{}, fail("empty answer: no "+Tool+" call and no text", "")
	default:
		return Overview{}, fail("no "+Tool+" call and no JSON object in the text", text)
	}
}

// decodeInput decodes a tool call's input, tolerating an object that arrives JSON-encoded as a
// string, as some OpenAI-compatible servers send arguments.
func decodeInput(input json.RawMessage) (answer, string) {
	if strings.TrimSpace(string(input)) == "" {
		return answer{}, Tool + " was called without input"
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		input = json.RawMessage(s)
	}
	return decode(input)
}

// decode checks the answer's shape and says why it is unusable, or "".
func decode(raw json.RawMessage) (answer, string) {
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return answer{}, fmt.Sprintf("%q is %s, want %s", te.Field, te.Value, te.Type)
		}
		return answer{}, "invalid JSON in " + Tool + " input: " + err.Error()
	}
	if a.Summary == nil {
		return answer{}, `no "summary" key`
	}
	if strings.TrimSpace(*a.Summary) == "" {
		return answer{}, "empty summary"
	}
	return a, ""
}

// build keeps the described files that are in the change, in the order of reviewed, and fills
// in the ones the model left out.
func build(a answer, reviewed []string, problems []string) Overview {
	o := Overview{Summary: strings.TrimSpace(strings.ReplaceAll(*a.Summary, "\r\n", "\n")), Problems: problems}
	for _, c := range a.Changes {
		c = strings.TrimSpace(c)
		c = strings.TrimSpace(strings.TrimLeft(c, "-*•"))
		if c != "" {
			o.Changes = append(o.Changes, c)
		}
	}

	known := make(map[string]bool, len(reviewed))
	for _, p := range reviewed {
		known[p] = true
	}
	described := make(map[string]string, len(a.Files))
	var unknown []string
	for _, f := range a.Files {
		p := cleanPath(f.Path)
		d := strings.TrimSpace(f.Description)
		switch {
		case !known[p]:
			unknown = append(unknown, strconv.Quote(f.Path))
		case described[p] != "":
			o.Problems = append(o.Problems, fmt.Sprintf("%s described twice; kept the first", p))
		case d != "":
			described[p] = d
		}
	}
	if len(unknown) > 0 {
		o.Problems = append(o.Problems, fmt.Sprintf("dropped descriptions of paths not reviewed in the change: %s", strings.Join(unknown, ", ")))
	}
	var missing []string
	for _, p := range reviewed {
		d, ok := described[p]
		if !ok {
			d = PathOnly
			missing = append(missing, p)
		}
		o.Files = append(o.Files, File{Path: p, Description: d})
	}
	if len(missing) > 0 {
		o.Problems = append(o.Problems, fmt.Sprintf("no description of %s; marked %q", strings.Join(missing, ", "), PathOnly))
	}
	return o
}

// cleanPath undoes what models add around a path: spaces, a code span, a leading "./".
func cleanPath(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "`")
	return strings.TrimPrefix(strings.TrimSpace(p), "./")
}

func excerpt(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	return string([]rune(s)[:excerptRunes])
}
