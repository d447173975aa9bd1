package review

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/config"
)

func TestBuiltin(t *testing.T) {
	t.Parallel()
	got := Builtin()
	type head struct{ Name, Title, Emoji, Alert, Noun, Source string }
	var heads []head
	for _, r := range got {
		heads = append(heads, head{r.Name, r.Title, r.Emoji, r.Alert, r.Noun, r.Location})
		if r.Kind != Lens {
			t.Errorf("%s: Kind = %q, want lens", r.Name, r.Kind)
		}
		if len(r.Focus) == 0 {
			t.Errorf("%s: no focus", r.Name)
		}
		// The instructions are the product: each lens must say what to look for, what not to
		// report, how to quote, how to grade, when to suggest and how to write the body.
		for _, must := range []string{"What to look for", "Do not report", "Quote the exact", "Severity", "suggestion", "The body says", "Confidence"} {
			if !strings.Contains(r.Instructions, must) {
				t.Errorf("%s: instructions do not contain %q", r.Name, must)
			}
		}
	}
	want := []head{
		{"correctness", "Correctness", "🔎", "NOTE", "correctness issue", "builtin:correctness"},
		{"security", "Security", "🛡️", "CAUTION", "security issue", "builtin:security"},
		{"maintainability", "Maintainability & Tests", "🧪", "TIP", "maintainability issue", "builtin:maintainability"},
	}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("Builtin() mismatch (-want +got):\n%s", diff)
	}

	// Each call returns values the caller owns.
	got[0].Focus[0] = "changed"
	if Builtin()[0].Focus[0] == "changed" {
		t.Error("Builtin() shares state between calls")
	}
}

func TestBuiltinFilesParseStandalone(t *testing.T) {
	t.Parallel()
	// A user copies a built-in lens into .council/lenses to override it: it must parse as
	// an ordinary document.
	for _, name := range builtinOrder {
		data, err := lensFS.ReadFile("lenses/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseDocument(".council/lenses/"+name+".yaml", data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestExamplePersona(t *testing.T) {
	t.Parallel()
	const file = "../../examples/personas/casey.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseDocument(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "casey" || r.Kind != Persona || r.Emoji != "👤" || r.Alert != "WARNING" {
		t.Errorf("casey = %+v", r)
	}
	if len(r.Voice) == 0 || len(r.Exemplars) == 0 || len(r.Priorities) == 0 || len(r.PushesBackOn) == 0 {
		t.Errorf("casey lacks voice, exemplars, priorities or pushes_back_on: %+v", r)
	}
}

func TestParseDocument(t *testing.T) {
	t.Parallel()
	nell := Reviewer{
		Name:         "nell",
		Kind:         Persona,
		Title:        "Nell",
		Emoji:        "👤",
		Alert:        "IMPORTANT",
		Focus:        []string{"simplicity", "naming", "error handling", "keep useful comments"},
		Noun:         "issue",
		Instructions: "Read the change as the maintainer of the BPF dataplane.\n\nAsk before asserting.",
		Voice:        []string{"I think…", "IIUC", "nit:", "WDYT?"},
		Exemplars:    []string{"IIUC the new flow enqueues the forward key. Can we update the comment?"},
	}
	tests := []struct {
		name   string
		source string
		in     string
		want   Reviewer
	}{
		{
			name:   "yaml persona",
			source: "personas/nell.yaml",
			in: `name: nell
kind: persona
title: Nell
alert: important
focus: [simplicity, naming, error handling, keep useful comments]
instructions: |
  Read the change as the maintainer of the BPF dataplane.

  Ask before asserting.
voice: ["I think…", "IIUC", "nit:", "WDYT?"]
exemplars:
  - IIUC the new flow enqueues the forward key. Can we update the comment?
`,
			want: nell,
		},
		{
			name:   "markdown persona",
			source: "personas/nell.md",
			in: "---\r\nname: nell\r\nkind: persona\r\ntitle: Nell\r\nalert: IMPORTANT\r\n" +
				"focus: [simplicity, naming, error handling, keep useful comments]\r\n" +
				"voice: [\"I think…\", \"IIUC\", \"nit:\", \"WDYT?\"]\r\n" +
				"exemplars:\r\n  - IIUC the new flow enqueues the forward key. Can we update the comment?\r\n" +
				"---\r\n\r\nRead the change as the maintainer of the BPF dataplane.\r\n\r\nAsk before asserting.\r\n",
			want: nell,
		},
		{
			name:   "lens with defaults",
			source: "lenses/perf.yml",
			in:     "name: perf\nkind: lens\ntitle: Performance\ninstructions: Find allocations in hot loops.\nmodel: claude-opus-4-1\n",
			want: Reviewer{
				Name: "perf", Kind: Lens, Title: "Performance", Emoji: "🔍", Alert: "NOTE", Noun: "issue",
				Instructions: "Find allocations in hot loops.", Model: "claude-opus-4-1",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDocument(tt.source, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Location = tt.source
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ParseDocument() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDocumentErrors(t *testing.T) {
	t.Parallel()
	const persona = "name: casey\nkind: persona\ntitle: Casey\ninstructions: Review.\nvoice: [WDYT?]\n"
	tests := []struct {
		name   string
		source string
		in     string
		want   string // the whole message
		key    string
	}{
		{
			name:   "alert not allowed",
			source: "lenses/x.yaml",
			in:     "name: x\nkind: lens\nalert: \"NOTICE\"\ntitle: X\ninstructions: Look.\n",
			want:   `lenses/x.yaml:3:8: alert: "NOTICE" is not one of NOTE, TIP, IMPORTANT, WARNING, CAUTION`,
			key:    "alert",
		},
		{
			name:   "unknown field",
			source: "p/casey.yaml",
			in:     persona + "pushback: [sleeps]\n",
			want:   "p/casey.yaml:6:1: pushback: unknown key (allowed: name, kind, title, emoji, alert, focus, noun, instructions, model, voice, priorities, pushes_back_on, exemplars, source)",
			key:    "pushback",
		},
		{
			name:   "source is a mapping, not the load path",
			source: "p/casey.yaml",
			in:     persona + "source: elsewhere\n",
			want:   "p/casey.yaml:6:9: source: must be a mapping (got string \"elsewhere\")",
			key:    "source",
		},
		{
			name:   "unknown key in source",
			source: "p/casey.yaml",
			in:     persona + "source:\n  login: casey\n  email: c@example.com\n",
			want:   "p/casey.yaml:8:3: source.email: unknown key (allowed: repositories, login, anonymized, from, to, comments, sampled, council_version, model, built_at, themes, excluded, stats)",
			key:    "source.email",
		},
		{
			name:   "a lens with a source",
			source: "l/x.yaml",
			in:     "name: x\nkind: lens\ntitle: X\ninstructions: y\nsource:\n  login: casey\n",
			want:   "l/x.yaml:5:1: source: only personas have a source (this document is kind: lens)",
			key:    "source",
		},
		{
			name:   "wrong type",
			source: "p/casey.yaml",
			in:     persona + "focus: testing\n",
			want:   `p/casey.yaml:6:8: focus: must be a list (got string "testing")`,
			key:    "focus",
		},
		{
			name:   "missing name",
			source: "p/casey.yaml",
			in:     "kind: persona\ntitle: Casey\ninstructions: Review.\nvoice: [WDYT?]\n",
			want:   `p/casey.yaml: name: required: the reviewer's id, ` + config.NameRule,
			key:    "name",
		},
		{
			name:   "invalid name",
			source: "p/casey.yaml",
			in:     strings.Replace(persona, "name: casey", "name: Casey Jones", 1),
			want:   `p/casey.yaml:1:7: name: "Casey Jones" is not a valid name: use ` + config.NameRule,
			key:    "name",
		},
		{
			name:   "missing kind",
			source: "p/casey.yaml",
			in:     strings.Replace(persona, "kind: persona\n", "", 1),
			want:   "p/casey.yaml: kind: required: one of lens, persona",
			key:    "kind",
		},
		{
			name:   "bad kind",
			source: "p/casey.yaml",
			in:     strings.Replace(persona, "kind: persona", "kind: bot", 1),
			want:   `p/casey.yaml:2:7: kind: "bot" is not one of lens, persona`,
			key:    "kind",
		},
		{
			name:   "missing title",
			source: "p/casey.yaml",
			in:     strings.Replace(persona, "title: Casey\n", "", 1),
			want:   `p/casey.yaml: title: required: the display name, e.g. "Correctness" or "Casey"`,
			key:    "title",
		},
		{
			name:   "missing instructions",
			source: "p/casey.yaml",
			in:     strings.Replace(persona, "instructions: Review.\n", "", 1),
			want:   "p/casey.yaml: instructions: required: what this reviewer looks for and how (in a Markdown file, the body)",
			key:    "instructions",
		},
		{
			name:   "persona without voice or exemplars",
			source: "p/casey.yaml",
			in:     strings.Replace(persona, "voice: [WDYT?]\n", "", 1),
			want:   "p/casey.yaml: voice: a persona needs voice markers or exemplars (at least one of voice, exemplars)",
			key:    "voice",
		},
		{
			name:   "lens with a voice",
			source: "lenses/x.yaml",
			in:     "name: x\nkind: lens\ntitle: X\ninstructions: Look.\nvoice: [WDYT?]\n",
			want:   "lenses/x.yaml:5:8: voice: only personas have voice (this document is kind: lens)",
			key:    "voice",
		},
		{
			name:   "empty exemplar",
			source: "p/casey.yaml",
			in:     persona + "exemplars:\n  - \"  \"\n",
			want:   "p/casey.yaml:7:5: exemplars[0]: must not be empty",
			key:    "exemplars[0]",
		},
		{
			name:   "markdown with instructions twice",
			source: "p/casey.md",
			in:     "---\n" + persona + "---\nAlso review.\n",
			want:   "p/casey.md:5:15: instructions: set in the front matter and as the Markdown body; keep one",
			key:    "instructions",
		},
		{
			name:   "markdown error lines are the file's",
			source: "p/casey.md",
			in:     "---\nname: casey\nkind: persona\ntitle: Casey\nalert: loud\nvoice: [WDYT?]\n---\nReview.\n",
			want:   `p/casey.md:5:8: alert: "loud" is not one of NOTE, TIP, IMPORTANT, WARNING, CAUTION`,
			key:    "alert",
		},
		{
			name:   "markdown without front matter",
			source: "p/casey.md",
			in:     "# Casey\n\nReview.\n",
			want:   `p/casey.md:1:1: a Markdown reviewer must start with YAML front matter between "---" lines`,
		},
		{
			name:   "markdown front matter not closed",
			source: "p/casey.md",
			in:     "---\nname: casey\n",
			want:   `p/casey.md:1:1: front matter is not closed by a "---" line`,
		},
		{
			name:   "unsupported extension",
			source: "p/casey.json",
			in:     "{}",
			want:   `p/casey.json: unsupported reviewer file type ".json" (want .yaml, .yml or .md)`,
		},
		{
			name:   "syntax error",
			source: "p/casey.yaml",
			in:     "name: [casey\n",
			want:   "p/casey.yaml:1:7: sequence end token ']' not found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseDocument(tt.source, []byte(tt.in))
			if err == nil {
				t.Fatalf("ParseDocument() = nil error, want %q", tt.want)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a *config.Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if ce.File != tt.source || ce.Key != tt.key {
				t.Errorf("File, Key = %q, %q; want %q, %q", ce.File, ce.Key, tt.source, tt.key)
			}
		})
	}
}

func TestLoadDir(t *testing.T) {
	t.Parallel()
	casey := "name: casey\nkind: persona\ntitle: Casey\ninstructions: Review.\nvoice: [WDYT?]\n"
	nell := "---\nname: nell\nkind: persona\ntitle: Nell\nexemplars: [IIUC this leaks.]\n---\nReview.\n"
	got, err := LoadDir(map[string][]byte{
		".council/personas/nell.md":    []byte(nell),
		".council/personas/casey.yaml": []byte(casey),
	})
	if err != nil {
		t.Fatal(err)
	}
	var names, sources []string
	for _, r := range got {
		names, sources = append(names, r.Name), append(sources, r.Location)
	}
	if diff := cmp.Diff([]string{"casey", "nell"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".council/personas/casey.yaml", ".council/personas/nell.md"}, sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}

	_, err = LoadDir(map[string][]byte{
		".council/personas/a.yaml": []byte(casey),
		".council/personas/b.yaml": []byte(casey),
	})
	want := `.council/personas/b.yaml: name: "casey" is already the name of .council/personas/a.yaml; reviewer names must be unique`
	if err == nil || err.Error() != want {
		t.Errorf("LoadDir(duplicates) error = %v, want %s", err, want)
	}

	_, err = LoadDir(map[string][]byte{".council/personas/bad.yaml": []byte("name: bad\n")})
	if err == nil || !strings.HasPrefix(err.Error(), ".council/personas/bad.yaml") {
		t.Errorf("LoadDir(bad) error = %v, want one naming the file", err)
	}

	got, err = LoadDir(nil)
	if err != nil || len(got) != 0 {
		t.Errorf("LoadDir(nil) = %v, %v; want nothing", got, err)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	all := Builtin()
	override := all[1]
	override.Instructions, override.Location = "Only look at auth.", ".council/lenses/security.yaml"
	all = append(all, override)

	got, err := Lookup(all, []string{"security", "correctness"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "security" || got[1].Name != "correctness" {
		t.Fatalf("Lookup() = %v, want security, correctness", got)
	}
	if got[0].Location != ".council/lenses/security.yaml" {
		t.Errorf("Lookup() picked %s, want the later override", got[0].Location)
	}

	_, err = Lookup(all, []string{"correctness", "style"})
	want := `unknown reviewer "style" (available: correctness, security, maintainability)`
	if err == nil || err.Error() != want {
		t.Errorf("Lookup(unknown) error = %v, want %s", err, want)
	}
	_, err = Lookup(all, []string{"security", "security"})
	if err == nil || !strings.Contains(err.Error(), `"security" is selected twice`) {
		t.Errorf("Lookup(twice) error = %v", err)
	}
	got, err = Lookup(all, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("Lookup(nil) = %v, %v", got, err)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	lens := Builtin()[0].Prompt()
	for _, must := range []string{"the Correctness lens", "Your focus: bugs, completeness, concurrency, edge cases.", "Do not report", "prefix nothing"} {
		if !strings.Contains(lens, must) {
			t.Errorf("lens prompt lacks %q:\n%s", must, lens)
		}
	}
	if strings.Contains(lens, "Voice") {
		t.Errorf("lens prompt has a Voice section:\n%s", lens)
	}

	casey := Reviewer{
		Name: "casey", Kind: Persona, Title: "Casey", Focus: []string{"testing discipline"},
		Instructions: "Review like the owner.",
		Voice:        []string{"I think…", "WDYT?"},
		Priorities:   []string{"fast tests"},
		PushesBackOn: []string{"time.Sleep in tests"},
		Exemplars:    []string{"This sleep is sort-of crazy. WDYT?"},
	}
	got := casey.Prompt()
	want := `# Your role: Casey (simulated reviewer)

You are Casey, a simulated reviewer: you review the way one real maintainer of this project reviews, raising what they would raise, as they would say it, and leaving alone what they would leave alone.
Your focus: testing discipline.

## Instructions

Review like the owner.

## Your priorities, most important first

- fast tests

## What you push back on

- time.Sleep in tests

## Voice

Write every title, body and summary in Casey's voice: first person, as a colleague commenting on the pull request, direct and brief. Markers of this voice: "I think…", "WDYT?". Use them where they fit naturally, not in every comment.

Past review comments by Casey, on other changes. Imitate their tone, length and judgement; do not repeat their content:

<exemplar 1>
This sleep is sort-of crazy. WDYT?
</exemplar 1>

Write in this voice; prefix nothing, the tool adds your name.
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Prompt() mismatch (-want +got):\n%s", diff)
	}
}

// FuzzParseDocument feeds random bytes to ParseDocument as YAML and as Markdown: it must never
// panic, and every error must be a *config.Error naming the file.
func FuzzParseDocument(f *testing.F) {
	f.Add([]byte("name: casey\nkind: persona\ntitle: Casey\ninstructions: Review.\nvoice: [WDYT?]\n"), false)
	f.Add([]byte("---\nname: nell\nkind: persona\ntitle: Nell\nexemplars: [IIUC]\n---\nReview.\n"), true)
	f.Add([]byte("---\r\n---\r\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, markdown bool) {
		source := "p/x.yaml"
		if markdown {
			source = "p/x.md"
		}
		r, err := ParseDocument(source, data)
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || ce.File != source {
				t.Fatalf("error %T %v is not a *config.Error naming the file", err, err)
			}
			return
		}
		if !config.ValidName(r.Name) || r.Title == "" || r.Instructions == "" || r.Emoji == "" || r.Alert == "" {
			t.Fatalf("incomplete reviewer %+v", r)
		}
	})
}
