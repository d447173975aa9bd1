package learn

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Render writes f for a person (`council learn show`): each learning's kind, id and scope,
// what it tells the reviewers, the signals behind it and links to them, then what the file
// was built from.
func Render(w io.Writer, f File) error {
	var b strings.Builder
	kinds := map[string]int{}
	for _, l := range f.Learnings {
		kinds[l.Kind]++
	}
	if len(f.Learnings) == 0 {
		b.WriteString("No learnings.\n")
	} else {
		fmt.Fprintf(&b, "%d learnings (%d suppress, %d emphasise", len(f.Learnings), kinds[Suppress], kinds[Emphasise])
		if kinds[Ask] > 0 {
			fmt.Fprintf(&b, ", %d ask", kinds[Ask])
		}
		b.WriteString(")\n")
	}
	for _, l := range f.Learnings {
		fmt.Fprintf(&b, "\n%s %s\n", l.Kind, l.ID)
		fmt.Fprintf(&b, "  scope:    %s\n", scope(l))
		fmt.Fprintf(&b, "  text:     %s\n", oneLine(l.Text))
		if len(l.Counts) > 0 {
			fmt.Fprintf(&b, "  signals:  %d accepted, %d rejected, %d ignored\n", l.Counts[string(Accepted)], l.Counts[string(Rejected)], l.Counts[string(Ignored)])
		}
		if len(l.Evidence) > 0 {
			b.WriteString("  evidence:\n")
			for _, e := range l.Evidence {
				if e.Signal != "" {
					fmt.Fprintf(&b, "    - %s (%s)\n", e.URL, e.Signal)
				} else {
					fmt.Fprintf(&b, "    - %s\n", e.URL)
				}
			}
		}
	}
	if s := f.Source; s != nil {
		fmt.Fprintf(&b, "\nsource: %d signals on %d pull requests", s.Signals, s.PRs)
		if len(s.Repos) > 0 {
			fmt.Fprintf(&b, " of %s", strings.Join(s.Repos, ", "))
		}
		b.WriteString("\n")
		for _, t := range []struct {
			name string
			at   time.Time
		}{{"since", s.Since}, {"until", s.Until}, {"built", s.Built}} {
			if !t.at.IsZero() {
				fmt.Fprintf(&b, "  %-6s  %s\n", t.name+":", t.at.UTC().Format(time.RFC3339))
			}
		}
		if s.Model != "" {
			fmt.Fprintf(&b, "  model:  %s\n", s.Model)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
