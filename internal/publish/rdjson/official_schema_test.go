package rdjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/report"
)

// The subset schema in testdata is our reading of reviewdog's proto; these tests hold the
// output to the JSON schema reviewdog generates from that proto and publishes in its module.
// It is third-party text, so no copy is kept here: the Go module cache (or proxy) serves it.
const (
	officialPath = "proto/rdf/jsonschema/DiagnosticResult.json"
	// officialSHA256 pins the file, so that nothing else by that name can pass for it.
	officialSHA256 = "89b09042bc3f833f76c502ab793ee4fceba4bb75919498563b17f2be68569970"
)

// officialSchema is compiled once for all the tests that need it; `go mod download` costs a
// process start even when the module is cached.
var officialSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	dir, err := moduleDir(reviewdogModule + "@" + reviewdogVersion)
	if err != nil {
		return nil, err
	}
	return compilePinned(filepath.Join(dir, officialPath))
})

func compileOfficialSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := officialSchema()
	if err != nil {
		t.Fatalf("reviewdog's rdjson schema: %v", err)
	}
	return sch
}

// moduleDir returns the directory of module@version in the module cache. `go mod download`
// reads the cache offline and fetches from the module proxy otherwise.
func moduleDir(module string) (string, error) {
	hint := fmt.Sprintf("run `go mod download %s`", module)
	// go test puts its own GOROOT/bin first in PATH, so this is the go that runs the tests.
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("find the go command: %w; %s", err, hint)
	}
	tmp, err := os.MkdirTemp("", "council-moddir-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(gobin, "mod", "download", "-json", module)
	// Outside this module: the module is not in council's build list, and go.mod and go.sum
	// must not change.
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	// On failure too the JSON, when there is any, says why.
	_ = json.Unmarshal(out, &m)
	if err == nil && m.Dir == "" {
		err = errors.New("no Dir in its output")
	}
	if err != nil {
		why := strings.TrimSpace(m.Error + "\n" + stderr.String())
		return "", fmt.Errorf("go mod download %s: %w: %s; %s", module, err, why, hint)
	}
	return m.Dir, nil
}

// compilePinned compiles reviewdog's schema after checking it is the pinned file, under its
// own draft ($schema: draft-04), with format assertions on. DiagnosticResult.json carries its
// own copies of the definitions its siblings hold and refers only to itself, so the compiler
// is given that one file and nothing is ever fetched.
func compilePinned(path string) (*jsonschema.Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != officialSHA256 {
		return nil, fmt.Errorf("%s has SHA-256 %x, want %s", path, sum, officialSHA256)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	// The generated schema has no id; its root is a reference to the message it describes.
	obj, _ := doc.(map[string]any)
	if obj["$ref"] != "#/definitions/DiagnosticResult" || obj["$schema"] != "http://json-schema.org/draft-04/schema#" {
		return nil, fmt.Errorf("%s: $ref %v, $schema %v; want reviewdog's draft-04 DiagnosticResult schema", path, obj["$ref"], obj["$schema"])
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(offlineLoader{})
	if err := c.AddResource(path, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(path)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", path, err)
	}
	// The library's default draft is the latest; 4 shows it read the schema's own $schema.
	if sch.DraftVersion != 4 {
		return nil, fmt.Errorf("%s compiled as draft %d, want 4", path, sch.DraftVersion)
	}
	return sch, nil
}

// offlineLoader refuses every URL, so that a reference outside the schema fails the test
// instead of reaching the network or an unpinned file.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("load %s: reviewdog's schema must refer only to itself", url)
}

func TestWriteValidatesOfficialSchema(t *testing.T) {
	t.Parallel()
	sch := compileOfficialSchema(t)
	tests := []struct {
		name string
		r    report.Report
	}{
		{"full", full()},
		{"empty", empty()},
		{"zero report", report.Report{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(sch, write(t, tt.r)); err != nil {
				t.Errorf("output does not validate against reviewdog's schema: %v", err)
			}
		})
	}
}

// TestOfficialSchemaRejects shows reviewdog's schema is not a rubber stamp either: it runs the
// subset's mutations and expects the verdict their officialRejects column gives.
func TestOfficialSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := compileOfficialSchema(t)
	for _, tt := range mutations() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal(write(t, full()), &doc); err != nil {
				t.Fatal(err)
			}
			tt.mutate(doc)
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			err = validate(sch, b)
			switch {
			case tt.officialRejects && err == nil:
				t.Errorf("reviewdog's schema accepted a document with %s", tt.name)
			case !tt.officialRejects && err != nil:
				// Only council's subset holds this rule; if reviewdog's schema holds it too,
				// the table should say so.
				t.Errorf("reviewdog's schema rejected a document with %s, which the table says only the subset rejects: %v", tt.name, err)
			}
		})
	}
}
