package provider

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSDKImports guards the module's rule: each SDK is imported by exactly one package, so that
// nothing else (this package, the fakes, the tests of other packages) compiles it.
func TestSDKImports(t *testing.T) {
	t.Parallel()
	owners := map[string]string{
		"github.com/anthropics/anthropic-sdk-go": "internal/provider/anthropic",
		"github.com/openai/openai-go":            "internal/provider/openai",
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from the package directory: %v", err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return nil // another package's work in progress; the compiler will say so
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for sdk, owner := range owners {
				if strings.HasPrefix(p, sdk) && rel != owner {
					t.Errorf("%s imports %s: only %s may", filepath.ToSlash(path[len(root)+1:]), p, owner)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
