package source

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
)

type repo struct {
	t   *testing.T
	dir string
}

func setup(t *testing.T) repo {
	t.Helper()
	r := repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r repo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	r := setup(t)
	r.write("keep.go", "package a\n\nfunc A() {}\n")
	r.write("old name.go", strings.Repeat("line\n", 20))
	r.write("gone.txt", "bye\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "base")
	r.git("tag", "base")
	r.git("checkout", "-qb", "feature")
	r.write("keep.go", "package a\n\nfunc A() { B() }\n")
	if err := os.MkdirAll(filepath.Join(r.dir, "dír"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("mv", "old name.go", "dír/new name.go")
	r.git("rm", "-q", "gone.txt")
	r.write("img.bin", "\x00\x01\x02")
	r.git("add", "-A")
	r.git("commit", "-qm", "Feature: call B", "-m", "Because A needs B.")
	// main moves on after the fork: its commits must not show up as reverted.
	r.git("checkout", "-q", "main")
	r.write("later.go", "package a\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "later on main")

	ctx := context.Background()
	g, err := OpenGit(ctx, filepath.Join(r.dir))
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.Load(ctx, "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseSHA != r.git("rev-parse", "base") || c.HeadSHA != r.git("rev-parse", "feature") || c.BaseTip != r.git("rev-parse", "main") {
		t.Errorf("base %s (tip %s) head %s: want the merge-base, main's tip and the feature tip", c.BaseSHA, c.BaseTip, c.HeadSHA)
	}
	if c.Title != "Feature: call B" || c.Body != "Because A needs B." {
		t.Errorf("title %q body %q", c.Title, c.Body)
	}
	type got struct {
		Path, Old string
		Status    diff.Status
		Binary    bool
	}
	var files []got
	for _, f := range c.Files {
		files = append(files, got{f.Path(), f.OldPath, f.Status, f.Binary})
	}
	want := []got{
		{"dír/new name.go", "old name.go", diff.Renamed, false},
		{"gone.txt", "gone.txt", diff.Deleted, false},
		{"img.bin", "", diff.Added, true},
		{"keep.go", "keep.go", diff.Modified, false},
	}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}

	data, err := g.ReadFile(ctx, c.HeadSHA, "dír/new name.go")
	if err != nil || len(data) != 100 {
		t.Errorf("ReadFile at head = %d bytes, %v", len(data), err)
	}
	if _, err := g.ReadFile(ctx, c.BaseSHA, "dír/new name.go"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a file missing at base: %v, want fs.ErrNotExist", err)
	}
	if files, err := g.ListFiles(ctx, c.HeadSHA, "dír"); err != nil || len(files) != 1 {
		t.Errorf("ListFiles = %v, %v", files, err)
	}
}

func TestRevisionsAreNotOptions(t *testing.T) {
	t.Parallel()
	r := setup(t)
	r.write("a", "a\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "a")
	g, err := OpenGit(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"--output=/tmp/x", "-p", "no-such-rev"} {
		if _, err := g.Resolve(context.Background(), rev); err == nil {
			t.Errorf("Resolve(%q) succeeded", rev)
		}
	}
	if base, err := g.DefaultBase(context.Background()); err != nil || base != "main" {
		t.Errorf("DefaultBase = %q, %v; want main", base, err)
	}
}

func TestOpenGitOutsideARepository(t *testing.T) {
	t.Parallel()
	_, err := OpenGit(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--repo") {
		t.Errorf("err = %v, want a hint at --repo", err)
	}
}

func TestReadFileThroughTheBatchProcess(t *testing.T) {
	t.Parallel()
	r := setup(t)
	r.write("a.txt", "alpha\n")
	r.write("dir/b.txt", "beta") // no trailing newline
	r.write("big.bin", strings.Repeat("x", MaxFileBytes+1))
	r.git("add", "-A")
	r.git("commit", "-qm", "files")
	ctx := context.Background()
	g, err := OpenGit(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	read := func(path string) (string, error) {
		data, err := g.ReadFile(ctx, "HEAD", path)
		return string(data), err
	}
	// Interleave successes and failures: a failure must not put the stream out of step.
	for round := 0; round < 2; round++ {
		if got, err := read("a.txt"); got != "alpha\n" || err != nil {
			t.Errorf("a.txt = %q, %v", got, err)
		}
		if _, err := read("missing.txt"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing file: %v, want fs.ErrNotExist", err)
		}
		if _, err := read("dir"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "tree") {
			t.Errorf("a directory: %v, want a not-a-file error", err)
		}
		if _, err := read("big.bin"); err == nil || !strings.Contains(err.Error(), "size limit") {
			t.Errorf("big file: %v, want the size limit", err)
		}
		if got, err := read("dir/b.txt"); got != "beta" || err != nil {
			t.Errorf("dir/b.txt = %q, %v", got, err)
		}
		// After Close, the next read starts a new process.
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInitGitAndFetch(t *testing.T) {
	t.Parallel()
	upstream := setup(t)
	upstream.write("a.txt", "a\n")
	upstream.git("add", "-A")
	upstream.git("commit", "-qm", "a")
	upstream.git("update-ref", "refs/pull/7/head", "HEAD")
	sha := upstream.git("rev-parse", "HEAD")

	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "cache", "acme", "svc")
	g, err := InitGit(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Has(ctx, sha) {
		t.Fatal("a new cache already has the commit")
	}
	secret := Credential{Prefix: "https://github.com/", Header: "Authorization: Basic c2VjcmV0LXRva2Vu"}
	if err := g.Fetch(ctx, upstream.dir, secret, "+refs/pull/7/head:refs/council/pr/7/head"); err != nil {
		t.Fatal(err)
	}
	if !g.Has(ctx, sha) {
		t.Error("the fetched commit is missing")
	}
	// Opening it again finds the same repository; the header never reached its config.
	again, err := InitGit(ctx, dir)
	if err != nil || !again.Has(ctx, sha) {
		t.Fatalf("reopen: %v", err)
	}
	defer again.Close()
	if cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); strings.Contains(string(cfg), "c2VjcmV0") {
		t.Error("the header was written to the repository's config")
	}
	err = g.Fetch(ctx, filepath.Join(t.TempDir(), "missing"), secret, "+refs/heads/main:refs/x")
	if err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Errorf("a failed fetch: %v (it must fail, and never show the header)", err)
	}
}

// The credential git is given applies to its host alone, whatever remote or redirect a
// request goes to, and the environment's own git configuration is kept.
func TestCredentialOnlyForItsHost(t *testing.T) {
	t.Parallel()
	env := Credential{Prefix: "https://github.com/", Header: "Authorization: Basic c2VjcmV0"}.env([]string{
		"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=someone"})
	tests := []struct{ url, want string }{
		{"https://github.com/me/sandbox.git", "Authorization: Basic c2VjcmV0"},
		{"https://github.com.evil.example/me/sandbox.git", ""},
		{"https://gitlab.example/me/sandbox.git", ""},
	}
	for _, tt := range tests {
		cmd := exec.Command("git", "config", "--get-urlmatch", "http.extraHeader", tt.url)
		cmd.Env = env
		out, _ := cmd.Output() // exit 1 when nothing matches
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("%s: extraHeader %q, want %q", tt.url, got, tt.want)
		}
	}
	cmd := exec.Command("git", "config", "user.name")
	cmd.Env = env
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "someone" {
		t.Errorf("the environment's own git configuration was lost: %q, %v", out, err)
	}
}

func TestPush(t *testing.T) {
	t.Parallel()
	repo := setup(t)
	repo.write("a.txt", "a\n")
	repo.git("add", "-A")
	repo.git("commit", "-qm", "a")
	sha := repo.git("rev-parse", "HEAD")
	remote := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ctx := context.Background()
	g, err := OpenGit(ctx, repo.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Push(ctx, remote, Credential{}, "+"+sha+":refs/heads/copy"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", remote, "rev-parse", "refs/heads/copy").Output()
	if err != nil || strings.TrimSpace(string(out)) != sha {
		t.Errorf("the remote's branch is %q (%v), want %s", out, err, sha)
	}
	err = g.Push(ctx, "https://user:hunter2@127.0.0.1:1/x.git", Credential{}, "+"+sha+":refs/heads/copy")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a failed push: %v (it must fail, and never show the password)", err)
	}
}
