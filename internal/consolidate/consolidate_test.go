package consolidate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/finding"
)

const (
	correctness = "correctness"
	security    = "security"
	maint       = "maintainability"
)

// fnd is an anchored, reported finding by one reviewer.
func fnd(reviewer, path string, line int, sev finding.Severity, title, body string) finding.Finding {
	return finding.Finding{
		Lenses: []string{reviewer}, Path: path, Line: line, Side: finding.Right,
		Severity: sev, Category: "bug", Title: title, Body: body, Confidence: 0.7,
		Anchored: true, Status: finding.Reported,
	}
}

func with(f finding.Finding, fn func(f *finding.Finding)) finding.Finding {
	fn(&f)
	return f
}

// ided sets the IDs a test expects: the fingerprint of each finding, as Consolidate does when
// there is no collision.
func ided(fs ...finding.Finding) []finding.Finding {
	for i := range fs {
		fs[i].ID = Fingerprint(fs[i])
	}
	return fs
}

var (
	nilUser = fnd(correctness, "api/user.go", 42, finding.High,
		"Nil dereference of user when the store returns no row",
		"`store.GetUser` returns `nil, nil` for a missing row, so `user.Name` panics on an unknown ID.")
	nilUserSec = fnd(security, "api/user.go", 42, finding.Critical,
		"Unknown user ID crashes the handler (nil user dereference)",
		"A request with an unknown ID makes `GetUser` return a nil user; reading `user.Name` panics, which is a cheap denial of service.")
	sqlInjection = fnd(security, "api/user.go", 42, finding.Critical,
		"SQL built with fmt.Sprintf from the request",
		"The query string interpolates `r.FormValue(\"sort\")`; use a whitelist of columns or a placeholder.")
	naming = fnd(maint, "api/user.go", 42, finding.Nit,
		"Rename getUsr to getUser",
		"Abbreviated names make grep harder; the rest of the package spells it out.")
)

func TestConsolidate(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name      string
		give      []finding.Finding
		opts      Options
		want      []finding.Finding
		wantStats Stats
	}{
		{
			name: "two lenses on the same line with similar text merge",
			give: []finding.Finding{nilUser, with(nilUserSec, func(f *finding.Finding) { f.Confidence = 0.9 })},
			want: ided(with(nilUser, func(f *finding.Finding) {
				f.Lenses = []string{correctness, security}
				f.Severity = finding.Critical
				f.Confidence = 0.9
			})),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name:      "same line, different issues stay apart",
			give:      []finding.Finding{nilUser, sqlInjection, naming},
			want:      ided(sqlInjection, nilUser, naming),
			wantStats: Stats{In: 3, Out: 3},
		},
		{
			name: "adjacent lines merge",
			give: []finding.Finding{nilUser, with(nilUserSec, func(f *finding.Finding) { f.Line = 45; f.StartLine = 44 })},
			// 42 and 44 are two lines apart.
			want: ided(with(nilUser, func(f *finding.Finding) {
				f.Lenses = []string{correctness, security}
				f.Severity = finding.Critical
			})),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name:      "far lines do not merge",
			give:      []finding.Finding{nilUser, with(nilUserSec, func(f *finding.Finding) { f.Line = 46; f.StartLine = 45 })},
			want:      ided(nilUser, with(nilUserSec, func(f *finding.Finding) { f.Line = 46; f.StartLine = 45 })), // 3 apart
			wantStats: Stats{In: 2, Out: 2},
		},
		{
			name: "a range that reaches the other's line merges, owned by the narrower one",
			give: []finding.Finding{
				with(nilUser, func(f *finding.Finding) { f.StartLine = 30; f.Line = 40 }),
				nilUserSec,
			},
			want: ided(with(nilUserSec, func(f *finding.Finding) {
				f.Lenses = []string{security, correctness}
				f.Confidence = max(nilUser.Confidence, nilUserSec.Confidence)
			})),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name:      "other side does not merge",
			give:      []finding.Finding{nilUser, with(nilUserSec, func(f *finding.Finding) { f.Side = finding.Left })},
			want:      ided(nilUserSec, nilUser)[:0:0],
			wantStats: Stats{In: 2, Out: 2},
		},
		{
			name: "identical quote and category merge despite different words",
			give: []finding.Finding{
				with(nilUser, func(f *finding.Finding) { f.Quote = "\tname := user.Name" }),
				with(sqlInjection, func(f *finding.Finding) { f.Quote = "  name := user.Name\n"; f.Category = "bug" }),
			},
			want: ided(with(nilUser, func(f *finding.Finding) {
				f.Quote = "\tname := user.Name"
				f.Lenses = []string{correctness, security}
				f.Severity = finding.Critical
			})),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name: "identical quote, different category stays apart",
			give: []finding.Finding{
				with(nilUser, func(f *finding.Finding) { f.Quote = "\tname := user.Name" }),
				with(sqlInjection, func(f *finding.Finding) { f.Quote = "\tname := user.Name"; f.Category = "security" }),
			},
			want: ided(
				with(sqlInjection, func(f *finding.Finding) { f.Quote = "\tname := user.Name"; f.Category = "security" }),
				with(nilUser, func(f *finding.Finding) { f.Quote = "\tname := user.Name" }),
			),
			wantStats: Stats{In: 2, Out: 2},
		},
		{
			name: "a reviewer does not merge with itself",
			give: []finding.Finding{
				nilUser,
				with(nilUserSec, func(f *finding.Finding) { f.Lenses = []string{correctness}; f.Line = 43 }),
			},
			want:      ided(nilUser, with(nilUserSec, func(f *finding.Finding) { f.Lenses = []string{correctness}; f.Line = 43 })),
			wantStats: Stats{In: 2, Out: 2},
		},
		{
			name: "a reviewer's near-identical repeat is a duplicate",
			give: []finding.Finding{
				nilUser,
				with(nilUser, func(f *finding.Finding) { f.Title += "!"; f.Severity = finding.Medium; f.Confidence = 0.95 }),
			},
			want:      ided(with(nilUser, func(f *finding.Finding) { f.Confidence = 0.95 })),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name: "a third reviewer joins and is credited once",
			give: []finding.Finding{
				nilUser,
				nilUserSec,
				with(nilUser, func(f *finding.Finding) { f.Lenses = []string{maint} }),
				with(nilUserSec, func(f *finding.Finding) { f.Lenses = []string{security}; f.Title += "." }),
			},
			want: ided(with(nilUser, func(f *finding.Finding) {
				f.Lenses = []string{correctness, security, maint}
				f.Severity = finding.Critical
			})),
			wantStats: Stats{In: 4, Merged: 3, Out: 1},
		},
		{
			name: "a version with a committable fix owns; another's suggestion is not taken",
			give: []finding.Finding{
				nilUser,
				with(nilUserSec, func(f *finding.Finding) { f.Line = 43; f.Suggestion = "wrong range" }),
				with(nilUser, func(f *finding.Finding) {
					f.Lenses = []string{maint}
					f.Suggestion = "if user == nil {"
					f.FixPrompt = "guard"
				}),
			},
			want: ided(with(nilUserSec, func(f *finding.Finding) {
				f.Line = 43
				f.Suggestion = "wrong range"
				f.Lenses = []string{security, correctness, maint}
				f.FixPrompt = "guard"
			})),
			wantStats: Stats{In: 3, Merged: 2, Out: 1},
		},
		{
			name: "anchored and unanchored findings do not merge",
			give: []finding.Finding{
				nilUser,
				with(nilUserSec, func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote }),
			},
			want:      ided(with(nilUserSec, func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote }), nilUser),
			wantStats: Stats{In: 2, Out: 2},
		},
		{
			name: "unanchored findings merge on the lines as given",
			give: []finding.Finding{
				with(nilUser, func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote }),
				with(nilUserSec, func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote; f.Line = 40 }),
			},
			want: ided(with(nilUser, func(f *finding.Finding) {
				f.Anchored = false
				f.Status = finding.OtherNote
				f.Lenses = []string{correctness, security}
				f.Severity = finding.Critical
			})),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name: "a finding filtered earlier passes through untouched",
			give: []finding.Finding{
				nilUser,
				with(nilUserSec, func(f *finding.Finding) { f.Status = finding.Filtered; f.FilterReason = "not new in this PR" }),
			},
			want: ided(
				with(nilUserSec, func(f *finding.Finding) { f.Status = finding.Filtered; f.FilterReason = "not new in this PR" }),
				nilUser,
			),
			wantStats: Stats{In: 2, Out: 2},
		},
		{
			name: "severity floor",
			give: []finding.Finding{nilUser, naming},
			opts: Options{SeverityFloor: finding.Low},
			want: ided(nilUser, with(naming, func(f *finding.Finding) {
				f.Status = finding.Filtered
				f.FilterReason = "below severity floor low"
			})),
			wantStats: Stats{In: 2, Filtered: 1, Out: 2},
		},
		{
			name: "severity floor applies after merging",
			give: []finding.Finding{
				with(nilUser, func(f *finding.Finding) { f.Severity = finding.Nit }),
				nilUserSec,
			},
			opts: Options{SeverityFloor: finding.High},
			want: ided(with(nilUser, func(f *finding.Finding) {
				f.Lenses = []string{correctness, security}
				f.Severity = finding.Critical
			})),
			wantStats: Stats{In: 2, Merged: 1, Out: 1},
		},
		{
			name: "minimum confidence",
			give: []finding.Finding{nilUser, with(naming, func(f *finding.Finding) { f.Confidence = 0.2 })},
			opts: Options{MinConfidence: 0.5},
			want: ided(nilUser, with(naming, func(f *finding.Finding) {
				f.Confidence = 0.2
				f.Status = finding.Filtered
				f.FilterReason = "confidence 0.2 below 0.5"
			})),
			wantStats: Stats{In: 2, Filtered: 1, Out: 2},
		},
		{
			name: "cap per reviewer filters the least severe, then least confident",
			give: []finding.Finding{
				fnd(security, "a.go", 1, finding.Low, "low one", "alpha"),
				fnd(security, "a.go", 10, finding.High, "high one", "beta"),
				with(fnd(security, "b.go", 1, finding.Medium, "medium, sure", "gamma"), func(f *finding.Finding) { f.Confidence = 0.9 }),
				with(fnd(security, "b.go", 10, finding.Medium, "medium, unsure", "delta"), func(f *finding.Finding) { f.Confidence = 0.3 }),
				fnd(correctness, "c.go", 1, finding.Nit, "another reviewer", "epsilon"),
				with(fnd(security, "c.go", 5, finding.Nit, "not inline", "zeta"), func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote }),
			},
			opts: Options{MaxPerReviewer: 2},
			want: ided(
				with(fnd(security, "a.go", 1, finding.Low, "low one", "alpha"), func(f *finding.Finding) {
					f.Status = finding.Filtered
					f.FilterReason = "over the cap of 2 comments for security"
				}),
				fnd(security, "a.go", 10, finding.High, "high one", "beta"),
				with(fnd(security, "b.go", 1, finding.Medium, "medium, sure", "gamma"), func(f *finding.Finding) { f.Confidence = 0.9 }),
				with(fnd(security, "b.go", 10, finding.Medium, "medium, unsure", "delta"), func(f *finding.Finding) {
					f.Confidence = 0.3
					f.Status = finding.Filtered
					f.FilterReason = "over the cap of 2 comments for security"
				}),
				fnd(correctness, "c.go", 1, finding.Nit, "another reviewer", "epsilon"),
				with(fnd(security, "c.go", 5, finding.Nit, "not inline", "zeta"), func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote }),
			),
			wantStats: Stats{In: 6, Filtered: 2, Out: 6},
		},
		{
			name: "floor first, then the cap counts what is left",
			give: []finding.Finding{
				fnd(security, "a.go", 1, finding.Nit, "nit one", "alpha"),
				fnd(security, "a.go", 10, finding.High, "high one", "beta"),
				fnd(security, "a.go", 20, finding.High, "high two", "gamma"),
			},
			opts: Options{MaxPerReviewer: 2, SeverityFloor: finding.Low},
			want: ided(
				with(fnd(security, "a.go", 1, finding.Nit, "nit one", "alpha"), func(f *finding.Finding) {
					f.Status = finding.Filtered
					f.FilterReason = "below severity floor low"
				}),
				fnd(security, "a.go", 10, finding.High, "high one", "beta"),
				fnd(security, "a.go", 20, finding.High, "high two", "gamma"),
			),
			wantStats: Stats{In: 3, Filtered: 1, Out: 3},
		},
		{
			name: "order: path, line, severity, owner, title",
			give: []finding.Finding{
				fnd(security, "b.go", 1, finding.Low, "z", "one"),
				fnd(security, "a.go", 9, finding.Low, "y", "two"),
				fnd(security, "a.go", 3, finding.Low, "x", "three"),
				fnd(security, "a.go", 3, finding.High, "w", "four"),
				fnd(correctness, "a.go", 3, finding.Low, "v", "five"),
				fnd(correctness, "a.go", 3, finding.Low, "u", "six"),
			},
			want: ided(
				fnd(security, "a.go", 3, finding.High, "w", "four"),
				fnd(correctness, "a.go", 3, finding.Low, "u", "six"),
				fnd(correctness, "a.go", 3, finding.Low, "v", "five"),
				fnd(security, "a.go", 3, finding.Low, "x", "three"),
				fnd(security, "a.go", 9, finding.Low, "y", "two"),
				fnd(security, "b.go", 1, finding.Low, "z", "one"),
			),
			wantStats: Stats{In: 6, Out: 6},
		},
		{
			name:      "empty",
			give:      nil,
			want:      []finding.Finding{},
			wantStats: Stats{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.want
			if len(want) == 0 && len(tt.give) > 0 {
				// Cases that only keep every input apart, in output order.
				want, _ = Consolidate(tt.give, Options{})
				if len(want) != len(tt.give) {
					t.Fatalf("expected nothing merged, got %d of %d", len(want), len(tt.give))
				}
			}
			got, st := Consolidate(tt.give, tt.opts)
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(finding.Finding{}, "Versions")); diff != "" {
				t.Errorf("Consolidate() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStats, st); diff != "" {
				t.Errorf("Stats mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConsolidateDoesNotModifyInput(t *testing.T) {
	t.Parallel()

	in := []finding.Finding{nilUser, nilUserSec}
	Consolidate(in, Options{MaxPerReviewer: 1})
	if diff := cmp.Diff([]finding.Finding{nilUser, nilUserSec}, in); diff != "" {
		t.Errorf("input modified (-want +got):\n%s", diff)
	}
	if len(in[0].Lenses) != 1 {
		t.Errorf("owner's Lenses modified: %v", in[0].Lenses)
	}
}

func TestConsolidateIsDeterministic(t *testing.T) {
	t.Parallel()

	in := benchFindings()
	first, _ := Consolidate(in, Options{MaxPerReviewer: 5, SeverityFloor: finding.Low})
	for range 3 {
		again, _ := Consolidate(in, Options{MaxPerReviewer: 5, SeverityFloor: finding.Low})
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("second run differs (-first +again):\n%s", diff)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()

	quoted := with(nilUser, func(f *finding.Finding) { f.Quote = "\tname := user.Name\n" })
	tests := []struct {
		name  string
		a, b  finding.Finding
		equal bool
	}{
		{"only line numbers change", quoted, with(quoted, func(f *finding.Finding) { f.Line = 57; f.StartLine = 55 }), true},
		{"prose and severity change", quoted, with(quoted, func(f *finding.Finding) {
			f.Title, f.Body, f.Severity, f.Confidence = "other words", "other body", finding.Low, 0.1
		}), true},
		{"only whitespace of the quote changes", quoted, with(quoted, func(f *finding.Finding) { f.Quote = "    name  :=  user.Name" }), true},
		{"a credited lens is added", quoted, with(quoted, func(f *finding.Finding) { f.Lenses = []string{correctness, security} }), true},
		{"empty side is RIGHT", quoted, with(quoted, func(f *finding.Finding) { f.Side = "" }), true},
		{"quote changes", quoted, with(quoted, func(f *finding.Finding) { f.Quote = "\tname := user.FullName" }), false},
		{"side changes", quoted, with(quoted, func(f *finding.Finding) { f.Side = finding.Left }), false},
		{"path changes", quoted, with(quoted, func(f *finding.Finding) { f.Path = "api/users.go" }), false},
		{"category changes", quoted, with(quoted, func(f *finding.Finding) { f.Category = "security" }), false},
		{"owner changes", quoted, with(quoted, func(f *finding.Finding) { f.Lenses = []string{security} }), false},
		{"no quote: title case does not matter", nilUser, with(nilUser, func(f *finding.Finding) {
			f.Title = "NIL DEREFERENCE of user when the store returns no row"
			f.Line = 1
		}), true},
		{"no quote: title matters", nilUser, with(nilUser, func(f *finding.Finding) { f.Title = "Something else" }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := Fingerprint(tt.a), Fingerprint(tt.b)
			if (a == b) != tt.equal {
				t.Errorf("Fingerprint equal = %v (%s, %s), want %v", a == b, a, b, tt.equal)
			}
			if len(a) != 16 {
				t.Errorf("Fingerprint = %q, want 16 hex characters", a)
			}
		})
	}
}

func TestFingerprintIsPinned(t *testing.T) {
	t.Parallel()

	// Published comments carry this value; changing it re-posts every finding on every PR.
	f := finding.Finding{Lenses: []string{"security"}, Path: "a.go", Side: finding.Right, Quote: "x := 1", Category: "bug"}
	if got, want := Fingerprint(f), "97914ab220ee6bb2"; got != want {
		t.Errorf("Fingerprint() = %s, want %s", got, want)
	}
}

func TestIDCollisionsGetSuffixes(t *testing.T) {
	t.Parallel()

	// One reviewer, the same quote on three distant lines: three findings, one fingerprint.
	mk := func(line int, title string) finding.Finding {
		return with(fnd(security, "a.go", line, finding.High, title, title), func(f *finding.Finding) { f.Quote = "\treturn nil" })
	}
	got, _ := Consolidate([]finding.Finding{mk(90, "gamma"), mk(10, "alpha"), mk(50, "beta")}, Options{})
	base := Fingerprint(mk(0, ""))
	var ids, titles []string
	for _, f := range got {
		ids = append(ids, f.ID)
		titles = append(titles, f.Title)
	}
	if diff := cmp.Diff([]string{base, base + "-2", base + "-3"}, ids); diff != "" {
		t.Errorf("IDs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"alpha", "beta", "gamma"}, titles); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give string
		want []string
	}{
		{"userID", []string{"id", "user"}},
		{"user_id", []string{"id", "user"}},
		{"parseHTTPRequest(ctx)", []string{"ctx", "http", "parse", "request"}},
		{"The map is not guarded by the mutex; it's racy", []string{"guarded", "map", "mutex", "racy"}},
		{"line 42: int64 overflow", []string{"int64", "overflow"}},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tokens(tt.give)); diff != "" {
			t.Errorf("tokens(%q) mismatch (-want +got):\n%s", tt.give, diff)
		}
	}
}

// benchFindings is a review at the size consolidation must handle quickly: 1,000 findings
// from four reviewers over 500 files, with duplicates across reviewers.
func benchFindings() []finding.Finding {
	reviewers := []string{correctness, security, maint, "persona-alice"}
	topics := []string{
		"nil map write in cacheStore when the config is empty",
		"error from db.Exec is ignored so failed writes look successful",
		"the loop variable is captured by the goroutine closure",
		"SQL query built with fmt.Sprintf from request input",
		"missing test for the retry backoff path",
		"exported function parseConfig lacks a doc comment",
	}
	var fs []finding.Finding
	for ri, r := range reviewers {
		for i := range 250 {
			// A third of each reviewer's findings are at places another reviewer also saw.
			k := (i*7919 + ri*(i%3)*389) % 1000
			f := fnd(r, fmt.Sprintf("pkg/mod%02d/file%03d.go", k%23, k%500), 10+k%90, finding.Severities[k%5],
				topics[k%len(topics)], fmt.Sprintf("The value of item%d is used before the check in %s.", k%13, r))
			f.Quote = fmt.Sprintf("\titem%d := load(ctx, %d)", k%13, k)
			f.Confidence = float64(k%10) / 10
			fs = append(fs, f)
		}
	}
	return fs
}

func BenchmarkConsolidate(b *testing.B) {
	fs := benchFindings()
	b.ReportAllocs()
	for b.Loop() {
		Consolidate(fs, Options{MaxPerReviewer: 50, SeverityFloor: finding.Low, MinConfidence: 0.5})
	}
}

func TestConsolidateKeepsEveryVersion(t *testing.T) {
	t.Parallel()

	narrow := with(nilUserSec, func(f *finding.Finding) { f.StartLine, f.Line = 42, 42 })
	got, _ := Consolidate([]finding.Finding{nilUser, with(nilUserSec, func(f *finding.Finding) { f.StartLine, f.Line = 41, 43 }), narrow}, Options{})
	if len(got) != 2 {
		t.Fatalf("got %d findings, want the two security versions merged into one and nilUser: %+v", len(got), got)
	}
	for _, f := range got {
		if len(f.Lenses) > 1 && len(f.Versions) != len(f.Lenses) {
			t.Errorf("%s: %d versions for lenses %v", f.Title, len(f.Versions), f.Lenses)
		}
		if len(f.Lenses) == 1 && f.Versions != nil {
			t.Errorf("%s: a finding nobody else raised has versions: %+v", f.Title, f.Versions)
		}
		if len(f.Versions) > 0 && f.Versions[0].Title != f.Title {
			t.Errorf("the owner's version is not first: %q, want %q", f.Versions[0].Title, f.Title)
		}
	}
}
