// Package markdown renders a report as Markdown in the layout of the council's GitHub
// reviews (one section per reviewer: callout, headline count, summary, inline findings, other
// notes, filtered findings, footer), followed by the coverage manifest and the ledger. The
// same text reads well raw in a terminal and rendered in a file or a PR comment.
//
// It is pure: a report in, text out. It must never colour its output, decide what a finding
// means, or hide one: every finding of the report appears, filtered ones collapsed.
package markdown

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
)

// Options controls Render.
type Options struct {
	// Council is the display name in headers and footers. Empty means the report's
	// Tool.Council, then "Council".
	Council string
	// ShowFiltered expands each reviewer's filtered findings. They are always listed, in a
	// collapsed <details> block unless this is set.
	ShowFiltered bool
}

// Render writes r as Markdown to w. The output depends on r and o alone.
func Render(w io.Writer, r report.Report, o Options) error {
	if o.Council == "" {
		o.Council = r.Tool.Council
	}
	if o.Council == "" {
		o.Council = "Council"
	}
	p := printer{r: r, o: o}
	p.top()
	for _, rv := range r.Reviewers {
		p.reviewer(rv)
	}
	p.unowned()
	p.coverage()
	if _, err := io.WriteString(w, strings.Join(p.blocks, "\n\n")+"\n"); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

// Headline is a reviewer's count line: "3 potential correctness issues", "1 potential
// security issue", "No correctness issues found". noun is singular; empty means "issue".
func Headline(noun string, n int) string {
	noun = strings.TrimSpace(noun)
	if noun == "" {
		noun = "issue"
	}
	switch n {
	case 0:
		return "No " + noun + "s found"
	case 1:
		return "1 potential " + noun
	default:
		return strconv.Itoa(n) + " potential " + noun + "s"
	}
}

// Ledger is the run's usage on one line: "Usage: 8 requests · input 2,900 · output 1,300 ·
// cache read 75,000 · cache write 15,000 tokens · $0.1223 · 36.4s".
func Ledger(u report.Usage) string {
	return "Usage: " + usage(u.Usage) + " · " + seconds(u.WallSeconds)
}

// EstimateLine is a dry run's expected usage on one line, with the assumption it rests on.
func EstimateLine(e report.Estimate) string {
	return fmt.Sprintf("Estimated: %s (assuming %s tokens per answer and a working prompt cache)",
		usage(e.Usage), thousands(int64(e.OutputTokensPerRequest)))
}

// printer collects the document as blocks that are joined by blank lines, so that no two
// Markdown blocks (two callouts, a list and a paragraph) can run into each other.
type printer struct {
	r      report.Report
	o      Options
	blocks []string
}

func (p *printer) add(lines ...string) {
	p.blocks = append(p.blocks, strings.Join(lines, "\n"))
}

func (p *printer) top() {
	c := p.r.Change
	p.add(fmt.Sprintf("# 🤖 %s review of %s..%s", p.o.Council, short(c.BaseSHA, c.Base), short(c.HeadSHA, c.Head)))

	var about []string
	if c.Title != "" {
		about = append(about, "**"+oneLine(c.Title)+"**")
	}
	var where []string
	if c.Base != "" || c.Head != "" {
		where = append(where, code(c.Base)+".."+code(c.Head))
	}
	if c.Repo != "" {
		where = append(where, c.Repo)
	}
	if len(c.Files) > 0 {
		added, deleted := 0, 0
		for _, f := range c.Files {
			added += f.Added
			deleted += f.Deleted
		}
		where = append(where, fmt.Sprintf("%s changed (+%d -%d)", plural(len(c.Files), "file"), added, deleted))
	}
	if len(where) > 0 {
		about = append(about, strings.Join(where, " · "))
	}
	if len(about) > 0 {
		p.add(strings.Join(about, "  \n"))
	}

	var warnings []string
	if p.r.DryRun {
		warnings = append(warnings, "Dry run: no model was called, so there are no findings; this shows what would be reviewed.")
	}
	for _, d := range p.r.Degraded {
		warnings = append(warnings, oneLine(d))
	}
	for _, rv := range p.r.Failed() {
		verb := "failed"
		if rv.Succeeded {
			verb = "partly failed"
		}
		for _, e := range rv.Errors {
			warnings = append(warnings, fmt.Sprintf("Reviewer %s %s: %s", title(rv), verb, oneLine(e)))
		}
	}
	if len(warnings) > 0 {
		lines := []string{"> [!WARNING]"}
		for _, w := range warnings {
			lines = append(lines, "> - "+w)
		}
		p.add(lines...)
	}

	if !p.r.DryRun {
		p.add(p.overview())
	}
	if l := LearningsLine(p.r.Learnings); l != "" {
		p.add(l)
	}
}

// LearningsLine names the base revision's learnings the run used, with how many findings each
// suppressed (those are listed under Filtered with the learning's id) or put up front as nits;
// "" when none.
func LearningsLine(ls []report.LearningUse) string {
	if len(ls) == 0 {
		return ""
	}
	items := make([]string, len(ls))
	for i, l := range ls {
		items[i] = code(l.ID)
		if l.Suppressed > 0 {
			items[i] += fmt.Sprintf(" (suppressed %d)", l.Suppressed)
		}
		if l.Promoted > 0 {
			items[i] += fmt.Sprintf(" (%d nit(s) up front)", l.Promoted)
		}
	}
	return "Learnings applied: " + strings.Join(items, ", ")
}

// overview is the one-line verdict under the title.
func (p *printer) overview() string {
	t := p.r.Totals()
	succeeded := 0
	for _, rv := range p.r.Reviewers {
		if rv.Succeeded {
			succeeded++
		}
	}
	reviewers := plural(succeeded, "reviewer")
	if succeeded < len(p.r.Reviewers) {
		reviewers = fmt.Sprintf("%d of %d reviewers", succeeded, len(p.r.Reviewers))
	}
	if succeeded == 0 && len(p.r.Reviewers) > 0 {
		return "**No review:** every reviewer failed (see above)."
	}
	if t.Shown() == 0 {
		s := "No issues found by " + reviewers + "."
		if t.Minor > 0 {
			s += fmt.Sprintf(" %s (listed under each reviewer).", plural(t.Minor, "minor note"))
		}
		if t.Filtered > 0 {
			s += fmt.Sprintf(" %s filtered out (listed under each reviewer).", plural(t.Filtered, "finding was", "findings were"))
		}
		return s
	}
	parts := []string{
		fmt.Sprintf("**%s** from %s", plural(t.Shown(), "finding"), reviewers),
		fmt.Sprintf("highest severity **%s**", p.r.MaxSeverity()),
		fmt.Sprintf("%d inline, %s, %d filtered", t.Reported, plural(t.OtherNote, "other note"), t.Filtered),
	}
	if t.Minor > 0 {
		parts[2] = fmt.Sprintf("%d inline, %s, %s, %d filtered", t.Reported, plural(t.OtherNote, "other note"), plural(t.Minor, "minor note"), t.Filtered)
	}
	return strings.Join(parts, " · ")
}

func (p *printer) reviewer(rv report.Reviewer) {
	p.add("## " + prefix(rv.Emoji, p.o.Council+" · "+title(rv)))

	alert := strings.ToUpper(strings.TrimSpace(rv.Alert))
	if alert == "" {
		alert = "NOTE"
	}
	p.add("> [!"+alert+"]", "> "+focusLine(rv))

	tally := p.r.Counts()[rv.Name]
	switch {
	case p.r.DryRun:
		units := rv.Units
		if units == 0 {
			units = len(p.r.Coverage.Units)
		}
		p.add(fmt.Sprintf("_Not run (dry run): %s planned._", plural(units, "unit")))
	case len(rv.Errors) > 0 && tally.Shown()+tally.Filtered == 0:
		p.add(callout("CAUTION", "This reviewer failed", rv.Errors)...)
	default:
		p.add("**" + Headline(rv.Noun, tally.Shown()) + "**")
		if len(rv.Errors) > 0 {
			p.add(callout("CAUTION", "Part of this review failed, so it may be incomplete", rv.Errors)...)
		}
	}

	if s := strings.TrimSpace(rv.Summary); s != "" {
		p.add(s)
	}

	for _, f := range p.r.Owned(rv.Name, finding.Reported) {
		p.inline(rv, f)
	}
	p.shared(rv)
	p.notes(p.r.Owned(rv.Name, finding.OtherNote))
	p.minor(p.r.Owned(rv.Name, finding.Minor))
	p.filtered(p.r.Owned(rv.Name, finding.Filtered))
	if len(rv.Missed) > 0 {
		p.add(fmt.Sprintf("**Not reviewed by %s** (its part of the change failed): %s", title(rv), strings.Join(codes(rv.Missed), ", ")))
	}
	p.examined(rv)
	if len(rv.Warnings) > 0 {
		p.add(fmt.Sprintf("<details><summary>Answer repairs (%d)</summary>", len(rv.Warnings)))
		lines := make([]string, len(rv.Warnings))
		for i, w := range rv.Warnings {
			lines[i] = "- " + oneLine(w)
		}
		p.add(lines...)
		p.add("</details>")
	}

	if !p.r.DryRun {
		p.add(fmt.Sprintf("🤖 %s · %d inline comment(s)", p.o.Council, tally.Reported))
	}
}

// unowned shows the findings whose owner is not a reviewer of the run, which a
// reviewer-by-reviewer layout would otherwise drop.
func (p *printer) unowned() {
	fs := p.r.Unowned()
	if len(fs) == 0 {
		return
	}
	p.add("## Findings from reviewers not in this run")
	var notes, minor, filtered []finding.Finding
	for _, f := range fs {
		switch f.Status {
		case finding.OtherNote:
			notes = append(notes, f)
		case finding.Minor:
			minor = append(minor, f)
		case finding.Filtered:
			filtered = append(filtered, f)
		default:
			owner := f.Owner()
			if owner == "" {
				owner = "unknown"
			}
			p.inline(report.Reviewer{Name: owner, Title: owner}, f)
		}
	}
	p.notes(notes)
	p.minor(minor)
	p.filtered(filtered)
}

func (p *printer) inline(rv report.Reviewer, f finding.Finding) {
	head := []string{code(location(f))}
	if f.Side == finding.Left {
		head[0] += " (old side)"
	}
	if f.Learning != nil {
		head = append(head, "nit")
	} else if f.Severity != "" {
		head = append(head, string(f.Severity))
	}
	if f.Category != "" {
		head = append(head, f.Category)
	}
	p.add("### " + strings.Join(head, " · "))
	p.add(prefix(rv.Emoji, "**"+title(rv)+"**") + " — " + NitTitle(f))

	if body := strings.TrimSpace(f.Body); body != "" {
		p.add(body)
	}
	if f.Suggestion != "" {
		fence := fenceFor(f.Suggestion)
		p.add(fence+"suggestion", strings.TrimSuffix(f.Suggestion, "\n"), fence)
	}
	if asked := AskedLine(f); asked != "" {
		p.add(asked)
	}
	if prompt := strings.TrimSpace(f.FixPrompt); prompt != "" {
		fence := fenceFor(prompt)
		p.add("<details><summary>Prompt for a coding agent</summary>")
		p.add(fence+"text", prompt, fence)
		p.add("</details>")
	}
	if also := p.alsoRaisedBy(f); also != "" {
		p.add("Also raised by: " + also)
	}
}

func (p *printer) notes(fs []finding.Finding) {
	if len(fs) == 0 {
		return
	}
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		text := oneLine(f.Title)
		if para := firstParagraph(f.Body); para != "" {
			if text != "" {
				text += ": "
			}
			text += para
		}
		line := "- " + code(location(f)) + " — " + text
		if also := p.alsoRaisedBy(f); also != "" {
			line += " (also raised by " + also + ")"
		}
		lines = append(lines, line)
	}
	p.add("**Other notes (not anchored to a diff line):**")
	p.add(lines...)
}

// minor lists the findings the validator judged true but minor, collapsed.
func (p *printer) minor(fs []finding.Finding) {
	if len(fs) == 0 {
		return
	}
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		line := "- " + code(location(f)) + " — " + oneLine(f.Title)
		if para := firstParagraph(f.Body); para != "" {
			line += ": " + para
		}
		if also := p.alsoRaisedBy(f); also != "" {
			line += " (also raised by " + also + ")"
		}
		lines = append(lines, line)
	}
	p.add(fmt.Sprintf("<details><summary>Minor notes (%d)</summary>", len(fs)))
	p.add(lines...)
	p.add("</details>")
}

func (p *printer) filtered(fs []finding.Finding) {
	if len(fs) == 0 {
		return
	}
	open := ""
	if p.o.ShowFiltered {
		open = " open"
	}
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		reason := oneLine(f.FilterReason)
		if reason == "" {
			reason = "no reason recorded"
		}
		lines = append(lines, "- "+code(location(f))+" — "+oneLine(f.Title)+" — "+reason)
	}
	p.add(fmt.Sprintf("<details%s><summary>Filtered (%d)</summary>", open, len(fs)))
	p.add(lines...)
	p.add("</details>")
}

// examined is the reviewer's audit trail: what it read through the repository tools, and every
// tool call with what it returned or why it was refused.
func (p *printer) examined(rv report.Reviewer) {
	if len(rv.ToolCalls) == 0 {
		return
	}
	lines := []string{fmt.Sprintf("<details><summary>Examined through tools: %s, %s</summary>",
		plural(len(rv.Examined), "range"), plural(len(rv.ToolCalls), "tool call"))}
	p.add(lines...)
	var items []string
	for _, e := range rv.Examined {
		items = append(items, "- read "+code(e))
	}
	for _, c := range rv.ToolCalls {
		s := "- " + code(c.Tool+" "+c.Input)
		switch {
		case c.Error != "":
			s += " — refused: " + oneLine(c.Error)
		case c.Truncated:
			s += fmt.Sprintf(" — %d bytes (truncated)", c.Bytes)
		default:
			s += fmt.Sprintf(" — %d bytes", c.Bytes)
		}
		items = append(items, s)
	}
	p.add(items...)
	p.add("</details>")
}

// shared lists the findings this reviewer raised too but another reviewer owns, so that a
// reviewer whose every finding merged into another's does not look as if it found nothing.
func (p *printer) shared(rv report.Reviewer) {
	var lines []string
	for _, f := range p.r.Findings {
		if f.Status == finding.Filtered || f.Owner() == rv.Name || !slices.Contains(f.Lenses, rv.Name) {
			continue
		}
		owner := f.Owner()
		if o, ok := p.r.Reviewer(owner); ok {
			owner = title(o)
		}
		lines = append(lines, fmt.Sprintf("- %s — %s (under %s)", code(location(f)), oneLine(f.Title), owner))
	}
	if len(lines) > 0 {
		p.add("**Also raised, shown under another reviewer:**")
		p.add(lines...)
	}
}

func (p *printer) alsoRaisedBy(f finding.Finding) string {
	if len(f.Lenses) < 2 {
		return ""
	}
	names := make([]string, 0, len(f.Lenses)-1)
	for _, name := range f.Lenses[1:] {
		if rv, ok := p.r.Reviewer(name); ok {
			names = append(names, title(rv))
		} else {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func (p *printer) coverage() {
	cov := p.r.Coverage
	p.add("## Coverage")

	verb := "Reviewed"
	if p.r.DryRun {
		verb = "Would review"
	}
	if len(cov.Reviewed) == 0 {
		p.add(verb + " no files.")
	} else {
		p.add(fmt.Sprintf("%s %s in %s.", verb, plural(len(cov.Reviewed), "file"), plural(len(cov.Units), "unit")))
		p.add(fmt.Sprintf("<details><summary>Reviewed files (%d)</summary>", len(cov.Reviewed)))
		p.add(bullets(cov.Reviewed)...)
		p.add("</details>")
	}

	if len(cov.Skipped) == 0 {
		p.add("Skipped no files.")
	} else {
		p.add(fmt.Sprintf("Skipped %s:", plural(len(cov.Skipped), "file")))
		lines := make([]string, 0, len(cov.Skipped))
		for _, s := range cov.Skipped {
			reason := oneLine(s.Reason)
			if reason == "" {
				reason = "no reason recorded"
			}
			lines = append(lines, "- "+code(s.Path)+" — "+reason)
		}
		p.add(lines...)
	}

	if len(p.r.Instructions) > 0 {
		var items []string
		for _, in := range p.r.Instructions {
			items = append(items, fmt.Sprintf("- %s (applies to %s)", code(in.Source), plural(len(in.AppliesTo), "changed file")))
		}
		p.add("Repository instructions given to the reviewers (read from the base revision):")
		p.add(items...)
	}
	if n := len(p.r.Context.Snippets); n > 0 || len(p.r.Context.Omitted) > 0 {
		s := fmt.Sprintf("Context beyond the hunks: %s", plural(n, "snippet"))
		if o := len(p.r.Context.Omitted); o > 0 {
			s += fmt.Sprintf(" (%d left out by the budget)", o)
		}
		p.add(s + ".")
	}
	if v := p.r.Validation; v.Enabled {
		line := fmt.Sprintf("Validation: %d checked, %d rejected (listed under Filtered)", v.Checked, v.Rejected)
		for _, c := range []struct {
			n    int
			what string
		}{{v.Lowered, "lowered in severity"}, {v.Narrowed, "narrowed"}, {v.Minor, "judged minor"}, {v.Merged, "merged as duplicates"}} {
			if c.n > 0 {
				line += fmt.Sprintf(", %d %s", c.n, c.what)
			}
		}
		p.add(line + fmt.Sprintf(", %s failed.", plural(len(v.Errors), "check")))
	}
	if p.r.Estimate != nil {
		p.add(EstimateLine(*p.r.Estimate))
	} else {
		p.add(Ledger(p.r.Usage))
	}

	if len(p.r.Reviewers) > 0 {
		lines := make([]string, 0, len(p.r.Reviewers))
		for _, rv := range p.r.Reviewers {
			parts := []string{prefix(rv.Emoji, title(rv))}
			if rv.Model != "" {
				parts = append(parts, rv.Model)
			}
			parts = append(parts, plural(rv.Units, "unit"), fmt.Sprintf("raised %d", rv.Raised), usage(rv.Usage), seconds(rv.WallSecs))
			lines = append(lines, "- "+strings.Join(parts, " · "))
		}
		p.add("<details><summary>Usage per reviewer</summary>")
		p.add(lines...)
		p.add("</details>")
	}
}

// focusLine is the line inside a reviewer's callout: "Correctness lens · bugs · …" for a
// lens, "Casey · simulated reviewer · …" for a persona.
func focusLine(rv report.Reviewer) string {
	var parts []string
	switch rv.Kind {
	case "persona":
		parts = append(parts, title(rv), "simulated reviewer")
	case "rules":
		parts = append(parts, "Repository rules from .council.yaml, checked without a model")
	default:
		parts = append(parts, title(rv)+" lens")
	}
	for _, f := range rv.Focus {
		if f = oneLine(f); f != "" {
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, " · ")
}

func callout(kind, lead string, errs []string) []string {
	if len(errs) == 1 {
		return []string{"> [!" + kind + "]", "> " + lead + ": " + oneLine(errs[0])}
	}
	lines := []string{"> [!" + kind + "]", "> " + lead + ":"}
	for _, e := range errs {
		lines = append(lines, "> - "+oneLine(e))
	}
	return lines
}

// usage is the counting part of a ledger line, shared by the run and each reviewer.
func usage(u provider.Usage) string {
	return fmt.Sprintf("%s · input %s · output %s · cache read %s · cache write %s tokens · $%.4f",
		plural(u.Requests, "request"), thousands(u.InputTokens), thousands(u.OutputTokens),
		thousands(u.CacheReadTokens), thousands(u.CacheWriteTokens), u.CostUSD)
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + "s" }

// location is "path:line" or "path:start-line"; just the path for a finding about the whole
// file.
func location(f finding.Finding) string {
	switch {
	case f.Line == 0:
		return f.Path
	case f.StartLine > 0 && f.StartLine != f.Line:
		return fmt.Sprintf("%s:%d-%d", f.Path, f.StartLine, f.Line)
	default:
		return fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
}

func title(rv report.Reviewer) string {
	if rv.Title != "" {
		return rv.Title
	}
	return rv.Name
}

// short is the first 7 characters of sha, or ref when there is no sha.
func short(sha, ref string) string {
	switch {
	case len(sha) > 7:
		return sha[:7]
	case sha != "":
		return sha
	case ref != "":
		return ref
	default:
		return "?"
	}
}

func prefix(emoji, s string) string {
	if emoji == "" {
		return s
	}
	return emoji + " " + s
}

// plural is "1 file", "2 files"; with a second form it is used as the plural: plural(n,
// "finding was", "findings were").
func plural(n int, one string, many ...string) string {
	if n == 1 {
		return "1 " + one
	}
	if len(many) > 0 {
		return strconv.Itoa(n) + " " + many[0]
	}
	return strconv.Itoa(n) + " " + one + "s"
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func bullets(items []string) []string {
	lines := make([]string, len(items))
	for i, it := range items {
		lines[i] = "- " + code(it)
	}
	return lines
}

func codes(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = code(it)
	}
	return out
}

// code wraps s in a code span that s's own backticks cannot close.
func code(s string) string {
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// fenceFor is a code fence longer than any run of backticks in s, at least three.
func fenceFor(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// oneLine collapses s to a single line, for places where a line break would end the
// Markdown construct (a heading, a list item, a callout).
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// firstParagraph is the text of body up to its first blank line, on one line.
func firstParagraph(body string) string {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	para, _, _ := strings.Cut(body, "\n\n")
	return oneLine(para)
}
