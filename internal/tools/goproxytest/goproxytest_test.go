package goproxytest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/tools/goproxytest"
)

// TestProxyRules: the proxy answers the GOPROXY protocol's requests
// (https://go.dev/ref/mod#goproxy-protocol) and refuses what a client must not send. The go
// command itself downloads from it in internal/tools' tests.
func TestProxyRules(t *testing.T) {
	t.Parallel()
	s := goproxytest.New(t, goproxytest.Module{Path: "example.com/Upper/m", Version: "v1.2.3", Files: map[string]string{"m.go": "package m\n"}})
	tests := []struct {
		method, path string
		status       int
		body         string // in the answer
	}{
		{"GET", "/example.com/!upper/m/@v/list", 200, "v1.2.3"},
		{"GET", "/example.com/!upper/m/@v/v1.2.3.info", 200, `"Version":"v1.2.3"`},
		{"GET", "/example.com/!upper/m/@v/v1.2.3.mod", 200, "module example.com/Upper/m"},
		{"GET", "/example.com/!upper/m/@v/v1.2.3.zip", 200, "example.com/Upper/m@v1.2.3/m.go"},
		{"GET", "/example.com/!upper/m/@v/v9.9.9.info", 404, "not found"},
		{"GET", "/example.com/Upper/m/@v/v1.2.3.info", 400, "bad module path"}, // not case-encoded
		{"POST", "/example.com/!upper/m/@v/v1.2.3.info", 405, "only GET"},
		{"GET", "/sumdb/sum.test/supported", 404, ""}, // the go command then asks the database directly
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, s.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.body) {
			t.Errorf("%s %s: %d %q, want %d and %q", tt.method, tt.path, resp.StatusCode, body, tt.status, tt.body)
		}
	}
	if got := s.Requests(".info"); got != 2 {
		t.Errorf("Requests(.info) = %d, want the 2 GETs of a well-formed path", got)
	}
}
