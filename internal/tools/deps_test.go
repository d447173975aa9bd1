package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/tools"
)

const depsGoMod = `module example.com/app

go 1.22

require (
	github.com/BurntSushi/toml v1.3.2
	example.com/orig v1.0.0 // indirect
	example.com/bin v1.0.0
	"example.com/missing" v1.0.0
	example.com/local v0.0.0
	example.com/vend v1.2.0
	example.com/modonly v1.0.0
	example.com/nosum v1.0.0
	example.com/differs v1.0.0
	example.com/partial v1.0.0
	example.com/nohash v1.0.0
)

require example.com/oneline v0.1.0

replace example.com/orig => example.com/fork v1.0.1

replace (
	example.com/local => ./third_party/local
	example.com/oneline v0.0.9 => example.com/wrong v9.9.9
)
`

// depsGoSum pins the modules' code, but example.com/modonly's (only its go.mod) and
// example.com/nosum's.
const depsGoSum = `github.com/BurntSushi/toml v1.3.2 h1:toml=
github.com/BurntSushi/toml v1.3.2/go.mod h1:tomlmod=
example.com/fork v1.0.1 h1:fork=
example.com/orig v1.0.0 h1:orig=
example.com/bin v1.0.0 h1:bin=
example.com/missing v1.0.0 h1:missing=
example.com/vend v1.2.0 h1:vend=
example.com/oneline v0.1.0 h1:oneline=
example.com/modonly v1.0.0/go.mod h1:modonly=
example.com/differs v1.0.0 h1:pinned=
example.com/partial v1.0.0 h1:partial=
example.com/nohash v1.0.0 h1:nohash=
`

// depsFixture is a repository whose go.mod at head requires the modules of a module cache
// built in t.TempDir(): one with upper-case letters in its path, a fork a replace directive
// names, one with a binary file, symbolic links and a large file, one vendored only, and ones
// whose copy in the cache differs from what go.sum pins, is partly extracted, or has no
// checksum.
type depsFixture struct {
	git        *source.Git
	base, head string
	cache      string
}

func setupDeps(t *testing.T) *depsFixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.run("init", "-q", "-b", "main")
	f.write("main.go", "package main\n")
	f.run("add", "-A")
	f.run("commit", "-qm", "base")
	base := f.run("rev-parse", "HEAD")
	f.write("go.mod", depsGoMod)
	f.write("go.sum", depsGoSum)
	f.write("vendor/example.com/vend/vend.go", "package vend\n")
	f.write("vendor/modules.txt", "# example.com/vend v1.2.0\n## explicit\nexample.com/vend\n")
	f.run("add", "-A")
	f.run("commit", "-qm", "add go.mod")
	head := f.run("rev-parse", "HEAD")
	// The work tree's go.mod is never read: this one requires nothing.
	f.write("go.mod", "module example.com/app\n")
	g, err := source.OpenGit(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}

	cache := t.TempDir()
	put := func(p, content string) {
		t.Helper()
		full := filepath.Join(cache, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(cache, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	// What the go command records of a module it extracted: the checksum of its zip.
	ziphash := func(modVersion, sum string) {
		t.Helper()
		path, version, _ := strings.Cut(modVersion, "@")
		put("cache/download/"+path+"/@v/"+version+".ziphash", sum)
	}
	for mv, sum := range map[string]string{
		"github.com/!burnt!sushi/toml@v1.3.2": "h1:toml=", "github.com/burntsushi/toml@v1.3.2": "h1:toml=",
		"example.com/fork@v1.0.1": "h1:fork=", "example.com/orig@v1.0.0": "h1:orig=", "example.com/bin@v1.0.0": "h1:bin=",
		"example.com/modonly@v1.0.0": "h1:modonly=", "example.com/nosum@v1.0.0": "h1:nosum=", "example.com/differs@v1.0.0": "h1:other=",
		"example.com/partial@v1.0.0": "h1:partial=",
	} {
		ziphash(mv, sum+"\n")
	}
	put("cache/download/example.com/partial/@v/v1.0.0.partial", "")
	for _, m := range []string{"modonly", "nosum", "differs", "partial", "nohash"} {
		put("example.com/"+m+"@v1.0.0/"+m+".go", "package "+m+"\n")
	}
	put("github.com/!burnt!sushi/toml@v1.3.2/decode.go", "package toml\n\n// Decode decodes.\nfunc Decode(data string, v any) error { return nil }\n")
	put("github.com/!burnt!sushi/toml@v1.3.2/internal/tz.go", "package internal\n\n// Local is the local zone.\nvar Local = 0\n")
	put("github.com/burntsushi/toml@v1.3.2/decode.go", "package wrong // the unescaped path is another module\n")
	put("example.com/fork@v1.0.1/fork.go", "package orig\n\n// Fork is the fork's.\nfunc Fork() {}\n")
	put("example.com/orig@v1.0.0/orig.go", "package orig // not this: go.mod replaces it\n")
	put("example.com/bin@v1.0.0/blob.bin", "PNG\x00\x01 binary\n")
	put("example.com/bin@v1.0.0/huge.go", numbered("huge line", 1000))
	put("example.com/bin@v1.0.0/sub/inner.go", "package sub\n")
	link("/etc/passwd", "example.com/bin@v1.0.0/leak.go")
	link("sub", "example.com/bin@v1.0.0/linkdir")
	put("outside/secret.go", "package secret\n")
	link(filepath.Join(cache, "outside"), "example.com/oneline@v0.1.0")
	return &depsFixture{git: g, base: base, head: head, cache: cache}
}

func TestReadDependency(t *testing.T) {
	t.Parallel()
	f := setupDeps(t)
	tests := []struct {
		name    string
		input   string
		limits  tools.Limits
		noCache bool
		wantErr bool
		want    string
		has     []string
		hasNot  []string
		call    *tools.Call
	}{
		{name: "a file, its module path case-encoded in the cache", input: `{"module":"github.com/BurntSushi/toml","path":"decode.go"}`,
			want: "decode.go in github.com/BurntSushi/toml@v1.3.2, lines 1-4 of 4:\n   1 | package toml\n   2 | \n   3 | // Decode decodes.\n   4 | func Decode(data string, v any) error { return nil }\n",
			call: &tools.Call{Tool: "read_dependency", Path: "github.com/BurntSushi/toml@v1.3.2/decode.go", Start: 1, End: 4}},
		{name: "a range", input: `{"module":"github.com/BurntSushi/toml","path":"decode.go","start_line":3,"end_line":3}`,
			want: "decode.go in github.com/BurntSushi/toml@v1.3.2, lines 3-3 of 4:\n   3 | // Decode decodes.\n"},
		{name: "a package path inside the module", input: `{"module":"github.com/BurntSushi/toml/internal","path":"tz.go"}`,
			has: []string{"internal/tz.go in github.com/BurntSushi/toml@v1.3.2", "4 | var Local = 0"}},
		{name: "the module's files", input: `{"module":"github.com/BurntSushi/toml"}`,
			want: "files under the module in github.com/BurntSushi/toml@v1.3.2, paths relative to the module root:\ndecode.go\ninternal/tz.go\n"},
		{name: "a directory", input: `{"module":"github.com/BurntSushi/toml","path":"internal"}`,
			want: "files under internal in github.com/BurntSushi/toml@v1.3.2, paths relative to the module root:\ninternal/tz.go\n"},
		{name: "search the module", input: `{"module":"github.com/BurntSushi/toml","pattern":"^func [A-Z]|^var "}`,
			want: "matches for ^func [A-Z]|^var  in the module of github.com/BurntSushi/toml@v1.3.2, paths relative to the module root:\ndecode.go:4: func Decode(data string, v any) error { return nil }\ninternal/tz.go:4: var Local = 0\n"},
		{name: "search a file, no match", input: `{"module":"github.com/BurntSushi/toml","path":"decode.go","pattern":"Encode"}`,
			want: "no matches for Encode in decode.go of github.com/BurntSushi/toml@v1.3.2"},
		{name: "a replace directive to another module", input: `{"module":"example.com/orig","path":"fork.go"}`,
			has: []string{"fork.go in example.com/fork@v1.0.1 (example.com/orig v1.0.0 replaced by example.com/fork v1.0.1 in go.mod)", "func Fork() {}"}},
		{name: "a replace of another version does not apply", input: `{"module":"example.com/oneline"}`, wantErr: true,
			has: []string{"example.com/oneline@v0.1.0 is a symbolic link"}, hasNot: []string{"wrong", "secret.go"}},
		{name: "a local replace is refused", input: `{"module":"example.com/local","path":"x.go"}`, wantErr: true,
			has: []string{"replaces example.com/local with the local directory ./third_party/local", "read third_party/local with read_file"}},
		{name: "a module go.mod does not require", input: `{"module":"golang.org/x/sync"}`, wantErr: true,
			has: []string{"go.mod at head does not require golang.org/x/sync", "github.com/BurntSushi/toml", "example.com/vend"}},
		{name: "a module the cache lacks", input: `{"module":"example.com/missing","path":"m.go"}`, wantErr: true,
			want: "example.com/missing@v1.0.0 is not in the module cache on this machine (no directory example.com/missing@v1.0.0), and council does not download modules here"},
		{name: "why downloads are off", input: `{"module":"example.com/missing","path":"m.go"}`, limits: tools.Limits{NoDownload: "tools.download_modules is false in .council.yaml"}, wantErr: true,
			want: "example.com/missing@v1.0.0 is not in the module cache on this machine (no directory example.com/missing@v1.0.0), and council does not download modules here: tools.download_modules is false in .council.yaml"},
		{name: "go.sum pins only the go.mod", input: `{"module":"example.com/modonly"}`, wantErr: true,
			want: "go.sum at head pins only the go.mod of example.com/modonly@v1.0.0, not its code: the build uses none of its packages, and read_dependency reads only code go.sum pins"},
		{name: "go.sum does not pin it", input: `{"module":"example.com/nosum"}`, wantErr: true,
			has: []string{"go.sum at head has no checksum for example.com/nosum@v1.0.0"}, hasNot: []string{"nosum.go"}},
		{name: "the cache's copy differs from go.sum", input: `{"module":"example.com/differs"}`, wantErr: true,
			want: "the module cache's copy of example.com/differs@v1.0.0 has the checksum h1:other=, but go.sum at head pins h1:pinned=: the code differs from what go.sum pins, so read_dependency does not read it (the go command would refuse it too)"},
		{name: "partly extracted", input: `{"module":"example.com/partial"}`, wantErr: true,
			has: []string{"example.com/partial@v1.0.0 is not in the module cache on this machine (example.com/partial@v1.0.0 is only partly extracted)"}},
		{name: "no checksum in the cache", input: `{"module":"example.com/nohash"}`, wantErr: true,
			has: []string{"example.com/nohash@v1.0.0 is not in the module cache on this machine (no checksum of example.com/nohash@v1.0.0 in cache/download)"}},
		{name: "a vendored module the cache lacks", input: `{"module":"example.com/vend","path":"vend.go"}`, wantErr: true,
			has: []string{"not in the module cache on this machine", "read vendor/example.com/vend/vend.go with read_file"}},
		{name: "no module cache", input: `{"module":"github.com/BurntSushi/toml","path":"decode.go"}`, noCache: true, wantErr: true,
			has: []string{"no module cache is configured", "nothing can be downloaded without one"}},
		{name: "dot-dot in path", input: `{"module":"github.com/BurntSushi/toml","path":"../../burntsushi/toml@v1.3.2/decode.go"}`, wantErr: true,
			has: []string{"'..' segments are refused"}, hasNot: []string{"wrong"}},
		{name: "absolute path", input: `{"module":"github.com/BurntSushi/toml","path":"/etc/passwd"}`, wantErr: true, has: []string{"absolute path"}},
		{name: "dot-dot in module", input: `{"module":"github.com/../../etc"}`, wantErr: true, has: []string{"elements starting with a dot are refused"}},
		{name: "absolute module", input: `{"module":"/etc"}`, wantErr: true, has: []string{"is a file path"}},
		{name: "a symbolic link to a file", input: `{"module":"example.com/bin","path":"leak.go"}`, wantErr: true,
			has: []string{"leak.go in example.com/bin@v1.0.0 is a symbolic link"}, hasNot: []string{"root:"}},
		{name: "through a symbolic link to a directory", input: `{"module":"example.com/bin","path":"linkdir/inner.go"}`, wantErr: true,
			has: []string{"linkdir in example.com/bin@v1.0.0 is a symbolic link"}},
		{name: "listing skips symbolic links", input: `{"module":"example.com/bin"}`,
			want: "files under the module in example.com/bin@v1.0.0, paths relative to the module root:\nblob.bin\nhuge.go\nsub/inner.go\n"},
		{name: "a binary file", input: `{"module":"example.com/bin","path":"blob.bin"}`, wantErr: true, has: []string{"binary file"}, hasNot: []string{"PNG"}},
		{name: "a missing file", input: `{"module":"example.com/bin","path":"nope.go"}`, wantErr: true, has: []string{"nope.go does not exist in example.com/bin@v1.0.0"}},
		{name: "a large file without a range", input: `{"module":"example.com/bin","path":"huge.go"}`, wantErr: true,
			has: []string{"over the 4096-byte limit for a whole file", "start_line and end_line"}},
		{name: "a large file with a range", input: `{"module":"example.com/bin","path":"huge.go","start_line":1000}`,
			want: "huge.go in example.com/bin@v1.0.0, lines 1000-1000 of 1000:\n1000 | huge line 1000\n"},
		{name: "a long answer is cut to the byte budget", input: `{"module":"example.com/bin","path":"huge.go","start_line":1,"end_line":1000}`,
			limits: tools.Limits{MaxBytes: 1000}, has: []string{"   1 | huge line 1\n", "[truncated: "}, hasNot: []string{"huge line 1000"},
			call: &tools.Call{Tool: "read_dependency", Path: "example.com/bin@v1.0.0/huge.go", Start: 1, End: 1000, Truncated: true}},
		{name: "a range of a directory", input: `{"module":"example.com/bin","path":"sub","start_line":1}`, wantErr: true, has: []string{"is a directory"}},
		{name: "pattern and range", input: `{"module":"example.com/bin","path":"huge.go","pattern":"x","end_line":3}`, wantErr: true, has: []string{"not both"}},
		{name: "a pattern that does not compile", input: `{"module":"example.com/bin","pattern":"(x"}`, wantErr: true, has: []string{"pattern does not compile"}},
		{name: "no module", input: `{"path":"x.go"}`, wantErr: true, has: []string{"module is required"}},
		{name: "unknown field", input: `{"module":"example.com/bin","version":"v9"}`, wantErr: true, has: []string{`unknown field "version"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := tt.limits
			l.MaxFileBytes = testMaxFileBytes
			if !tt.noCache {
				l.ModuleCache = f.cache
			}
			b := tools.New(f.git, f.base, f.head, l)
			got, isErr := b.Call(context.Background(), tools.ReadDependency, json.RawMessage(tt.input))
			if isErr != tt.wantErr {
				t.Errorf("isError = %v, want %v; result:\n%s", isErr, tt.wantErr, got)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("result:\n%s\nwant:\n%s", got, tt.want)
			}
			for _, s := range tt.has {
				if !strings.Contains(got, s) {
					t.Errorf("result lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("result has %q:\n%s", s, got)
				}
			}
			if limit := max(l.MaxBytes, 0); limit > 0 && len(got) > limit {
				t.Errorf("result is %d bytes, over MaxBytes %d", len(got), limit)
			}
			calls := b.Calls()
			if len(calls) != 1 || calls[0].Bytes != len(got) {
				t.Fatalf("calls %+v, want one of %d bytes", calls, len(got))
			}
			if tt.call != nil {
				if diff := cmp.Diff(*tt.call, calls[0], cmpopts.IgnoreFields(tools.Call{}, "Input", "Bytes", "Error")); diff != "" {
					t.Errorf("call record (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A repository without go.mod at head has no dependencies to read.
func TestReadDependencyNoGoMod(t *testing.T) {
	t.Parallel()
	f := setupDeps(t)
	b := tools.New(f.git, "", f.base, tools.Limits{ModuleCache: f.cache})
	got, isErr := b.Call(context.Background(), tools.ReadDependency, json.RawMessage(`{"module":"github.com/BurntSushi/toml"}`))
	if !isErr || !strings.Contains(got, "no go.mod at its root at head") {
		t.Errorf("got %v %q, want a tool error about the missing go.mod", isErr, got)
	}
}
