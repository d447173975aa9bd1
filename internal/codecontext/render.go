package codecontext

import (
	"fmt"
	"strconv"
	"strings"
)

// Render formats a Result for a prompt: each snippet as a header
//
//	#### path:start-end (kind: symbol) — reason
//
// followed by its lines numbered as in the file ("  46 : code"), then what was left out. A
// base-side snippet says so in its reason ("at base, encloses ..."). The output depends only
// on r.
func Render(r Result) string {
	var sb strings.Builder
	for i, s := range r.Snippets {
		if i > 0 {
			sb.WriteString("\n")
		}
		fmt.Fprintf(&sb, "#### %s:%d-%d (%s: %s) — %s\n", s.Path, s.StartLine, s.EndLine, s.Kind, s.Symbol, s.Reason)
		width := max(4, len(strconv.Itoa(s.EndLine)))
		for k, line := range strings.Split(s.Text, "\n") {
			fmt.Fprintf(&sb, "%*d : %s\n", width, s.StartLine+k, line)
		}
	}
	if len(r.Omitted) > 0 {
		if len(r.Snippets) > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString("#### Context left out\n")
		for _, o := range r.Omitted {
			sb.WriteString("- " + o + "\n")
		}
	}
	return sb.String()
}
