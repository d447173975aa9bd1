package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/tools"
	"github.com/council-dev/council/internal/tools/goproxytest"
)

// depModule is the dependency the download tests read: its path has upper-case letters, which
// the proxy's URLs and the cache's directories case-encode.
var depModule = goproxytest.Module{Path: "example.com/Upper/dep", Version: "v1.0.0", Files: map[string]string{
	"dep.go":      "package dep\n\n// Answer is the answer.\nfunc Answer() int { return 42 }\n",
	"sub/util.go": "package sub\n",
}}

// otherDep is depModule's version with other code.
var otherDep = goproxytest.Module{Path: depModule.Path, Version: depModule.Version, Files: map[string]string{
	"dep.go": "package dep\n\nfunc Answer() int { return 41 }\n",
}}

// downloadRepo is a repository whose go.mod at head requires depModule and whose go.sum holds
// goSum.
func downloadRepo(t *testing.T, goSum string) (*source.Git, string) {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.run("init", "-q", "-b", "main")
	f.write("go.mod", "module example.com/app\n\ngo 1.22\n\nrequire "+depModule.Path+" "+depModule.Version+"\n")
	f.write("go.sum", goSum)
	f.run("add", "-A")
	f.run("commit", "-qm", "app")
	g, err := source.OpenGit(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, f.run("rev-parse", "HEAD")
}

// readDep calls read_dependency for dep.go on a new Box over the repository.
func readDep(t *testing.T, g *source.Git, head string, l tools.Limits) (string, bool, tools.Call) {
	t.Helper()
	b := tools.New(g, "", head, l)
	got, isErr := b.Call(context.Background(), tools.ReadDependency, json.RawMessage(`{"module":"example.com/Upper/dep","path":"dep.go"}`))
	return got, isErr, b.Calls()[0]
}

func moduleDir(cache string) string {
	return filepath.Join(cache, "example.com", "!upper", "dep@v1.0.0")
}

// With GOMODCACHE an empty directory, read_dependency of a module that go.mod and go.sum pin
// answers its source: the go command downloads it from the proxy, checked against the
// checksum database and go.sum, once.
func TestReadDependencyDownloads(t *testing.T) {
	t.Parallel()
	proxy := goproxytest.New(t, depModule)
	g, head := downloadRepo(t, depModule.GoSum())
	cache := goproxytest.ModCache(t)
	l := tools.Limits{ModuleCache: cache, Download: &tools.Download{Env: proxy.Env(t, cache)}}

	got, isErr, rec := readDep(t, g, head, l)
	if isErr || !strings.Contains(got, "4 | func Answer() int { return 42 }") {
		t.Fatalf("read_dependency answered %v:\n%s", isErr, got)
	}
	if rec.Download != "example.com/Upper/dep@v1.0.0" || rec.DownloadMS <= 0 {
		t.Errorf("call record: download %q in %dms, want example.com/Upper/dep@v1.0.0 and its time", rec.Download, rec.DownloadMS)
	}
	// Read again: from the cache, with no download.
	got, isErr, rec = readDep(t, g, head, l)
	if isErr || !strings.Contains(got, "func Answer()") || rec.Download != "" {
		t.Errorf("second read: %v %q, download %q; want the source from the cache", isErr, got, rec.Download)
	}
	if n := proxy.Requests(".zip"); n != 1 {
		t.Errorf("the proxy served %d zips, want 1", n)
	}
}

func TestReadDependencyDownloadFails(t *testing.T) {
	t.Parallel()
	liar := depModule
	liar.Served = otherDep.Files
	tests := []struct {
		name    string
		mod     goproxytest.Module // what the proxy has
		goSum   string             // what the repository pins
		env     func(env []string) []string
		goCmd   string
		timeout time.Duration
		hold    bool
		has     []string
		inCache bool // the module is in the cache afterwards, under a checksum go.sum does not pin
	}{
		{name: "GOPROXY=off", mod: depModule, goSum: depModule.GoSum(),
			env: func(env []string) []string { return append(env, "GOPROXY=off") },
			has: []string{"example.com/Upper/dep@v1.0.0 is not in the module cache on this machine, and downloads are off", "GOPROXY=off", "set GOPROXY"}},
		{name: "a proxy without the module", mod: otherDepAt("v1.0.1"), goSum: depModule.GoSum(),
			has: []string{"the go command could not download it", "example.com/Upper/dep@v1.0.0", "404"}},
		{name: "go.sum pins other code", mod: depModule, goSum: otherDep.GoSum(), inCache: true,
			has: []string{"the module cache's copy of example.com/Upper/dep@v1.0.0 has the checksum", "but go.sum at head pins"}},
		{name: "the proxy serves other code than the checksum database knows", mod: liar, goSum: depModule.GoSum(),
			has: []string{"the go command could not download it", "checksum mismatch", "SECURITY ERROR"}},
		{name: "timeout", mod: depModule, goSum: depModule.GoSum(), hold: true, timeout: 300 * time.Millisecond,
			has: []string{"downloading example.com/Upper/dep@v1.0.0 took longer than 300ms and was stopped"}},
		{name: "no go command", mod: depModule, goSum: depModule.GoSum(), goCmd: "/nonexistent/bin/go",
			has: []string{"downloading it needs the go command, which council cannot run here", "install Go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proxy := goproxytest.New(t, tt.mod)
			if tt.hold {
				proxy.Hold()
			}
			g, head := downloadRepo(t, tt.goSum)
			cache := goproxytest.ModCache(t)
			dl := &tools.Download{Go: tt.goCmd, Env: proxy.Env(t, cache), Timeout: tt.timeout}
			if tt.env != nil {
				dl.Env = tt.env(dl.Env)
			}
			l := tools.Limits{ModuleCache: cache, Download: dl}
			for i := range 2 { // a second call finds nothing good either, at once
				got, isErr, rec := readDep(t, g, head, l)
				if !isErr {
					t.Fatalf("call %d: read_dependency answered, want a tool error:\n%s", i, got)
				}
				for _, s := range tt.has {
					if !strings.Contains(got, s) {
						t.Errorf("call %d: error lacks %q:\n%s", i, s, got)
					}
				}
				if strings.Contains(got, "Answer() int") {
					t.Errorf("call %d: the error shows the module's code:\n%s", i, got)
				}
				if rec.Download != "example.com/Upper/dep@v1.0.0" && !tt.inCache {
					t.Errorf("call %d record: download %q, want the module", i, rec.Download)
				}
			}
			if n := proxy.Requests(".info"); n > 1 {
				t.Errorf("the proxy was asked %d times for the version: a failed download was tried again", n)
			}
			if _, err := os.Stat(moduleDir(cache)); (err == nil) != tt.inCache {
				t.Errorf("module directory in the cache: %v, want %v", err == nil, tt.inCache)
			}
		})
	}
}

func otherDepAt(version string) goproxytest.Module {
	m := depModule
	m.Version = version
	return m
}

// Two conversations that need the same module version at the same time download it once: the
// second waits for the first's download.
func TestReadDependencyDownloadsOnce(t *testing.T) {
	t.Parallel()
	proxy := goproxytest.New(t, depModule)
	proxy.Hold()
	g, head := downloadRepo(t, depModule.GoSum())
	cache := goproxytest.ModCache(t)
	dl := &tools.Download{Env: proxy.Env(t, cache)}
	joined := make(chan struct{})
	tools.OnJoin(dl, func(string) { close(joined) })
	l := tools.Limits{ModuleCache: cache, Download: dl}

	var wg sync.WaitGroup
	results := make([]string, 2)
	records := make([]tools.Call, 2)
	for i := range results {
		wg.Go(func() {
			var isErr bool
			results[i], isErr, records[i] = readDep(t, g, head, l)
			if isErr {
				results[i] = "error: " + results[i]
			}
		})
	}
	select {
	case <-joined:
	case <-time.After(time.Minute):
		t.Fatal("the second call never waited for the first's download")
	}
	proxy.Release()
	wg.Wait()
	for i, r := range results {
		if !strings.Contains(r, "func Answer() int { return 42 }") || records[i].Download == "" {
			t.Errorf("call %d: download %q, answer:\n%s", i, records[i].Download, r)
		}
	}
	if n := proxy.Requests(".zip"); n != 1 {
		t.Errorf("the proxy served %d zips, want 1", n)
	}
}
