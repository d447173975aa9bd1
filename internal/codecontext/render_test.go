package codecontext

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites that file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("Render mismatch with %s (-want +got):\n%s", path, d)
	}
}

// The lock case, a deletion in another file, and a budget one token short, which leaves the
// last definition out:
// head and base snippets, numbered lines, and the list of what was left out.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	audit := "package store\n\n// audit checks every reservation.\nfunc (s *Store) audit() int {\n\tbad := 0\n" +
		"\tfor id, n := range s.reserved {\n\t\tif id == \"\" {\n\t\t\tbad++\n\t\t}\n\t\tif n < 0 {\n\t\t\tbad++\n\t\t}\n\t}\n" +
		"\treturn bad\n}\n"
	src, files := repo(map[string]string{
		"go.mod": goMod, "store/store.go": storeBase, "store/lock.go": lockGo, "store/errors.go": errorsGo,
		"store/audit.go": audit,
	}, map[string]string{
		"store/store.go": storeHead,
		"store/audit.go": strings.Replace(audit, "\t\tif n < 0 {\n\t\t\tbad++\n\t\t}\n", "", 1),
	})
	full := build(t, src, files, Options{})
	// One token short of everything: the last definition is left out.
	budget := -1
	for _, s := range full.Snippets {
		budget += tokens(s.Text)
	}
	got := build(t, src, files, Options{BudgetTokens: budget})
	if len(got.Omitted) != 1 {
		t.Fatalf("got %d omitted, want 1: %q", len(got.Omitted), got.Omitted)
	}
	golden(t, "render.golden", Render(got))
	if Render(got) != Render(build(t, src, files, Options{BudgetTokens: budget})) {
		t.Errorf("Render of the same change differs between two builds")
	}
}

func TestRenderEmpty(t *testing.T) {
	t.Parallel()
	if got := Render(Result{}); got != "" {
		t.Errorf("Render(Result{}) = %q, want empty", got)
	}
}
