package anchor

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
)

// hunk builds a hunk from lines written as in a unified diff ("+x", "-y", " z") and numbers
// them the way the parser does.
func hunk(oldStart, newStart int, lines ...string) diff.Hunk {
	h := diff.Hunk{OldStart: oldStart, NewStart: newStart}
	o, n := oldStart, newStart
	for _, l := range lines {
		dl := diff.Line{Op: diff.Op(l[0]), Text: l[1:]}
		switch dl.Op {
		case diff.Context:
			dl.Old, dl.New = o, n
			o++
			n++
		case diff.Add:
			dl.New = n
			n++
		case diff.Delete:
			dl.Old = o
			o++
		}
		h.Lines = append(h.Lines, dl)
	}
	h.OldLines, h.NewLines = o-oldStart, n-newStart
	return h
}

const handler = "internal/server/handler.go"

// fixture is a small change: a modified Go file with two hunks, a rename with an edit, a
// binary file and a deleted file. Line numbers are in the comments.
func fixture() []diff.File {
	return []diff.File{
		{
			OldPath: handler, NewPath: handler, Status: diff.Modified,
			Hunks: []diff.Hunk{
				hunk(10, 10,
					" func (s *Server) handle(w http.ResponseWriter, r *http.Request) {", // old 10, new 10
					"-\tid := r.URL.Query().Get(\"id\")",                                 // old 11
					"+\tid := r.URL.Query().Get(\"user_id\")",                            // new 11
					"+\tif id == \"\" {",                                                 // new 12
					"+\t\thttp.Error(w, \"missing id\", http.StatusBadRequest)",          // new 13
					"+\t\treturn", // new 14
					"+\t}",        // new 15
					" \tuser, err := s.store.Get(r.Context(), id)",                    // old 12, new 16
					" \tif err != nil {",                                              // old 13, new 17
					"-\t\tlog.Printf(\"get user: %v\", err)",                          // old 14
					"+\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)", // new 18
					"+\t\treturn", // new 19
					" \t}",        // old 15, new 20
				),
				hunk(40, 45,
					" func (s *Server) list(w http.ResponseWriter, r *http.Request) {", // old 40, new 45
					" \tusers, err := s.store.List(r.Context())",                       // old 41, new 46
					" \tif err != nil {", // old 42, new 47
					"+\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)", // new 48
					" \t\treturn", // old 43, new 49
					" \t}",        // old 44, new 50
				),
			},
		},
		{
			OldPath: "pkg/old.go", NewPath: "pkg/new.go", Status: diff.Renamed,
			Hunks: []diff.Hunk{hunk(1, 1,
				" package pkg", // 1
				"-var limit = 10",
				"+var limit = 100", // new 2
			)},
		},
		{OldPath: "img/logo.png", NewPath: "img/logo.png", Status: diff.Modified, Binary: true},
		{
			OldPath: "legacy/gone.go", Status: diff.Deleted,
			Hunks: []diff.Hunk{hunk(1, 0,
				"-package legacy",
				"-",
				"-func Gone() {}",
			)},
		},
	}
}

// base is what a reviewer hands in before anchoring.
func base(path string, line int, quote string) finding.Finding {
	return finding.Finding{
		Lenses: []string{"correctness"}, Path: path, Line: line, Side: finding.Right, Quote: quote,
		Severity: finding.High, Category: "bug", Title: "t", Body: "b", Confidence: 0.8,
	}
}

func TestAnchor(t *testing.T) {
	t.Parallel()

	type test struct {
		name string
		give finding.Finding
		want func(f *finding.Finding) // applied to a copy of give
	}
	ok := func(side finding.Side, start, line int, note string) func(f *finding.Finding) {
		return func(f *finding.Finding) {
			f.HintLine, f.HintStartLine = f.Line, f.StartLine
			f.Side, f.StartLine, f.Line = side, start, line
			f.Anchored, f.Status, f.AnchorNote = true, finding.Reported, note
		}
	}
	failed := func(side finding.Side, line int, note string) func(f *finding.Finding) {
		return func(f *finding.Finding) {
			f.HintLine, f.HintStartLine = f.Line, f.StartLine
			f.Side, f.StartLine, f.Line = side, 0, line
			f.Anchored, f.Status, f.AnchorNote = false, finding.OtherNote, note
		}
	}
	then := func(fns ...func(f *finding.Finding)) func(f *finding.Finding) {
		return func(f *finding.Finding) {
			for _, fn := range fns {
				fn(f)
			}
		}
	}
	with := func(f finding.Finding, fn func(f *finding.Finding)) finding.Finding {
		fn(&f)
		return f
	}
	suggestedBody := func(s string) func(f *finding.Finding) {
		return func(f *finding.Finding) {
			f.Body = "b\n\nSuggested change:\n\n```\n" + s + "\n```"
			f.Suggestion = ""
		}
	}

	tests := []test{
		{
			name: "exact match at the hint",
			give: base(handler, 12, "\tif id == \"\" {"),
			want: ok(finding.Right, 0, 12, "exact"),
		},
		{
			name: "hint off by several lines",
			give: base(handler, 8, "\tif id == \"\" {"),
			want: ok(finding.Right, 0, 12, "exact; hint off by 4 lines"),
		},
		{
			name: "hint off by one line",
			give: base(handler, 13, "\tif id == \"\" {"),
			want: ok(finding.Right, 0, 12, "exact; hint off by 1 line"),
		},
		{
			name: "quote twice: the occurrence nearest the hint wins",
			give: base(handler, 44, "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)"),
			want: ok(finding.Right, 0, 48, "exact; hint off by 4 lines"),
		},
		{
			name: "quote twice: nearest the hint, the other way",
			give: base(handler, 20, "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)"),
			want: ok(finding.Right, 0, 18, "exact; hint off by 2 lines"),
		},
		{
			name: "quote twice without a hint: the first",
			give: base(handler, 0, "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)"),
			want: ok(finding.Right, 0, 18, "exact"),
		},
		{
			name: "an added line is preferred over a nearer context line",
			give: base(handler, 49, "\t\treturn"),
			want: ok(finding.Right, 0, 19, "exact; hint off by 30 lines"),
		},
		{
			name: "quote spanning lines",
			give: with(base(handler, 12, "\tif id == \"\" {\n\t\thttp.Error(w, \"missing id\", http.StatusBadRequest)\n\t\treturn\n\t}\n"),
				func(f *finding.Finding) { f.StartLine = 12 }),
			want: ok(finding.Right, 12, 15, "exact"),
		},
		{
			name: "multi-line quote of pure context is fine",
			give: base(handler, 16, "\tuser, err := s.store.Get(r.Context(), id)\n\tif err != nil {"),
			want: ok(finding.Right, 16, 17, "exact"),
		},
		{
			name: "quote not in the diff",
			give: base(handler, 30, "\treturn s.render(w, users)"),
			want: failed(finding.Right, 30, "quote not found in the diff"),
		},
		{
			name: "quote not in the diff and no hint: first commentable line",
			give: base(handler, 0, "\treturn s.render(w, users)"),
			want: failed(finding.Right, 10, "quote not found in the diff"),
		},
		{
			name: "LEFT comment on a deleted line",
			give: with(base(handler, 11, "\tid := r.URL.Query().Get(\"id\")"), func(f *finding.Finding) { f.Side = finding.Left }),
			want: ok(finding.Left, 0, 11, "exact"),
		},
		{
			name: "RIGHT request that only matches a deleted line goes LEFT",
			give: base(handler, 18, "\t\tlog.Printf(\"get user: %v\", err)"),
			want: ok(finding.Left, 0, 14, "exact; quote found on deleted lines (LEFT)"),
		},
		{
			name: "LEFT request for an added line goes RIGHT",
			give: with(base(handler, 0, "\tid := r.URL.Query().Get(\"user_id\")"), func(f *finding.Finding) { f.Side = finding.Left }),
			want: ok(finding.Right, 0, 11, "exact; quote found on the new side (RIGHT)"),
		},
		{
			name: "side defaults to RIGHT",
			give: with(base(handler, 11, "\tid := r.URL.Query().Get(\"user_id\")"), func(f *finding.Finding) { f.Side = "" }),
			want: ok(finding.Right, 0, 11, "exact"),
		},
		{
			name: "whitespace differences",
			give: base(handler, 18, "    http.Error(w,  err.Error(), http.StatusInternalServerError)  "),
			want: ok(finding.Right, 0, 18, "whitespace-insensitive"),
		},
		{
			name: "multi-line whitespace differences",
			give: base(handler, 12, "  if id == \"\" {\n    http.Error(w, \"missing id\", http.StatusBadRequest)"),
			want: ok(finding.Right, 12, 13, "whitespace-insensitive"),
		},
		{
			name: "diff markers stripped",
			give: base(handler, 12, "+\tif id == \"\" {\n+\t\thttp.Error(w, \"missing id\", http.StatusBadRequest)"),
			want: ok(finding.Right, 12, 13, "exact; diff markers stripped"),
		},
		{
			name: "deleted-line marker points LEFT",
			give: base(handler, 14, "-\t\tlog.Printf(\"get user: %v\", err)"),
			want: ok(finding.Left, 0, 14, "exact; diff markers stripped; quote found on deleted lines (LEFT)"),
		},
		{
			name: "line-number prefixes stripped",
			give: base(handler, 12, "      12 | +\tif id == \"\" {\n      13 | +\t\thttp.Error(w, \"missing id\", http.StatusBadRequest)"),
			want: ok(finding.Right, 12, 13, "exact; line-number prefixes stripped"),
		},
		{
			name: "two-column line-number prefixes stripped",
			give: base(handler, 16, "  12  16 |  \tuser, err := s.store.Get(r.Context(), id)\n  13  17 |  \tif err != nil {"),
			want: ok(finding.Right, 16, 17, "exact; line-number prefixes stripped"),
		},
		{
			// GitHub takes comments on context lines inside a hunk (RIGHT side): a comment the
			// change made stale is reported where it is.
			name: "unchanged line inside a hunk: anchored there",
			give: base(handler, 46, "\tusers, err := s.store.List(r.Context())"),
			want: ok(finding.Right, 0, 46, "exact"),
		},
		{
			// Lines shown around the hunks ("NEW : ") are not in the diff: GitHub would reject
			// a comment there, so the finding is kept as an other note at the line it gave.
			name: "unchanged line outside the hunks: an other note at its line",
			give: base(handler, 30, "      30 :  \treturn s.render(w, users)"),
			want: failed(finding.Right, 30, "quote not found in the diff"),
		},
		{
			name: "context-line prefix stripped",
			give: base(handler, 16, "      16 :  \tuser, err := s.store.Get(r.Context(), id)"),
			want: ok(finding.Right, 0, 16, "exact; line-number prefixes stripped"),
		},
		{
			// The code beyond the diff numbers its lines "  12 : code"; they may overlap a hunk.
			name: "code-context prefix stripped",
			give: base(handler, 12, "  12 : \tif id == \"\" {\n  13 : \t\thttp.Error(w, \"missing id\", http.StatusBadRequest)"),
			want: ok(finding.Right, 12, 13, "exact; line-number prefixes stripped"),
		},
		{
			name: "a copied no-newline marker is not part of the quote",
			give: base("pkg/new.go", 2, " package pkg\n+var limit = 100\n\\ No newline at end of file\n"),
			want: ok(finding.Right, 1, 2, "exact; diff markers stripped"),
		},
		{
			name: "quote copied as -old/+new anchors to the new line",
			give: base(handler, 11, "-\tid := r.URL.Query().Get(\"id\")\n+\tid := r.URL.Query().Get(\"user_id\")"),
			want: ok(finding.Right, 0, 11, "exact; diff markers stripped"),
		},
		{
			name: "substring of one line",
			give: base(handler, 16, "s.store.Get(r.Context(), id)"),
			want: ok(finding.Right, 0, 16, "substring"),
		},
		{
			name: "substring prefers a changed line",
			give: base(handler, 49, "err.Error(), http.StatusInternalServerError"),
			want: ok(finding.Right, 0, 48, "substring; hint off by 1 line"),
		},
		{
			name: "short substring is not enough",
			give: base(handler, 16, "r.Context()"),
			want: failed(finding.Right, 16, "quote not found in the diff"),
		},
		{
			name: "quote spanning two hunks",
			give: base(handler, 20, "\t}\nfunc (s *Server) list(w http.ResponseWriter, r *http.Request) {"),
			want: failed(finding.Right, 20, "quote spans two hunks"),
		},
		{
			name: "rename: old path",
			give: base("pkg/old.go", 2, "var limit = 100"),
			want: then(ok(finding.Right, 0, 2, "exact"), func(f *finding.Finding) { f.Path = "pkg/new.go" }),
		},
		{
			name: "path with b/ prefix",
			give: base("b/"+handler, 12, "\tif id == \"\" {"),
			want: then(ok(finding.Right, 0, 12, "exact"), func(f *finding.Finding) { f.Path = handler }),
		},
		{
			name: "path with ./ prefix",
			give: base("./"+handler, 12, "\tif id == \"\" {"),
			want: then(ok(finding.Right, 0, 12, "exact"), func(f *finding.Finding) { f.Path = handler }),
		},
		{
			name: "unknown path",
			give: base("internal/server/routes.go", 7, "mux.Handle(\"/\", s)"),
			want: failed(finding.Right, 7, "path not in the diff"),
		},
		{
			name: "binary file",
			give: base("img/logo.png", 1, "PNG"),
			want: failed(finding.Right, 1, "binary file"),
		},
		{
			name: "deleted file: a RIGHT request goes LEFT",
			give: base("legacy/gone.go", 3, "func Gone() {}"),
			want: ok(finding.Left, 0, 3, "exact; quote found on deleted lines (LEFT)"),
		},
		{
			name: "deleted file, no quote, no hint: first line on the old side",
			give: base("legacy/gone.go", 0, ""),
			want: failed(finding.Left, 1, "no quote and no line"),
		},
		{
			name: "empty quote with a valid hint",
			give: base(handler, 17, ""),
			want: ok(finding.Right, 0, 17, "hint line"),
		},
		{
			name: "empty quote with a valid hint range",
			give: with(base(handler, 14, "\n"), func(f *finding.Finding) { f.StartLine = 12 }),
			want: ok(finding.Right, 12, 14, "hint line"),
		},
		{
			name: "empty quote with a hint outside the hunks",
			give: base(handler, 30, ""),
			want: failed(finding.Right, 30, "no quote, and line 30 is not inside one hunk on the RIGHT side"),
		},
		{
			name: "empty quote with a hint range across hunks",
			give: with(base(handler, 46, ""), func(f *finding.Finding) { f.StartLine = 19 }),
			want: then(failed(finding.Right, 46, "no quote, and lines 19-46 are not inside one hunk on the RIGHT side"),
				func(f *finding.Finding) { f.StartLine = 19 }),
		},
		{
			name: "suggestion kept when it replaces exactly the quoted lines",
			give: with(base(handler, 11, "\tid := r.URL.Query().Get(\"user_id\")"),
				func(f *finding.Finding) { f.Suggestion = "\tid := r.URL.Query().Get(\"id\")\n" }),
			want: ok(finding.Right, 0, 11, "exact"),
		},
		{
			name: "suggestion on a LEFT line moves to the body",
			give: with(base(handler, 14, "\t\tlog.Printf(\"get user: %v\", err)"),
				func(f *finding.Finding) {
					f.Side = finding.Left
					f.Suggestion = "\t\tlog.Printf(\"get user %s: %v\", id, err)"
				}),
			want: then(ok(finding.Left, 0, 14, "exact; suggestion moved to the body: a suggestion cannot replace deleted lines"),
				suggestedBody("\t\tlog.Printf(\"get user %s: %v\", id, err)")),
		},
		{
			name: "no-op suggestion is dropped",
			give: with(base(handler, 12, "\tif id == \"\" {"), func(f *finding.Finding) { f.Suggestion = "\tif id == \"\" {\n" }),
			want: then(ok(finding.Right, 0, 12, "exact; suggestion dropped: it does not change the lines"),
				func(f *finding.Finding) { f.Suggestion = "" }),
		},
		{
			name: "suggestion equal to a whitespace-mangled quote is a no-op too",
			give: with(base(handler, 12, "  if id == \"\" {"), func(f *finding.Finding) { f.Suggestion = "  if id == \"\" {" }),
			want: then(ok(finding.Right, 0, 12, "whitespace-insensitive; suggestion dropped: it does not change the lines"),
				func(f *finding.Finding) { f.Suggestion = "" }),
		},
		{
			name: "suggestion for a substring match moves to the body",
			give: with(base(handler, 16, "s.store.Get(r.Context(), id)"), func(f *finding.Finding) { f.Suggestion = "s.store.Get(ctx, id)" }),
			want: then(ok(finding.Right, 0, 16, "substring; suggestion moved to the body: the quote matched only part of a line"),
				suggestedBody("s.store.Get(ctx, id)")),
		},
		{
			name: "suggestion whose quote covers other lines than the comment moves to the body",
			give: with(base(handler, 11, "-\tid := r.URL.Query().Get(\"id\")\n+\tid := r.URL.Query().Get(\"user_id\")"),
				func(f *finding.Finding) { f.Suggestion = "\tid := r.PathValue(\"id\")" }),
			want: then(ok(finding.Right, 0, 11, "exact; diff markers stripped; suggestion moved to the body: the quote does not cover the same lines as the comment"),
				suggestedBody("\tid := r.PathValue(\"id\")")),
		},
		{
			name: "suggestion without a quote moves to the body",
			give: with(base(handler, 17, ""), func(f *finding.Finding) { f.Suggestion = "\tif err != nil && !errors.Is(err, ErrNotFound) {" }),
			want: then(ok(finding.Right, 0, 17, "hint line; suggestion moved to the body: no quote says which lines it replaces"),
				suggestedBody("\tif err != nil && !errors.Is(err, ErrNotFound) {")),
		},
		{
			name: "suggestion copied with + markers is cleaned",
			give: with(base(handler, 12, "+\tif id == \"\" {"), func(f *finding.Finding) { f.Suggestion = "+\tif id == \"\" || len(id) > 64 {" }),
			want: then(ok(finding.Right, 0, 12, "exact; diff markers stripped; diff markers stripped from the suggestion"),
				func(f *finding.Finding) { f.Suggestion = "\tif id == \"\" || len(id) > 64 {" }),
		},
		{
			name: "suggestion containing a fence gets a longer fence",
			give: with(base(handler, 14, "\t\tlog.Printf(\"get user: %v\", err)"),
				func(f *finding.Finding) { f.Side = finding.Left; f.Suggestion = "```" }),
			want: then(ok(finding.Left, 0, 14, "exact; suggestion moved to the body: a suggestion cannot replace deleted lines"),
				func(f *finding.Finding) { f.Body = "b\n\nSuggested change:\n\n````\n```\n````"; f.Suggestion = "" }),
		},
		{
			name: "a filtered finding is anchored but stays filtered",
			give: with(base(handler, 12, "\tif id == \"\" {"), func(f *finding.Finding) { f.Status = finding.Filtered; f.FilterReason = "not new in this PR" }),
			want: then(ok(finding.Right, 0, 12, "exact"), func(f *finding.Finding) { f.Status = finding.Filtered }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.give
			want.Lenses = append([]string(nil), tt.give.Lenses...)
			tt.want(&want)

			got, st := Anchor(fixture(), []finding.Finding{tt.give})
			if diff := cmp.Diff([]finding.Finding{want}, got); diff != "" {
				t.Errorf("Anchor() mismatch (-want +got):\n%s", diff)
			}
			// The fixture is small; large files are searched through maps instead.
			indexed, _ := anchorAll(fixture(), []finding.Finding{tt.give}, 0)
			if diff := cmp.Diff(got, indexed); diff != "" {
				t.Errorf("indexed search differs (-scan +indexed):\n%s", diff)
			}
			wantStats := Stats{In: 1, Anchored: 1}
			if !want.Anchored {
				wantStats = Stats{In: 1, OtherNotes: 1}
			}
			if diff := cmp.Diff(wantStats, st); diff != "" {
				t.Errorf("Stats mismatch (-want +got):\n%s", diff)
			}
			checkInvariants(t, fixture(), []finding.Finding{tt.give}, got)
		})
	}
}

func TestAnchorKeepsOrderAndCount(t *testing.T) {
	t.Parallel()

	in := []finding.Finding{
		base("nowhere.go", 1, "x"),
		base(handler, 12, "\tif id == \"\" {"),
		base(handler, 0, "not there at all"),
		base("pkg/new.go", 2, "var limit = 100"),
	}
	got, st := Anchor(fixture(), in)
	if diff := cmp.Diff(Stats{In: 4, Anchored: 2, OtherNotes: 2}, st); diff != "" {
		t.Errorf("Stats mismatch (-want +got):\n%s", diff)
	}
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"nowhere.go", handler, handler, "pkg/new.go"}, paths); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
	if in[1].Anchored || in[1].Status != "" {
		t.Errorf("Anchor modified its input: %+v", in[1])
	}
}

func TestAnchorEmpty(t *testing.T) {
	t.Parallel()

	got, st := Anchor(nil, nil)
	if len(got) != 0 || st != (Stats{}) {
		t.Errorf("Anchor(nil, nil) = %v, %+v", got, st)
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()

	tests := []struct{ give, want string }{
		{"", ""},
		{"a", "a"},
		{"a b", "a b"},
		{"\t\tif x {", "if x {"},
		{"a  b", "a b"},
		{"a\tb", "a b"},
		{"a b ", "a b"},
		{"  a \t b  ", "a b"},
		{"a\u00a0b", "a b"},
		{"héllo wörld", "héllo wörld"},
	}
	for _, tt := range tests {
		if got := normalize(tt.give); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// checkInvariants is what every output must satisfy, whatever the input: nothing dropped or
// reordered, and an anchored finding lies on lines of one hunk on its side.
func checkInvariants(t *testing.T, files []diff.File, in, out []finding.Finding) {
	t.Helper()
	if len(out) != len(in) {
		t.Fatalf("len(out) = %d, want %d", len(out), len(in))
	}
	for i, f := range out {
		if f.Anchored != (f.Status == finding.Reported || (in[i].Status == finding.Filtered && f.Status == finding.Filtered)) {
			t.Errorf("finding %d: Anchored=%v with Status %q", i, f.Anchored, f.Status)
		}
		if f.AnchorNote == "" {
			t.Errorf("finding %d: no AnchorNote", i)
		}
		if !f.Anchored {
			continue
		}
		if f.Side != finding.Left && f.Side != finding.Right {
			t.Errorf("finding %d: side %q", i, f.Side)
		}
		from := f.StartLine
		if from == 0 {
			from = f.Line
		} else if from >= f.Line {
			t.Errorf("finding %d: StartLine %d not before Line %d", i, f.StartLine, f.Line)
		}
		if !inOneHunk(files, f.Path, f.Side, from, f.Line) {
			t.Errorf("finding %d: %s %s %d-%d is not inside one hunk", i, f.Path, f.Side, from, f.Line)
		}
		if f.Suggestion != "" && f.Side == finding.Left {
			t.Errorf("finding %d: suggestion on the LEFT side", i)
		}
	}
}

// inOneHunk answers from the diff itself, independently of the package's index.
func inOneHunk(files []diff.File, path string, side finding.Side, from, to int) bool {
	for _, file := range files {
		if file.Path() != path {
			continue
		}
		for _, h := range file.Hunks {
			seen := map[int]bool{}
			for _, l := range h.Lines {
				switch {
				case side == finding.Right && l.Op != diff.Delete:
					seen[l.New] = true
				case side == finding.Left && l.Op != diff.Add:
					seen[l.Old] = true
				}
			}
			all := true
			for n := from; n <= to; n++ {
				all = all && seen[n]
			}
			if all {
				return true
			}
		}
	}
	return false
}

func FuzzAnchor(f *testing.F) {
	f.Add(handler, "\tif id == \"\" {", 12, 0, false, "")
	f.Add(handler, "\t\treturn", 49, 0, false, "\t\treturn nil")
	f.Add(handler, "-\tid := r.URL.Query().Get(\"id\")\n+\tid := r.URL.Query().Get(\"user_id\")", 11, 0, false, "x")
	f.Add(handler, "      12 | +\tif id == \"\" {", 12, 0, false, "")
	f.Add(handler, "\t}\nfunc (s *Server) list(w http.ResponseWriter, r *http.Request) {", 20, 19, false, "")
	f.Add("b/pkg/old.go", "var limit = 100\n", 2, 1, true, "var limit = 1000")
	f.Add("legacy/gone.go", "", 0, 0, true, "")
	f.Add(handler, "", 14, 12, false, "y")
	f.Add(handler, "err.Error(), http.StatusInternalServerError", -3, 99999, false, "")
	files := fixture()
	f.Fuzz(func(t *testing.T, path, quote string, line, start int, left bool, suggestion string) {
		g := base(path, line, quote)
		g.StartLine = start
		g.Suggestion = suggestion
		if left {
			g.Side = finding.Left
		}
		in := []finding.Finding{g, base(handler, 12, "\tif id == \"\" {")}
		out, st := Anchor(files, in)
		checkInvariants(t, files, in, out)
		if indexed, _ := anchorAll(files, in, 0); !cmp.Equal(out, indexed) {
			t.Errorf("indexed search differs (-scan +indexed):\n%s", cmp.Diff(out, indexed))
		}
		if st.In != 2 || st.Anchored+st.OtherNotes != 2 || !out[1].Anchored {
			t.Errorf("stats %+v, second finding %+v", st, out[1])
		}
		if out[0].Anchored && out[0].Suggestion != "" && strings.Contains(out[0].AnchorNote, howSubstring) {
			t.Errorf("a suggestion survived a substring match: %+v", out[0])
		}
	})
}
