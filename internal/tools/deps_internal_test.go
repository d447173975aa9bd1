package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscapeModule(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"github.com/BurntSushi/toml": "github.com/!burnt!sushi/toml",
		"github.com/Azure/azure-sdk": "github.com/!azure/azure-sdk",
		"golang.org/x/sync":          "golang.org/x/sync",
		"v1.0.0-RC1":                 "v1.0.0-!r!c1",
	} {
		if got := escapeModule(in); got != want {
			t.Errorf("escapeModule(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseGoMod(t *testing.T) {
	t.Parallel()
	got, err := parseGoMod([]byte(`module example.com/app // the app

go 1.22

require example.com/a v1.0.0
require (
	example.com/b v1.2.3 // indirect
	"example.com/c" v0.0.0-20240101000000-abcdefabcdef
)
replace example.com/a v1.0.0 => example.com/a2 v1.0.1
replace (
	example.com/b => ../b
	example.com/c => example.com/c2 v0.1.0
)
exclude example.com/d v1.0.0
`))
	if err != nil {
		t.Fatal(err)
	}
	want := goMod{
		require: map[string]string{"example.com/a": "v1.0.0", "example.com/b": "v1.2.3", "example.com/c": "v0.0.0-20240101000000-abcdefabcdef"},
		replace: []replaceDirective{
			{oldPath: "example.com/a", oldVersion: "v1.0.0", newPath: "example.com/a2", newVersion: "v1.0.1"},
			{oldPath: "example.com/b", newPath: "../b"},
			{oldPath: "example.com/c", newPath: "example.com/c2", newVersion: "v0.1.0"},
		},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(goMod{}, replaceDirective{})); d != "" {
		t.Errorf("parseGoMod (-want +got):\n%s", d)
	}
	for _, bad := range []string{"require example.com/a\n", "replace example.com/a\n", "require \"example.com/a v1\n"} {
		if _, err := parseGoMod([]byte(bad)); err == nil {
			t.Errorf("parseGoMod(%q) = nil error, want one", bad)
		}
	}
}
