// Package rules runs a repository's deterministic rules (the rules: of .council.yaml) over a
// change: "a change under felix/bpf-gpl/** must come with a change under
// felix/design/bpf-*.md", "no added line may call fmt.Print". Their findings go through the
// same anchor, consolidate and publish stages as the reviewers' ones, owned by Reviewer.
//
// It is pure: rules and diff files in, findings out. It never calls a model, reads files or
// git, and its output depends only on its input.
package rules

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/glob"
)

// Reviewer is the owner of rule findings, in Finding.Lenses.
const Reviewer = "rules"

// ConfigFile is the path a finding about a rule that cannot run points at.
const ConfigFile = ".council.yaml"

// maxListed is how many paths a finding's body names before it counts the rest.
const maxListed = 10

// Check runs the rules over the change's files and returns their findings sorted by path and
// line (rules in their given order where those tie), at most one per rule, path and line.
//
// A co-change rule (when_changed/require_changed) yields one finding, not anchored to a line,
// when a changed path matches when_changed and no changed path matches require_changed; a
// file's old path counts as changed too, so renaming or deleting a file under when_changed
// triggers the rule. A forbid rule yields a finding on every added line, in a file matching its
// paths, that its regular expression matches; context and deleted lines are not checked.
//
// The rules are expected to have passed config.Parse. One that has not and cannot run (a bad
// regular expression, no kind) yields a finding saying so rather than being skipped.
func Check(rs []config.Rule, files []diff.File) []finding.Finding {
	var hits []hit
	add := func(r config.Rule, fs ...finding.Finding) {
		for _, f := range fs {
			hits = append(hits, hit{rule: r.Name, f: f})
		}
	}
	for _, r := range rs {
		switch r.Kind() {
		case config.RuleCoChange:
			if f, ok := checkCoChange(r, files); ok {
				add(r, f)
			}
		case config.RuleForbid:
			re, err := regexp.Compile(r.Forbid)
			if err != nil {
				add(r, broken(r, "its forbid pattern is not a valid Go regular expression: "+err.Error()))
				continue
			}
			add(r, checkForbid(r, re, files)...)
		default:
			add(r, broken(r, "it must have either when_changed and require_changed, or forbid"))
		}
	}
	return dedupe(hits)
}

// hit is a finding and the rule that raised it.
type hit struct {
	rule string
	f    finding.Finding
}

// changedPath is a path the change touches and the file it belongs to.
type changedPath struct {
	path string
	file string // the file's Path(): where a finding about it goes
}

// changedPaths lists every path the change touches, old paths of renamed and deleted files
// included, sorted.
func changedPaths(files []diff.File) []changedPath {
	var out []changedPath
	for _, f := range files {
		if p := f.Path(); p != "" {
			out = append(out, changedPath{p, p})
		}
		if f.OldPath != "" && f.OldPath != f.Path() {
			out = append(out, changedPath{f.OldPath, f.Path()})
		}
	}
	slices.SortFunc(out, func(a, b changedPath) int {
		return cmp.Or(strings.Compare(a.path, b.path), strings.Compare(a.file, b.file))
	})
	return slices.Compact(out)
}

func checkCoChange(r config.Rule, files []diff.File) (finding.Finding, bool) {
	var triggers []changedPath
	for _, c := range changedPaths(files) {
		if matchAny(r.RequireChanged, c.path) {
			return finding.Finding{}, false
		}
		if matchAny(r.WhenChanged, c.path) {
			triggers = append(triggers, c)
		}
	}
	if len(triggers) == 0 {
		return finding.Finding{}, false
	}
	touched := make([]string, len(triggers))
	for i, t := range triggers {
		touched[i] = t.path
	}
	category := "docs"
	for _, g := range r.RequireChanged {
		if !strings.HasSuffix(strings.ToLower(g), ".md") {
			category = "other"
		}
	}
	why := fmt.Sprintf("rule %s: a change to %s requires a change to %s; this change touches %s but none of %s",
		r.Name, globList(r.WhenChanged), globList(r.RequireChanged), pathList(touched), globList(r.RequireChanged))
	return newFinding(r, triggers[0].file, category, title(r), why), true
}

func checkForbid(r config.Rule, re *regexp.Regexp, files []diff.File) []finding.Finding {
	var out []finding.Finding
	why := fmt.Sprintf("rule %s: `%s` matched", r.Name, r.Forbid)
	for _, f := range files {
		if f.Binary || (len(r.Paths) > 0 && !matchAny(r.Paths, f.Path())) {
			continue
		}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Op != diff.Add || !re.MatchString(l.Text) {
					continue
				}
				fd := newFinding(r, f.Path(), "style", strings.TrimSpace(r.Message), why)
				fd.Line = l.New
				fd.Quote = l.Text
				out = append(out, fd)
			}
		}
	}
	return out
}

// broken is the finding for a rule that cannot run.
func broken(r config.Rule, why string) finding.Finding {
	name := r.Name
	if name == "" {
		name = "(unnamed)"
	}
	return newFinding(r, ConfigFile, "other", "Rule "+name+" cannot run",
		fmt.Sprintf("rule %s was not checked: %s", name, why))
}

func newFinding(r config.Rule, path, category, title, why string) finding.Finding {
	sev := r.Severity
	if sev.Rank() == 0 {
		sev = finding.Medium
	}
	body := "(" + why + ")"
	if msg := strings.TrimSpace(r.Message); msg != "" {
		body = msg + " " + body
	}
	return finding.Finding{
		Lenses:     []string{Reviewer},
		Path:       path,
		Side:       finding.Right,
		Severity:   sev,
		Category:   category,
		Title:      title,
		Body:       body,
		Confidence: 1,
	}
}

// title is the first sentence of the rule's message, else "Rule <name>".
func title(r config.Rule) string {
	msg := strings.TrimSpace(r.Message)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	for i := 0; i+1 < len(msg); i++ {
		if strings.ContainsRune(".!?", rune(msg[i])) && msg[i+1] == ' ' {
			msg = msg[:i+1]
			break
		}
	}
	msg = strings.TrimSpace(strings.TrimSuffix(msg, "."))
	if msg == "" {
		return "Rule " + r.Name
	}
	return msg
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if glob.Match(g, p) {
			return true
		}
	}
	return false
}

func globList(globs []string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = "`" + g + "`"
	}
	return strings.Join(q, ", ")
}

func pathList(paths []string) string {
	if len(paths) <= maxListed {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:maxListed], ", "), len(paths)-maxListed)
}

// dedupe sorts the findings by path and line, keeping the rules' order where those tie, and
// keeps one per rule, path and line.
func dedupe(hits []hit) []finding.Finding {
	slices.SortStableFunc(hits, func(a, b hit) int {
		return cmp.Or(strings.Compare(a.f.Path, b.f.Path), cmp.Compare(a.f.Line, b.f.Line))
	})
	type key struct {
		rule, path string
		line       int
	}
	seen := map[key]bool{}
	var out []finding.Finding
	for _, h := range hits {
		k := key{h.rule, h.f.Path, h.f.Line}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, h.f)
	}
	return out
}
