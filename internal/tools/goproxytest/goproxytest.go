// Package goproxytest is a loopback Go module proxy and checksum database for tests: the go
// command downloads from them as it would from proxy.golang.org and sum.golang.org, offline.
//
// The proxy speaks the GOPROXY protocol (https://go.dev/ref/mod#goproxy-protocol): GET
// $base/$module/@v/list, $base/$module/@v/$version.info, .mod and .zip, with module paths and
// versions case-encoded ("!" and the lower-case letter for an upper-case one); what it does
// not have is a 404, which a GOPROXY list falls back from, and so is
// $base/sumdb/$name/supported, so that the go command asks the checksum database directly.
// The checksum database is golang.org/x/mod/sumdb's server over an in-memory log, signed with
// a key made for the test (https://go.dev/ref/mod#checksum-database); GOSUMDB names it with
// its key and URL.
package goproxytest

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/sumdb/note"
	modzip "golang.org/x/mod/zip"
)

// Module is one module version.
type Module struct {
	Path, Version string
	// Files are the module's files by their path in it; go.mod is "module Path" unless given.
	Files map[string]string
	// Served, when set, is what the proxy serves instead of Files: a proxy that lies. The
	// checksum database keeps Files' checksums.
	Served map[string]string
}

// GoSum is the go.sum lines of m's Files: the h1 checksums of its zip and of its go.mod.
func (m Module) GoSum() string {
	zipSum, modSum, err := m.sums(m.Files)
	if err != nil {
		panic(fmt.Sprintf("goproxytest: %s@%s: %v", m.Path, m.Version, err))
	}
	return fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", m.Path, m.Version, zipSum, m.Path, m.Version, modSum)
}

func (m Module) goMod(files map[string]string) []byte {
	if mod, ok := files["go.mod"]; ok {
		return []byte(mod)
	}
	return []byte("module " + m.Path + "\n")
}

// zip is the module zip of files, built and checked as the go command does.
func (m Module) zip(files map[string]string) ([]byte, error) {
	list := []modzip.File{memFile{name: "go.mod", data: m.goMod(files)}}
	for name, data := range files {
		if name != "go.mod" {
			list = append(list, memFile{name: name, data: []byte(data)})
		}
	}
	var buf bytes.Buffer
	if err := modzip.Create(&buf, module.Version{Path: m.Path, Version: m.Version}, list); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (m Module) sums(files map[string]string) (zipSum, modSum string, err error) {
	z, err := m.zip(files)
	if err != nil {
		return "", "", err
	}
	if zipSum, err = hashZip(z); err != nil {
		return "", "", err
	}
	modSum, err = dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(m.goMod(files))), nil
	})
	return zipSum, modSum, err
}

// hashZip is dirhash.HashZip, which reads a file, over a zip in memory.
func hashZip(z []byte) (string, error) {
	f, err := os.CreateTemp("", "goproxytest-*.zip")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(z); err != nil {
		return "", err
	}
	return dirhash.HashZip(f.Name(), dirhash.Hash1)
}

// memFile is a module file in memory, for modzip.Create.
type memFile struct {
	name string
	data []byte
}

func (f memFile) Path() string                 { return f.name }
func (f memFile) Lstat() (fs.FileInfo, error)  { return memInfo(f), nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type memInfo memFile

func (fi memInfo) Name() string       { return path.Base(fi.name) }
func (fi memInfo) Size() int64        { return int64(len(fi.data)) }
func (fi memInfo) Mode() fs.FileMode  { return 0o644 }
func (fi memInfo) ModTime() time.Time { return time.Time{} }
func (fi memInfo) IsDir() bool        { return false }
func (fi memInfo) Sys() any           { return nil }

// Server is the proxy and the checksum database, on one loopback address.
type Server struct {
	// URL is the proxy, for GOPROXY.
	URL string
	// SumDB is the checksum database's name, key and URL, for GOSUMDB.
	SumDB string

	mods map[string]Module // by "escaped-path@escaped-version"

	mu       sync.Mutex
	requests map[string]int // by the last element of the path's kind: "list", ".info", ".mod", ".zip"
	hold     chan struct{}  // while open, .zip requests wait
}

// New starts a proxy serving mods and a checksum database that knows their Files, closed when
// the test ends.
func New(t testing.TB, mods ...Module) *Server {
	t.Helper()
	s := &Server{mods: map[string]Module{}, requests: map[string]int{}}
	for _, m := range mods {
		ep, err1 := module.EscapePath(m.Path)
		ev, err2 := module.EscapeVersion(m.Version)
		if err1 != nil || err2 != nil {
			t.Fatalf("goproxytest: bad module %s@%s", m.Path, m.Version)
		}
		s.mods[ep+"@"+ev] = m
	}
	skey, vkey, err := note.GenerateKey(rand.Reader, "sum.test")
	if err != nil {
		t.Fatal(err)
	}
	db := sumdb.NewServer(sumdb.NewTestServer(skey, func(p, v string) ([]byte, error) {
		for _, m := range mods {
			if m.Path == p && m.Version == v {
				return []byte(m.GoSum()), nil
			}
		}
		return nil, fmt.Errorf("%s@%s: %w", p, v, fs.ErrNotExist)
	}))
	mux := http.NewServeMux()
	mux.Handle("/sumdb/", http.StripPrefix("/sumdb", db))
	mux.HandleFunc("/proxy/", s.proxy)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		s.Release()
		srv.Close()
	})
	s.URL = srv.URL + "/proxy"
	s.SumDB = vkey + " " + srv.URL + "/sumdb"
	return s
}

// proxy answers the GOPROXY protocol's GET requests.
func (s *Server) proxy(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "the GOPROXY protocol has only GET requests", http.StatusMethodNotAllowed)
		return
	}
	p := strings.TrimPrefix(r.URL.Path, "/proxy/")
	escPath, file, ok := strings.Cut(p, "/@v/")
	if !ok {
		http.NotFound(w, r) // $module/@latest and $base/sumdb/... are optional
		return
	}
	// Paths are case-encoded: an upper-case letter is a client's mistake.
	if _, err := module.UnescapePath(escPath); err != nil {
		http.Error(w, "bad module path: "+err.Error(), http.StatusBadRequest)
		return
	}
	kind := path.Ext(file)
	if file == "list" {
		kind = "list"
	}
	s.mu.Lock()
	s.requests[kind]++
	hold := s.hold
	s.mu.Unlock()

	if kind == "list" {
		var versions []string
		for key, m := range s.mods {
			if strings.HasPrefix(key, escPath+"@") {
				versions = append(versions, m.Version)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Join(versions, "\n"))
		return
	}
	m, ok := s.mods[escPath+"@"+strings.TrimSuffix(file, kind)]
	if !ok {
		http.Error(w, "not found: "+p, http.StatusNotFound)
		return
	}
	files := m.Files
	if m.Served != nil {
		files = m.Served
	}
	switch kind {
	case ".info":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"Version": m.Version, "Time": time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)})
	case ".mod":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(m.goMod(files))
	case ".zip":
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		z, err := m.zip(files)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write(z)
	default:
		http.NotFound(w, r)
	}
}

// Requests is how many requests of a kind the proxy answered: "list", ".info", ".mod" or
// ".zip".
func (s *Server) Requests(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[kind]
}

// Hold makes .zip requests wait until Release (or the request's end).
func (s *Server) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil {
		s.hold = make(chan struct{})
	}
}

// Release lets the .zip requests Hold keeps waiting go on.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
}

// Env is an environment for the go command that downloads from s, and from nowhere else,
// into cache: no go env file, no private patterns, the test's PATH, a home of its own, where
// Go telemetry is off, so that no process the go command leaves behind writes there while
// the test removes it.
func (s *Server) Env(t testing.TB, cache string) []string {
	t.Helper()
	home := t.TempDir()
	mode := filepath.Join(home, ".config", "go", "telemetry", "mode")
	if err := os.MkdirAll(filepath.Dir(mode), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mode, []byte("off"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"GOPROXY=" + s.URL, "GOSUMDB=" + s.SumDB, "GOMODCACHE=" + cache,
		"GOENV=off", "GOFLAGS=", "GOPRIVATE=", "GONOPROXY=", "GONOSUMDB=", "GONOSUMCHECK=", "GOINSECURE=", "GOVCS=",
		"HOME=" + home, "XDG_CONFIG_HOME=", "GOCACHE=" + t.TempDir(), "PATH=" + os.Getenv("PATH"),
	}
}

// ModCache is an empty module cache directory, removed when the test ends although the go
// command makes what it puts there read-only.
func ModCache(t testing.TB) string {
	dir := t.TempDir()
	// Registered after TempDir's own cleanup, so run before it.
	t.Cleanup(func() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	return dir
}
