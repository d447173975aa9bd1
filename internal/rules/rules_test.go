package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
)

func modified(p string, lines ...diff.Line) diff.File {
	return diff.File{OldPath: p, NewPath: p, Status: diff.Modified, Hunks: []diff.Hunk{{Lines: lines}}}
}

func added(p string) diff.File {
	return diff.File{NewPath: p, Status: diff.Added, Hunks: []diff.Hunk{{Lines: []diff.Line{plus(1, "x")}}}}
}

func deleted(p string) diff.File {
	return diff.File{OldPath: p, Status: diff.Deleted, Hunks: []diff.Hunk{{Lines: []diff.Line{minus(1, "x")}}}}
}

func renamed(from, to string) diff.File {
	return diff.File{OldPath: from, NewPath: to, Status: diff.Renamed}
}

func plus(n int, text string) diff.Line  { return diff.Line{Op: diff.Add, Text: text, New: n} }
func minus(n int, text string) diff.Line { return diff.Line{Op: diff.Delete, Text: text, Old: n} }
func same(o, n int, text string) diff.Line {
	return diff.Line{Op: diff.Context, Text: text, Old: o, New: n}
}

var bpfDoc = config.Rule{
	Name:           "bpf-design-doc",
	WhenChanged:    []string{"felix/bpf-gpl/**"},
	RequireChanged: []string{"felix/design/bpf-*.md"},
	Message:        "A change to the BPF programs must update the design doc. The doc is what reviewers read.",
	Severity:       finding.Medium,
}

// bpfFinding is bpfDoc's finding on path, for a change that touches touched.
func bpfFinding(path, touched string) finding.Finding {
	return finding.Finding{
		Lenses:   []string{Reviewer},
		Path:     path,
		Side:     finding.Right,
		Severity: finding.Medium,
		Category: "docs",
		Title:    "A change to the BPF programs must update the design doc",
		Body: "A change to the BPF programs must update the design doc. The doc is what reviewers read. " +
			"(rule bpf-design-doc: a change to `felix/bpf-gpl/**` requires a change to `felix/design/bpf-*.md`; " +
			"this change touches " + touched + " but none of `felix/design/bpf-*.md`)",
		Confidence: 1,
	}
}

func TestCoChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules []config.Rule
		files []diff.File
		want  []finding.Finding
	}{
		{
			name:  "deep file under ** without the doc",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/include/x.c", plus(3, "int x;")), modified("felix/fv/a_test.go")},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/include/x.c", "felix/bpf-gpl/include/x.c")},
		},
		{
			name:  "the doc changed too",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/include/x.c"), modified("felix/design/bpf-maps.md")},
		},
		{
			name:  "a new doc counts",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/x.c"), added("felix/design/bpf-qos.md")},
		},
		{
			name:  "a doc in a subdirectory does not match a single star",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/x.c"), modified("felix/design/old/bpf-maps.md")},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/x.c", "felix/bpf-gpl/x.c")},
		},
		{
			name:  "a doc that is not bpf-*",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/x.c"), modified("felix/design/README.md")},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/x.c", "felix/bpf-gpl/x.c")},
		},
		{
			name:  "nothing under when_changed",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf/x.go"), modified("felix/bpf-gpl.md")},
		},
		{
			name:  "only the doc",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/design/bpf-maps.md")},
		},
		{
			name:  "several files: the first is the path, all are listed",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/z.c"), modified("felix/bpf-gpl/a.h"), modified("felix/bpf-gpl/m/n.c")},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/a.h", "felix/bpf-gpl/a.h, felix/bpf-gpl/m/n.c, felix/bpf-gpl/z.c")},
		},
		{
			name:  "renaming a file out of when_changed",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{renamed("felix/bpf-gpl/x.c", "felix/legacy/x.c")},
			want:  []finding.Finding{bpfFinding("felix/legacy/x.c", "felix/bpf-gpl/x.c")},
		},
		{
			name:  "renaming a file into when_changed",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{renamed("felix/legacy/x.c", "felix/bpf-gpl/x.c")},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/x.c", "felix/bpf-gpl/x.c")},
		},
		{
			name:  "deleting a file under when_changed",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{deleted("felix/bpf-gpl/old.c")},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/old.c", "felix/bpf-gpl/old.c")},
		},
		{
			name:  "renaming the doc satisfies the rule",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/x.c"), renamed("felix/design/bpf-old.md", "felix/design/archive/old.md")},
		},
		{
			name:  "deleting the doc satisfies the rule",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{modified("felix/bpf-gpl/x.c"), deleted("felix/design/bpf-old.md")},
		},
		{
			name:  "a binary file counts as changed",
			rules: []config.Rule{bpfDoc},
			files: []diff.File{{OldPath: "felix/bpf-gpl/bin/x.o", NewPath: "felix/bpf-gpl/bin/x.o", Status: diff.Modified, Binary: true}},
			want:  []finding.Finding{bpfFinding("felix/bpf-gpl/bin/x.o", "felix/bpf-gpl/bin/x.o")},
		},
		{
			name: "a require glob that is not Markdown is category other; no message is titled by name",
			rules: []config.Rule{{
				Name:           "api-changelog",
				WhenChanged:    []string{"api/**/*.proto"},
				RequireChanged: []string{"CHANGELOG.md", "api/docs/**"},
				Severity:       finding.Low,
			}},
			files: []diff.File{modified("api/v1/x.proto")},
			want: []finding.Finding{{
				Lenses:     []string{Reviewer},
				Path:       "api/v1/x.proto",
				Side:       finding.Right,
				Severity:   finding.Low,
				Category:   "other",
				Title:      "Rule api-changelog",
				Body:       "(rule api-changelog: a change to `api/**/*.proto` requires a change to `CHANGELOG.md`, `api/docs/**`; this change touches api/v1/x.proto but none of `CHANGELOG.md`, `api/docs/**`)",
				Confidence: 1,
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Check(tt.rules, tt.files)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

var noPrint = config.Rule{
	Name:     "no-debug-print",
	Forbid:   `fmt\.Print(ln|f)?\(`,
	Paths:    []string{"**/*.go"},
	Message:  "Use the logger, not fmt.Print.",
	Severity: finding.Low,
}

func printFinding(path string, line int, quote string) finding.Finding {
	return finding.Finding{
		Lenses:     []string{Reviewer},
		Path:       path,
		Line:       line,
		Side:       finding.Right,
		Quote:      quote,
		Severity:   finding.Low,
		Category:   "style",
		Title:      "Use the logger, not fmt.Print.",
		Body:       "Use the logger, not fmt.Print. (rule no-debug-print: `fmt\\.Print(ln|f)?\\(` matched)",
		Confidence: 1,
	}
}

func TestForbid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules []config.Rule
		files []diff.File
		want  []finding.Finding
	}{
		{
			name:  "added lines only, not context or deleted ones",
			rules: []config.Rule{noPrint},
			files: []diff.File{modified("cmd/x.go",
				same(10, 10, `	fmt.Println("context")`),
				minus(11, `	fmt.Printf("deleted %d", n)`),
				plus(11, `	log.Info("added")`),
				plus(12, `	fmt.Printf("added %d", n)`),
			)},
			want: []finding.Finding{printFinding("cmd/x.go", 12, `	fmt.Printf("added %d", n)`)},
		},
		{
			name:  "paths filter",
			rules: []config.Rule{noPrint},
			files: []diff.File{
				modified("docs/logging.md", plus(4, "Never call fmt.Println( in production code.")),
				modified("internal/a/b.go", plus(7, `fmt.Print("x")`)),
			},
			want: []finding.Finding{printFinding("internal/a/b.go", 7, `fmt.Print("x")`)},
		},
		{
			name:  "no paths means every file",
			rules: []config.Rule{{Name: "no-print", Forbid: `fmt\.Print`, Message: "No prints.", Severity: finding.Nit}},
			files: []diff.File{modified("docs/logging.md", plus(4, "fmt.Println"))},
			want: []finding.Finding{{
				Lenses: []string{Reviewer}, Path: "docs/logging.md", Line: 4, Side: finding.Right, Quote: "fmt.Println",
				Severity: finding.Nit, Category: "style", Title: "No prints.",
				Body: "No prints. (rule no-print: `fmt\\.Print` matched)", Confidence: 1,
			}},
		},
		{
			name:  "several matches, sorted by path then line",
			rules: []config.Rule{noPrint},
			files: []diff.File{
				modified("z.go", plus(3, "fmt.Println(a)"), plus(1, "fmt.Println(b)")),
				modified("a/y.go", plus(20, "fmt.Println(c)"), plus(21, "fmt.Println(d); fmt.Println(e)")),
			},
			want: []finding.Finding{
				printFinding("a/y.go", 20, "fmt.Println(c)"),
				printFinding("a/y.go", 21, "fmt.Println(d); fmt.Println(e)"),
				printFinding("z.go", 1, "fmt.Println(b)"),
				printFinding("z.go", 3, "fmt.Println(a)"),
			},
		},
		{
			name:  "a new file's lines are added lines",
			rules: []config.Rule{noPrint},
			files: []diff.File{{NewPath: "n.go", Status: diff.Added, Hunks: []diff.Hunk{{Lines: []diff.Line{plus(1, "fmt.Printf(x)")}}}}},
			want:  []finding.Finding{printFinding("n.go", 1, "fmt.Printf(x)")},
		},
		{
			name:  "a deleted file has nothing to forbid",
			rules: []config.Rule{noPrint},
			files: []diff.File{{OldPath: "d.go", Status: diff.Deleted, Hunks: []diff.Hunk{{Lines: []diff.Line{minus(1, "fmt.Printf(x)")}}}}},
		},
		{
			name:  "a renamed file is filtered by its new path",
			rules: []config.Rule{noPrint},
			files: []diff.File{{OldPath: "old.txt", NewPath: "new.go", Status: diff.Renamed, Hunks: []diff.Hunk{{Lines: []diff.Line{plus(2, "fmt.Println()")}}}}},
			want:  []finding.Finding{printFinding("new.go", 2, "fmt.Println()")},
		},
		{
			name:  "the same rule twice is one finding per line",
			rules: []config.Rule{noPrint, noPrint},
			files: []diff.File{modified("x.go", plus(1, "fmt.Println()"))},
			want:  []finding.Finding{printFinding("x.go", 1, "fmt.Println()")},
		},
		{
			name: "two rules on one line are two findings, in rule order",
			rules: []config.Rule{noPrint, {
				Name: "no-todo", Forbid: `TODO`, Paths: []string{"**"}, Message: "Open an issue instead of a TODO.",
			}},
			files: []diff.File{modified("x.go", plus(1, "fmt.Println() // TODO"))},
			want: []finding.Finding{
				printFinding("x.go", 1, "fmt.Println() // TODO"),
				{
					Lenses: []string{Reviewer}, Path: "x.go", Line: 1, Side: finding.Right, Quote: "fmt.Println() // TODO",
					Severity: finding.Medium, Category: "style", Title: "Open an issue instead of a TODO.",
					Body: "Open an issue instead of a TODO. (rule no-todo: `TODO` matched)", Confidence: 1,
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Check(tt.rules, tt.files)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMixedRulesOrder(t *testing.T) {
	t.Parallel()
	files := []diff.File{
		modified("felix/bpf-gpl/x.c", plus(5, "int x;")),
		modified("felix/bpf-gpl/y.go", plus(2, "fmt.Println(x)")),
	}
	got := Check([]config.Rule{noPrint, bpfDoc}, files)
	want := []finding.Finding{
		bpfFinding("felix/bpf-gpl/x.c", "felix/bpf-gpl/x.c, felix/bpf-gpl/y.go"),
		printFinding("felix/bpf-gpl/y.go", 2, "fmt.Println(x)"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check() mismatch (-want +got):\n%s", diff)
	}
}

// TestParsedPatch runs a rule over what diff.Parse makes of a real git patch with a rename, so
// that the rule sees old paths the way the pipeline gives them.
func TestParsedPatch(t *testing.T) {
	t.Parallel()
	patch := "diff --git a/felix/bpf-gpl/old.c b/felix/bpf/new.c\n" +
		"similarity index 90%\n" +
		"rename from felix/bpf-gpl/old.c\n" +
		"rename to felix/bpf/new.c\n" +
		"index 1111111..2222222 100644\n" +
		"--- a/felix/bpf-gpl/old.c\n" +
		"+++ b/felix/bpf/new.c\n" +
		"@@ -1,2 +1,2 @@\n" +
		" int a;\n" +
		"-int b;\n" +
		"+int c;\n"
	files, err := diff.Parse([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	got := Check([]config.Rule{bpfDoc}, files)
	want := []finding.Finding{bpfFinding("felix/bpf/new.c", "felix/bpf-gpl/old.c")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check() mismatch (-want +got):\n%s", diff)
	}
}

func TestBrokenRules(t *testing.T) {
	t.Parallel()
	rules := []config.Rule{
		{Name: "bad-re", Forbid: `fmt\.Print(`, Message: "m", Severity: finding.High},
		{Name: "no-kind", Message: "m"},
	}
	got := Check(rules, []diff.File{modified("x.go", plus(1, "fmt.Print("))})
	want := []finding.Finding{
		{
			Lenses: []string{Reviewer}, Path: ConfigFile, Side: finding.Right, Severity: finding.High, Category: "other",
			Title:      "Rule bad-re cannot run",
			Body:       "m (rule bad-re was not checked: its forbid pattern is not a valid Go regular expression: error parsing regexp: missing closing ): `fmt\\.Print(`)",
			Confidence: 1,
		},
		{
			Lenses: []string{Reviewer}, Path: ConfigFile, Side: finding.Right, Severity: finding.Medium, Category: "other",
			Title:      "Rule no-kind cannot run",
			Body:       "m (rule no-kind was not checked: it must have either when_changed and require_changed, or forbid)",
			Confidence: 1,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check() mismatch (-want +got):\n%s", diff)
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg, want string
	}{
		{"Update the doc.", "Update the doc"},
		{"Update the doc. It is read by reviewers.", "Update the doc"},
		{"Why no doc? Add one.", "Why no doc?"},
		{"First line\nsecond line", "First line"},
		{"Version 1.2 needs a doc", "Version 1.2 needs a doc"},
		{"", "Rule r"},
		{"  .  ", "Rule r"},
	}
	for _, tt := range tests {
		if got := title(config.Rule{Name: "r", Message: tt.msg}); got != tt.want {
			t.Errorf("title(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

func TestNoRulesNoFindings(t *testing.T) {
	t.Parallel()
	if got := Check(nil, []diff.File{modified("x.go", plus(1, "x"))}); len(got) != 0 {
		t.Errorf("Check(nil) = %v, want none", got)
	}
	if got := Check([]config.Rule{bpfDoc, noPrint}, nil); len(got) != 0 {
		t.Errorf("Check(no files) = %v, want none", got)
	}
}
