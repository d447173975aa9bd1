package review

import (
	"encoding/json"
	"strings"
)

// scanBudget bounds the bytes examined while looking for a JSON object in prose, so that
// adversarial text (thousands of unclosed braces) costs linear time, not quadratic.
const scanBudget = 8 << 20

// FindObject finds the first balanced {...} in text that decodes as a JSON object accepted by
// want; fences (```json) need no special case, the object inside is found like any other. With
// nested it also looks inside objects want refuses (an answer wrapped in {"verdict": ...}).
// When none is found, saw says whether any object decoded at all, and problem is the first
// decoding error met ("" when there was none).
func FindObject(text string, want func(map[string]json.RawMessage) bool, nested bool) (obj map[string]json.RawMessage, saw bool, problem string) {
	budget := scanBudget
	for i := 0; i < len(text) && budget > 0; {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		i = start + 1
		end, ok := matchBrace(text, start, &budget)
		if !ok {
			if problem == "" {
				problem = "invalid JSON: an object is not closed (unbalanced braces)"
			}
			continue
		}
		var o map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text[start:end]), &o); err != nil {
			if problem == "" {
				problem = "invalid JSON: " + err.Error()
			}
			continue
		}
		if want(o) {
			return o, true, ""
		}
		saw = true
		if !nested {
			i = end
		}
	}
	return nil, saw, problem
}

// matchBrace returns the index just past the '}' that closes the '{' at start, skipping
// braces inside JSON strings. It spends budget per byte examined.
func matchBrace(text string, start int, budget *int) (int, bool) {
	depth := 0
	inString, escaped := false, false
	for k := start; k < len(text); k++ {
		*budget--
		if *budget <= 0 {
			return 0, false
		}
		c := text[k]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return k + 1, true
			}
		}
	}
	return 0, false
}
