package sarif

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

// The subset schema in testdata is our reading of the specification; these tests hold the
// output to the OASIS schema itself. It is third-party text, so no copy is kept here: gosec's
// module ships the file in its testdata, and the Go module cache (or proxy) serves it.
const (
	officialModule = "github.com/securego/gosec/v2@v2.30.0"
	officialPath   = "report/sarif/testdata/sarif-schema-2.1.0.json"
	officialID     = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// officialSHA256 pins the file, so that nothing else by that name can pass for it.
	officialSHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
)

// officialSchema is compiled once for all the tests that need it; `go mod download` costs a
// process start even when the module is cached.
var officialSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	dir, err := moduleDir(officialModule)
	if err != nil {
		return nil, err
	}
	return compilePinned(filepath.Join(dir, officialPath))
})

func compileOfficialSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := officialSchema()
	if err != nil {
		t.Fatalf("official SARIF schema: %v", err)
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

// compilePinned compiles the official schema after checking it is the pinned file, under its
// own draft ($schema: draft-04), with format assertions on. Every resource must already be
// added: the schema refers only to itself, and nothing is ever fetched.
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
	obj, _ := doc.(map[string]any)
	if obj["id"] != officialID || obj["$schema"] != "http://json-schema.org/draft-04/schema#" {
		return nil, fmt.Errorf("%s: id %v, $schema %v; want the OASIS draft-04 schema %s", path, obj["id"], obj["$schema"], officialID)
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
// instead of reaching the network.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("load %s: the official schema must refer only to itself", url)
}

func TestWriteValidatesOfficialSchema(t *testing.T) {
	t.Parallel()
	sch := compileOfficialSchema(t)
	tests := []struct {
		name string
		r    report.Report
		o    Options
	}{
		{"full", full(), opts},
		{"empty", empty(), opts},
		{"no options", full(), Options{}},
		{"zero report", report.Report{}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(sch, write(t, tt.r, tt.o)); err != nil {
				t.Errorf("output does not validate against the official schema: %v", err)
			}
		})
	}
}

// TestOfficialSchemaRejects shows the official schema is not a rubber stamp either: it runs
// the subset's mutations and expects the verdict their officialRejects column gives.
func TestOfficialSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := compileOfficialSchema(t)
	for _, tt := range mutations() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal(write(t, full(), opts), &doc); err != nil {
				t.Fatal(err)
			}
			tt.mutate(doc)
			err := validate(sch, mustMarshal(t, doc))
			switch {
			case tt.officialRejects && err == nil:
				t.Errorf("official schema accepted a log with %s", tt.name)
			case !tt.officialRejects && err != nil:
				// Only council's subset holds this rule; if the official schema holds it too,
				// the table should say so.
				t.Errorf("official schema rejected a log with %s, which the table says only the subset rejects: %v", tt.name, err)
			}
		})
	}
}
