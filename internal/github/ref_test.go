package github_test

import (
	"strings"
	"testing"

	"github.com/council-dev/council/internal/github"
)

func TestParsePRRef(t *testing.T) {
	t.Parallel()
	type ref struct {
		Owner, Repo string
		N           int
	}
	tests := []struct {
		in      string
		want    ref
		wantErr string
	}{
		{in: "acme/widget#123", want: ref{"acme", "widget", 123}},
		{in: "  acme/widget#1  ", want: ref{"acme", "widget", 1}},
		{in: "https://github.com/acme/widget/pull/123", want: ref{"acme", "widget", 123}},
		{in: "https://github.com/acme/widget/pull/123/files", want: ref{"acme", "widget", 123}},
		{in: "https://github.com/acme/widget/pull/123#discussion_r99", want: ref{"acme", "widget", 123}},
		{in: "https://github.com/acme/widget/pull/123?w=1", want: ref{"acme", "widget", 123}},
		{in: "https://ghe.example.com/team-a/my.repo_x/pull/9", want: ref{"team-a", "my.repo_x", 9}},
		{in: "http://localhost:8080/acme/widget/pull/9", want: ref{"acme", "widget", 9}},
		{in: "acme/widget/pull/42", want: ref{"acme", "widget", 42}},
		{in: "github.com/acme/widget/pull/42", want: ref{"acme", "widget", 42}},
		{in: "alice_corp/widget#5", want: ref{"alice_corp", "widget", 5}},

		{in: "", wantErr: "empty"},
		{in: "acme/widget", wantErr: "unrecognised form"},
		{in: "acme#12", wantErr: "unrecognised form"},
		{in: "acme/widget#", wantErr: `"" is not a pull request number`},
		{in: "acme/widget#abc", wantErr: "not a pull request number"},
		{in: "acme/widget#0", wantErr: "not a pull request number"},
		{in: "acme/widget#-3", wantErr: "not a pull request number"},
		{in: "acme/widget#+3", wantErr: "not a pull request number"},
		{in: "acme/widget#007", wantErr: "not a pull request number"},
		{in: "https://github.com/acme/widget/issues/12", wantErr: "not a pull request's"},
		{in: "https://github.com/acme", wantErr: "not a pull request's"},
		{in: "ftp://github.com/acme/widget/pull/1", wantErr: "not an http(s) URL"},
		{in: "acme/../pull/1", wantErr: "not a GitHub repository name"},
		{in: "-acme/widget#1", wantErr: "not a GitHub user or organisation name"},
		{in: "acme/wid get#1", wantErr: "not a GitHub repository name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			o, r, n, err := github.ParsePRRef(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePRRef(%q) = %s/%s#%d, %v; want an error with %q", tt.in, o, r, n, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "want owner/repo#123") {
					t.Errorf("err = %q, want the accepted forms", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := (ref{o, r, n}); got != tt.want {
				t.Errorf("ParsePRRef(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}
