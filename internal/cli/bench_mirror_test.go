package cli

import (
	"context"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

type mirrorSetup struct {
	clone  string // the demo repository: the sample's commits
	bare   string // the sandbox's git remote
	sample string // path of the sample file
	s      bench.Sample
	gh     *githubtest.Server
	ai     *anthropictest.Server
	env    map[string]string
}

// setupMirror writes a sample of the demo repository (v1..v2, two truth comments) to a new
// dataset, and serves an empty sandbox repository acme/sandbox whose git remote is a local
// bare repository.
func setupMirror(t *testing.T) mirrorSetup {
	t.Helper()
	m := mirrorSetup{clone: demoRepo(t), bare: filepath.Join(t.TempDir(), "sandbox.git")}
	git(t, m.clone, "init", "-q", "--bare", m.bare)
	m.s = bench.Sample{
		SampleVersion: bench.SampleVersion, ID: "acme-inventory-7",
		Repo: bench.Repo{Path: m.clone, Name: "acme/inventory"},
		PR: bench.PR{Number: 7, Title: "Reserve stock and export reports", Author: "dev", BaseRef: "main",
			URL: "https://github.com/acme/inventory/pull/7"},
		Base: strings.TrimSpace(git(t, m.clone, "rev-parse", "v1^{commit}")),
		Head: strings.TrimSpace(git(t, m.clone, "rev-parse", "v2^{commit}")),
		Truth: []bench.Truth{
			{ID: "1", Author: "maintainer", Path: "store.go", Line: 52, Side: "RIGHT", Body: "Two reservations can both pass this check.", Kind: "concurrency"},
			{ID: "2", Author: "maintainer", Path: "handler.go", Line: 50, Side: "RIGHT", Body: "name can escape the export directory.", Kind: "security"},
		},
	}
	dir := filepath.Join(t.TempDir(), "dataset")
	if err := bench.WriteSample(dir, m.s); err != nil {
		t.Fatal(err)
	}
	m.sample = filepath.Join(dir, m.s.ID+".json")
	m.gh = githubtest.New(t, githubtest.WithToken(prToken, githubtest.PullRequestsWrite, githubtest.IssuesWrite),
		githubtest.WithToken("ghp_readonly000000000000000000000000"))
	m.gh.SetRemote("acme", "sandbox", m.bare)
	m.ai = anthropicDemo(t)
	m.env = map[string]string{
		"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": m.ai.URL,
		"GITHUB_TOKEN": prToken, "GITHUB_API_URL": m.gh.URL,
	}
	return m
}

func (m mirrorSetup) mirror(t *testing.T, args ...string) run {
	t.Helper()
	return council(t, m.env, append([]string{"bench", "mirror", m.sample, "--to", "acme/sandbox", "--push-url", m.bare}, args...)...)
}

func (m mirrorSetup) client(t *testing.T) *github.Client {
	t.Helper()
	c, err := github.New(github.Options{Token: prToken, BaseURL: m.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBenchMirrorPushesOpensAndReviews(t *testing.T) {
	t.Parallel()
	m := setupMirror(t)

	r := m.mirror(t)
	t.Logf("first run, stderr:\n%s", r.err)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	for branch, want := range map[string]string{
		"council-bench/acme-inventory-7/base": m.s.Base,
		"council-bench/acme-inventory-7/head": m.s.Head,
	} {
		if got := strings.TrimSpace(git(t, m.bare, "rev-parse", "refs/heads/"+branch)); got != want {
			t.Errorf("sandbox branch %s at %s, want %s", branch, got, want)
		}
	}
	pr, found, err := m.client(t).FindPullRequest(context.Background(), "acme", "sandbox", "council-bench/acme-inventory-7/head", "council-bench/acme-inventory-7/base")
	if err != nil || !found {
		t.Fatalf("no open pull request for the sample's branches (found %v, err %v)", found, err)
	}
	want := github.PR{
		Number: 1, Title: "[sample #7] Reserve stock and export reports", Author: githubtest.DefaultLogin,
		Body: "Mirrors the diff the human reviewers first saw on acme/inventory#7 ('Reserve stock and export reports' by @dev) for the Council benchmark. " +
			"base(fork)=" + m.s.Base + " head(as-reviewed)=" + m.s.Head + "\n\n" +
			"Benchmark sample reproducing the as-first-reviewed state of [acme/inventory#7](https://github.com/acme/inventory/pull/7) (by @dev).\n" +
			"This PR's diff equals what the human reviewers first saw: fork point `" + m.s.Base[:12] + "` → earliest human-reviewed commit `" + m.s.Head[:12] +
			"`. The original PR drew 2 human top-level review comments — the ground truth to compare the Council's feedback against.\n\n" +
			"🤖 Generated for the Council benchmark.\n",
		BaseRef: "council-bench/acme-inventory-7/base", BaseSHA: m.s.Base,
		HeadRef: "council-bench/acme-inventory-7/head", HeadSHA: m.s.Head,
		HeadRepoFullName: "acme/sandbox", BaseRepoFullName: "acme/sandbox", State: "open",
	}
	if d := cmp.Diff(want, pr, cmpopts.IgnoreFields(github.PR{}, "HTMLURL")); d != "" {
		t.Errorf("the sandbox pull request (-want +got):\n%s", d)
	}
	// The council's reviews, one per lens, and its summary comment are on it.
	if n := m.gh.Count("POST", "/repos/acme/sandbox/pulls/1/reviews"); n != 3 {
		t.Errorf("%d reviews posted, want 3 (one per lens)", n)
	}
	if bodies := m.gh.IssueCommentBodies("acme", "sandbox", 1); len(bodies) != 1 || !strings.Contains(bodies[0], summaryMarker) {
		t.Errorf("summary comments: %q", bodies)
	}
	if !strings.Contains(r.out, "Path traversal in /export") {
		t.Errorf("stdout lacks the review:\n%s", r.out)
	}

	// Again: the same pull request, and nothing new to say on a head already reviewed.
	r = m.mirror(t)
	t.Logf("second run, stderr:\n%s", r.err)
	if r.code != ExitOK {
		t.Fatalf("second run: exit %d, stderr:\n%s", r.code, r.err)
	}
	if n := m.gh.Count("POST", "/repos/acme/sandbox/pulls"); n != 1 {
		t.Errorf("%d pull requests opened over two runs, want 1", n)
	}
	if n := m.gh.Count("POST", "/repos/acme/sandbox/pulls/1/reviews"); n != 3 {
		t.Errorf("%d reviews posted over two runs, want 3", n)
	}
	for _, s := range []string{"reusing the open pull request acme/sandbox#1", "already reviewed"} {
		if !strings.Contains(r.err, s) {
			t.Errorf("second run's stderr lacks %q:\n%s", s, r.err)
		}
	}
}

func TestBenchMirrorNoReview(t *testing.T) {
	t.Parallel()
	m := setupMirror(t)
	r := m.mirror(t, "--no-review")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	if want := m.gh.WebURL + "/acme/sandbox/pull/1\n"; r.out != want {
		t.Errorf("stdout %q, want the pull request's URL %q", r.out, want)
	}
	if n := m.gh.Count("POST", "/repos/acme/sandbox/pulls/1/reviews"); n != 0 {
		t.Errorf("%d reviews posted with --no-review", n)
	}
	if n := len(m.ai.Requests()); n != 0 {
		t.Errorf("%d model requests with --no-review", n)
	}
}

func TestBenchMirrorRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, m *mirrorSetup) []string // extra arguments
		want   string                                      // in stderr
	}{
		{
			name: "no clone",
			change: func(t *testing.T, m *mirrorSetup) []string {
				m.s.Repo = bench.Repo{URL: "https://github.com/acme/inventory.git"}
				m.rewrite(t)
				return nil
			},
			want: "sample acme-inventory-7 has no repo.path: pass --clone DIR",
		},
		{
			name: "repo.path is no repository",
			change: func(t *testing.T, m *mirrorSetup) []string {
				m.s.Repo.Path = filepath.Join(t.TempDir(), "moved")
				m.rewrite(t)
				return nil
			},
			want: "is not a git repository: pass --clone DIR, a clone holding commits",
		},
		{
			name: "clone without the commits",
			change: func(t *testing.T, _ *mirrorSetup) []string {
				other := filepath.Join(t.TempDir(), "other")
				git(t, filepath.Dir(other), "init", "-q", other)
				return []string{"--clone", other}
			},
			want: "does not hold the base commit",
		},
		{
			name: "token that cannot open pull requests",
			change: func(_ *testing.T, m *mirrorSetup) []string {
				m.env["GITHUB_TOKEN"] = "ghp_readonly000000000000000000000000"
				return nil
			},
			want: "the token lacks pull_requests:write",
		},
		{
			name: "push fails",
			change: func(t *testing.T, _ *mirrorSetup) []string {
				return []string{"--push-url", filepath.Join(t.TempDir(), "nowhere.git")}
			},
			want: "push sample acme-inventory-7 to ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := setupMirror(t)
			args := tt.change(t, &m)
			r := m.mirror(t, args...)
			if r.code != ExitUsage {
				t.Errorf("exit %d, want %d", r.code, ExitUsage)
			}
			if !strings.Contains(r.err, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.err)
			}
			for _, secret := range []string{prToken, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + prToken))} {
				if strings.Contains(r.err, secret) {
					t.Errorf("stderr shows the token:\n%s", r.err)
				}
			}
			if strings.Contains(r.err, "--repo") {
				t.Errorf("stderr names --repo, a flag bench mirror does not have:\n%s", r.err)
			}
		})
	}
}

// rewrite writes the changed sample over the old one.
func (m *mirrorSetup) rewrite(t *testing.T) {
	t.Helper()
	if err := bench.WriteSample(filepath.Dir(m.sample), m.s); err != nil {
		t.Fatal(err)
	}
}

func TestNewCmdBenchMirrorFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    *BenchMirrorOptions
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"s.json", "--to", "me/sandbox"},
			want: &BenchMirrorOptions{Sample: "s.json", To: "me/sandbox", Layout: "per-reviewer"},
		},
		{
			name: "pass-through",
			args: []string{"s.json", "--to", "me/sandbox", "--clone", "src", "--push-url", "/tmp/x.git", "--provider", "openai", "--model", "gpt-4.1",
				"--lenses", "correctness,security", "--personas", "casey.md", "--replay", "rec", "--layout", "consolidated", "--overview"},
			want: &BenchMirrorOptions{Sample: "s.json", To: "me/sandbox", Clone: "src", PushURL: "/tmp/x.git", Provider: "openai", Model: "gpt-4.1",
				Lenses: []string{"correctness", "security"}, Personas: []string{"casey.md"}, ReplayDir: "rec", Layout: "consolidated", Overview: true},
		},
		{name: "no --to", args: []string{"s.json"}, wantErr: "--to OWNER/REPO is required"},
		{name: "--to not a repository", args: []string{"s.json", "--to", "sandbox"}, wantErr: `"sandbox" is not a repository`},
		{name: "no sample", args: []string{"--to", "me/sandbox"}, wantErr: "accepts 1 arg"},
		{name: "bad provider", args: []string{"s.json", "--to", "me/s", "--provider", "x"}, wantErr: "must be one of anthropic, openai"},
		{name: "record and replay", args: []string{"s.json", "--to", "me/s", "--record", "a", "--replay", "b"}, wantErr: "cannot be used together"},
		{name: "bad layout", args: []string{"s.json", "--to", "me/s", "--layout", "x"}, wantErr: "--layout"},
		{name: "overview without review", args: []string{"s.json", "--to", "me/s", "--no-review", "--overview"}, wantErr: "--overview is part of the review"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *BenchMirrorOptions
			cmd := NewCmdBenchMirror(&Factory{}, func(_ context.Context, o *BenchMirrorOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&strings.Builder{})
			cmd.SetErr(&strings.Builder{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

func TestMirrorCouncilNameComesFromTheBaseConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeText(t, filepath.Join(dir, ".council.yaml"), "council_name: Council of Claudes\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "config")
	base := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	writeText(t, filepath.Join(dir, ".council.yaml"), "council_name: Renamed by the change\n")
	git(t, dir, "commit", "-q", "-am", "rename")

	if got := councilName(context.Background(), dir, base); got != "Council of Claudes" {
		t.Errorf("councilName = %q, want the base revision's council_name", got)
	}
	if got := councilName(context.Background(), t.TempDir(), base); got != "Council" {
		t.Errorf("councilName without a repository = %q, want the default", got)
	}
}

// TestMirrorBodyNamesTheOriginal: the body names the original as owner/repo#N, which GitHub
// links back to; a sample that does not say its repository never writes a bare "#N", which
// GitHub would link to the sandbox's own pull request N.
func TestMirrorBodyNamesTheOriginal(t *testing.T) {
	t.Parallel()
	s := bench.Sample{
		PR:   bench.PR{Number: 7, Title: "Reserve stock", Author: "dev"},
		Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40),
		Repo: bench.Repo{Path: "../inventory"},
	}
	body := mirrorBody(s, "Council")
	if strings.Contains(body, "#7") {
		t.Errorf("a sample without its repository: the body says #7, a link to the sandbox's pull request 7:\n%s", body)
	}
	if !strings.Contains(body, "first saw on pull request 7 ('Reserve stock' by @dev)") {
		t.Errorf("the body does not name the original pull request:\n%s", body)
	}
	s.Repo.Name = "acme/inventory"
	if body := mirrorBody(s, "Council"); !strings.HasPrefix(body, "Mirrors the diff the human reviewers first saw on acme/inventory#7 ('Reserve stock' by @dev) for the Council benchmark.") {
		t.Errorf("the body does not open with owner/repo#N:\n%s", body)
	}
}
