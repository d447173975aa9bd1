package review

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/config"
)

// Kind says whether a reviewer is a built-in lens or a persona imitating a maintainer.
type Kind string

// The two kinds of reviewer.
const (
	Lens    Kind = "lens"
	Persona Kind = "persona"
)

// Alerts are the GitHub alert kinds a reviewer's review body may open with.
var Alerts = []string{"NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"}

// Reviewer is a lens or a persona: who reviews, what for, and in which voice. Lenses and
// personas are the same kind of document (YAML, or Markdown with YAML front matter).
type Reviewer struct {
	Name         string   `yaml:"name"`         // id: lowercase [a-z0-9-]+, e.g. "correctness", "nell"
	Kind         Kind     `yaml:"kind"`         // Lens or Persona
	Title        string   `yaml:"title"`        // "Correctness", "Maintainability & Tests", "Nell"
	Emoji        string   `yaml:"emoji"`        // "🔎"; personas default to "👤"
	Alert        string   `yaml:"alert"`        // one of Alerts; default NOTE
	Focus        []string `yaml:"focus"`        // "bugs", "completeness", ...
	Noun         string   `yaml:"noun"`         // what the headline counts, singular: "correctness issue"
	Instructions string   `yaml:"instructions"` // the reviewer's own prompt text
	Model        string   `yaml:"model"`        // optional per-reviewer model

	// Personas only.
	Voice        []string `yaml:"voice"`          // voice markers: "I think…", "WDYT?", "nit:"
	Priorities   []string `yaml:"priorities"`     // what they care about most, in order
	PushesBackOn []string `yaml:"pushes_back_on"` // what they object to
	Exemplars    []string `yaml:"exemplars"`      // a few of their real past review comments

	// Source says how a persona was built (council persona build writes it); optional, and
	// informational only: nothing of it reaches a prompt.
	Source Provenance `yaml:"source"`

	Location string `yaml:"-"` // where it was loaded from: "builtin:correctness" or a file path
}

// Defaults for what a document may leave out.
const (
	defaultLensEmoji    = "🔍"
	defaultPersonaEmoji = "👤"
	defaultAlert        = "NOTE"
	defaultNoun         = "issue"
)

//go:embed lenses/*.yaml
var lensFS embed.FS

// builtinOrder is the order lenses run and are shown in.
var builtinOrder = []string{"correctness", "security", "maintainability"}

// Builtin returns the three built-in lenses, correctness, security and maintainability, in
// that order. Each call returns fresh values the caller may change.
func Builtin() []Reviewer {
	out := make([]Reviewer, 0, len(builtinOrder))
	for _, name := range builtinOrder {
		file := "lenses/" + name + ".yaml"
		data, err := lensFS.ReadFile(file)
		if err != nil {
			panic(fmt.Sprintf("review: built-in lens %s is not embedded: %v", file, err))
		}
		r, err := parse(file, data, Lens)
		if err != nil {
			panic(fmt.Sprintf("review: built-in lens is invalid: %v", err)) // TestBuiltin guards this
		}
		r.Location = "builtin:" + r.Name
		out = append(out, r)
	}
	return out
}

// ParseDocument parses one reviewer document read from source, whose extension picks the
// format: .yaml or .yml for YAML, .md for Markdown with YAML front matter between "---" lines
// (the body becomes Instructions; setting instructions in the front matter as well is an
// error). Decoding is strict: an unknown field, a value of the wrong type, a missing required
// field (name, kind, title, instructions; for personas voice or exemplars) or a value outside
// its allowed set is a *config.Error naming source, line:column, the field and what is
// allowed.
func ParseDocument(source string, data []byte) (Reviewer, error) {
	return parse(source, data, "")
}

// parse is ParseDocument with a kind to assume when the document has none ("" requires it).
func parse(source string, data []byte, defaultKind Kind) (Reviewer, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	var body string
	markdown := false
	switch strings.ToLower(path.Ext(source)) {
	case ".yaml", ".yml":
	case ".md", ".markdown":
		markdown = true
		fm, rest, err := frontMatter(source, data)
		if err != nil {
			return Reviewer{}, err
		}
		data, body = fm, rest
	default:
		return Reviewer{}, &config.Error{File: source, Msg: fmt.Sprintf("unsupported reviewer file type %q (want .yaml, .yml or .md)", path.Ext(source))}
	}

	doc, err := config.ParseYAML(source, data)
	if err != nil {
		return Reviewer{}, err
	}
	var r Reviewer
	if err := doc.Decode(&r); err != nil {
		return Reviewer{}, err
	}
	if markdown && strings.TrimSpace(body) != "" {
		if r.Instructions != "" {
			return Reviewer{}, doc.ErrorAt("set in the front matter and as the Markdown body; keep one", "instructions")
		}
		r.Instructions = body
	}
	r.Location = source
	if err := r.normalize(doc, defaultKind); err != nil {
		return Reviewer{}, err
	}
	return r, nil
}

// frontMatter splits a Markdown document into its YAML front matter and its body. The front
// matter is returned with a blank first line in place of the opening "---", so that line
// numbers in errors are the file's own.
func frontMatter(source string, data []byte) (fm []byte, body string, err error) {
	lines := strings.SplitAfter(string(data), "\n")
	if strings.TrimRight(lines[0], " \t\n") != "---" {
		return nil, "", &config.Error{File: source, Line: 1, Column: 1, Msg: "a Markdown reviewer must start with YAML front matter between \"---\" lines"}
	}
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimRight(lines[i], " \t\n"); t == "---" || t == "..." {
			return []byte("\n" + strings.Join(lines[1:i], "")), strings.Join(lines[i+1:], ""), nil
		}
	}
	return nil, "", &config.Error{File: source, Line: 1, Column: 1, Msg: "front matter is not closed by a \"---\" line"}
}

// normalize checks a decoded document and fills in defaults.
func (r *Reviewer) normalize(doc *config.Document, defaultKind Kind) error {
	trim := func(s *string) { *s = strings.TrimSpace(*s) }
	trim(&r.Name)
	trim(&r.Title)
	trim(&r.Emoji)
	trim(&r.Alert)
	trim(&r.Noun)
	trim(&r.Model)
	r.Instructions = strings.TrimSpace(r.Instructions)

	switch {
	case r.Name == "":
		return doc.ErrorAt("required: the reviewer's id, "+config.NameRule, "name")
	case !config.ValidName(r.Name):
		return doc.ErrorAt(fmt.Sprintf("%q is not a valid name: use %s", r.Name, config.NameRule), "name")
	}
	switch r.Kind {
	case Lens, Persona:
	case "":
		if defaultKind == "" {
			return doc.ErrorAt(`required: one of lens, persona`, "kind")
		}
		r.Kind = defaultKind
	default:
		return doc.ErrorAt(fmt.Sprintf("%q is not one of lens, persona", r.Kind), "kind")
	}
	if r.Title == "" {
		return doc.ErrorAt(`required: the display name, e.g. "Correctness" or "Casey"`, "title")
	}
	if r.Instructions == "" {
		return doc.ErrorAt("required: what this reviewer looks for and how (in a Markdown file, the body)", "instructions")
	}
	if r.Alert == "" {
		r.Alert = defaultAlert
	}
	if up := strings.ToUpper(r.Alert); slices.Contains(Alerts, up) {
		r.Alert = up
	} else {
		return doc.ErrorAt(fmt.Sprintf("%q is not one of %s", r.Alert, strings.Join(Alerts, ", ")), "alert")
	}
	if r.Noun == "" {
		r.Noun = defaultNoun
	}
	lists := []struct {
		key  string
		list []string
	}{{"focus", r.Focus}, {"voice", r.Voice}, {"priorities", r.Priorities}, {"pushes_back_on", r.PushesBackOn}, {"exemplars", r.Exemplars}}
	for _, l := range lists {
		for i, s := range l.list {
			if strings.TrimSpace(s) == "" {
				return doc.ErrorAt("must not be empty", l.key, i)
			}
			l.list[i] = strings.TrimSpace(s)
		}
	}
	if r.Kind == Lens {
		for _, l := range lists[1:] {
			if len(l.list) > 0 {
				return doc.ErrorAt("only personas have "+strings.ReplaceAll(l.key, "_", " ")+" (this document is kind: lens)", l.key)
			}
		}
		if !r.Source.IsZero() {
			return doc.ErrorAt("only personas have a source (this document is kind: lens)", "source")
		}
		if r.Emoji == "" {
			r.Emoji = defaultLensEmoji
		}
		return nil
	}
	if len(r.Voice) == 0 && len(r.Exemplars) == 0 {
		return doc.ErrorAt("a persona needs voice markers or exemplars (at least one of voice, exemplars)", "voice")
	}
	if r.Emoji == "" {
		r.Emoji = defaultPersonaEmoji
	}
	return nil
}

// LoadDir parses a set of reviewer documents, path to content (typically the files of
// .council/personas, or of .council/lenses to override built-in lenses), in path order. Two
// documents with the same name are an error naming both files.
func LoadDir(files map[string][]byte) ([]Reviewer, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	out := make([]Reviewer, 0, len(paths))
	seen := map[string]string{}
	for _, p := range paths {
		r, err := ParseDocument(p, files[p])
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[r.Name]; ok {
			return nil, &config.Error{File: p, Key: "name", Msg: fmt.Sprintf("%q is already the name of %s; reviewer names must be unique", r.Name, prev)}
		}
		seen[r.Name] = p
		out = append(out, r)
	}
	return out, nil
}

// Lookup selects reviewers by name, in the order of names. When all holds several reviewers
// with one name, the last wins, so that a repository's document can override a built-in
// lens by being appended after it. An unknown or repeated name is an error; an unknown one
// lists the names available.
func Lookup(all []Reviewer, names []string) ([]Reviewer, error) {
	byName := map[string]Reviewer{}
	var available []string
	for _, r := range all {
		if _, ok := byName[r.Name]; !ok {
			available = append(available, r.Name)
		}
		byName[r.Name] = r
	}
	out := make([]Reviewer, 0, len(names))
	picked := map[string]bool{}
	for _, n := range names {
		r, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("unknown reviewer %q (available: %s)", n, strings.Join(available, ", "))
		}
		if picked[n] {
			return nil, fmt.Errorf("reviewer %q is selected twice", n)
		}
		picked[n] = true
		out = append(out, r)
	}
	return out, nil
}

// Prompt is the reviewer's own part of the prompt, sent after the shared prefix: who it is,
// what it looks for, and its instructions; for a persona also its priorities, what it pushes
// back on, its voice and a few of its past comments.
func (r Reviewer) Prompt() string {
	var b strings.Builder
	if r.Kind == Persona {
		fmt.Fprintf(&b, "# Your role: %s (simulated reviewer)\n\n", r.Title)
		fmt.Fprintf(&b, "You are %s, a simulated reviewer: you review the way one real maintainer of this project reviews, raising what they would raise, as they would say it, and leaving alone what they would leave alone.\n", r.Title)
	} else {
		fmt.Fprintf(&b, "# Your role: the %s lens\n\n", r.Title)
		fmt.Fprintf(&b, "You are the %s reviewer of the council. Other reviewers cover the other concerns; report only what falls under yours.\n", r.Title)
	}
	if len(r.Focus) > 0 {
		fmt.Fprintf(&b, "Your focus: %s.\n", strings.Join(r.Focus, ", "))
	}
	b.WriteString("\n## Instructions\n\n")
	b.WriteString(r.Instructions)
	b.WriteString("\n")
	if r.Kind != Persona {
		b.WriteString("\nWrite each finding's title and body as the comment itself; prefix nothing, the tool adds your name and emoji.\n")
		return b.String()
	}
	list := func(heading string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", heading)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	list("Your priorities, most important first", r.Priorities)
	list("What you push back on", r.PushesBackOn)
	b.WriteString("\n## Voice\n\n")
	fmt.Fprintf(&b, "Write every title, body and summary in %s's voice: first person, as a colleague commenting on the pull request, direct and brief.", r.Title)
	if len(r.Voice) > 0 {
		quoted := make([]string, len(r.Voice))
		for i, v := range r.Voice {
			quoted[i] = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, " Markers of this voice: %s. Use them where they fit naturally, not in every comment.", strings.Join(quoted, ", "))
	}
	b.WriteString("\n")
	if len(r.Exemplars) > 0 {
		fmt.Fprintf(&b, "\nPast review comments by %s, on other changes. Imitate their tone, length and judgement; do not repeat their content:\n", r.Title)
		for i, ex := range r.Exemplars {
			fmt.Fprintf(&b, "\n<exemplar %d>\n%s\n</exemplar %d>\n", i+1, ex, i+1)
		}
	}
	b.WriteString("\nWrite in this voice; prefix nothing, the tool adds your name.\n")
	return b.String()
}
