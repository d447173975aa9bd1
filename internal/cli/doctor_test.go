package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

func TestDoctorFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
		want    DoctorOptions
	}{
		{args: []string{}, want: DoctorOptions{Dir: "."}}, // not nil: cobra would read os.Args
		{args: []string{"--offline", "--provider", "openai", "--model", "gpt-5", "--dir", "x", "--config", "c.yaml"},
			want: DoctorOptions{Dir: "x", ConfigPath: "c.yaml", Provider: "openai", Model: "gpt-5", Offline: true}},
		{args: []string{"--repo", "acme/widget"}, want: DoctorOptions{Dir: ".", Repo: "acme/widget", owner: "acme", repoName: "widget"}},
		{args: []string{"--provider", "gemini"}, wantErr: `--provider "gemini": must be one of anthropic, openai`},
		{args: []string{"--repo", "acme"}, wantErr: `--repo: "acme" is not a repository: want OWNER/REPO`},
	}
	for _, tt := range tests {
		var got *DoctorOptions
		cmd := NewCmdDoctor(&Factory{}, func(_ context.Context, o *DoctorOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(new(strings.Builder))
		cmd.SetErr(new(strings.Builder))
		err := cmd.Execute()
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%v: err = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got == nil || *got != tt.want {
			t.Errorf("%v: err %v, options %+v, want %+v", tt.args, err, got, tt.want)
		}
	}
	if r := council(t, nil, "doctor", "--provider", "gemini"); r.code != ExitUsage {
		t.Errorf("a usage error exits %d, want %d", r.code, ExitUsage)
	}
}

// doctorLines checks that every line of the doctor's output starts with ok, warn or fail, and
// returns them.
func doctorLines(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	shape := regexp.MustCompile(`^(ok   |warn |fail )\S.*: .+`)
	for _, l := range lines {
		if !shape.MatchString(l) {
			t.Errorf("line %q does not start with ok, warn or fail and a check", l)
		}
	}
	return lines
}

// hasLine reports whether a line starts with prefix and contains every one of parts.
func hasLine(lines []string, prefix string, parts ...string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// anthropicModel answers the doctor's tool call as a model does.
func anthropicModel(req anthropictest.Request) anthropictest.Reply {
	if name := anthropictest.ToolAsked(req); name != "" {
		return anthropictest.ToolReply(name, map[string]any{"findings": []any{}, "summary": "ok"})
	}
	return anthropictest.TextReply("ok")
}

func openAIModel(req openaitest.Request) openaitest.Reply {
	if name := req.ForcedFunction(); name != "" {
		return openaitest.ToolReply(name, `{"findings": [], "summary": "ok"}`)
	}
	return openaitest.TextReply("ok")
}

// openAIResponsesModel answers the doctor's tool call on the Responses API.
func openAIResponsesModel(req openaitest.ResponsesRequest) openaitest.Reply {
	if name := req.ForcedFunction(); name != "" {
		return openaitest.ToolReply(name, `{"findings": [], "summary": "ok"}`)
	}
	return openaitest.TextReply("ok")
}

func TestDoctorOnline(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	anth := anthropictest.New(t, anthropictest.WithRespond(anthropicModel))
	noCache := anthropictest.New(t, anthropictest.WithRespond(anthropicModel), anthropictest.WithMinCacheTokens(1<<30))
	oai := openaitest.New(t, openaitest.WithRespond(openAIModel), openaitest.WithResponsesRespond(openAIResponsesModel))
	local := openaitest.New(t, openaitest.WithNoAuth(), openaitest.WithoutPromptCache(), openaitest.WithModel("qwen2.5-coder", 0), openaitest.WithRespond(openAIModel))
	chatOnly := openaitest.New(t, openaitest.WithoutResponsesAPI())
	noAccess := openaitest.New(t, openaitest.WithoutAccess("gpt-6.2-sol"))
	withOpenAI := func(f *openaitest.Server, api string) map[string]string {
		return map[string]string{"OPENAI_API_KEY": f.APIKey, "OPENAI_BASE_URL": f.URL, "COUNCIL_OPENAI_API": api}
	}
	bigBudget := filepath.Join(t.TempDir(), "council.yaml")
	if err := os.WriteFile(bigBudget, []byte("budget:\n  max_output_tokens: 70000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withAnthropic := func(f *anthropictest.Server, key string) map[string]string {
		return map[string]string{"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": f.URL}
	}
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		lines  [][]string // each: the line's start, then what it contains
		not    []string   // text no line may contain
		stderr []string
	}{
		{
			name: "anthropic, all ok", env: withAnthropic(anth, anth.APIKey), code: ExitOK,
			lines: [][]string{
				{"ok   repository"},
				{"ok   config", "provider anthropic, model claude-sonnet-5-5, 3 reviewers"},
				{"ok   credentials", "anthropic accepted the key (ANTHROPIC_API_KEY)"},
				{"ok   model claude-sonnet-5-5", "output limit 128000 tokens; budget.max_output_tokens 8192 fits"},
				{"ok   tool call", "submit_review", "6 tool schemas"},
				{"ok   prompt cache", "read"},
			},
			stderr: []string{"council: doctor's requests: Usage: 3 requests", "$0.0"},
		},
		{
			name: "openai on the Responses API, all ok", env: withOpenAI(oai, "responses"), code: ExitOK,
			lines: [][]string{
				{"ok   config", "provider openai, model gpt-6.2-sol"},
				{"ok   openai api", "the Responses API, POST " + oai.URL + "/responses", "set by COUNCIL_OPENAI_API"},
				{"ok   credentials", "openai accepted the key (OPENAI_API_KEY)"},
				{"ok   model gpt-6.2-sol", "output limit 128000 tokens"},
				{"ok   tool call"}, {"ok   prompt cache", "read"},
			},
		},
		{
			name: "openai on Chat Completions, chosen by the base URL", env: withOpenAI(oai, ""), args: []string{"--model", "gpt-4.1"}, code: ExitOK,
			lines: [][]string{
				{"ok   openai api", "Chat Completions, POST " + oai.URL + "/chat/completions", "chosen by the base URL"},
				{"warn model gpt-4.1", "deprecated and retires on 2027-01-14"},
				{"ok   model gpt-4.1", "output limit 32768 tokens"},
				{"ok   tool call"}, {"ok   prompt cache"},
			},
		},
		{
			name: "a Responses-only model on Chat Completions", env: withOpenAI(oai, ""), code: ExitFindings,
			lines: [][]string{{"fail tool call", "Function tools with reasoning_effort are not supported for gpt-6.2-sol", "set COUNCIL_OPENAI_API=responses"}},
		},
		{
			name: "a server without the Responses API", env: withOpenAI(chatOnly, "responses"), args: []string{"--model", "gpt-4.1"}, code: ExitFindings,
			lines: [][]string{{"fail tool call", "the server has no Responses API", "set COUNCIL_OPENAI_API=chat"}},
		},
		{
			name: "a key without access to the model", env: withOpenAI(noAccess, "responses"), code: ExitFindings,
			lines: [][]string{{"fail tool call", "403 model_not_found", "the API key's project may not use gpt-6.2-sol"}},
		},
		{
			name: "a bad COUNCIL_OPENAI_API", env: withOpenAI(oai, "completions"), code: ExitFindings,
			lines: [][]string{{"fail openai api", `COUNCIL_OPENAI_API="completions": must be one of responses, chat`}},
		},
		{
			name: "wrong key", env: withAnthropic(anth, "sk-ant-wrong-key-123456"), code: ExitFindings,
			lines: [][]string{{"fail credentials", "authentication failed (401)", "check ANTHROPIC_API_KEY"}},
			not:   []string{"sk-ant-wrong-key-123456", "ok   tool call"},
		},
		{
			name: "no key", env: map[string]string{}, code: ExitFindings,
			lines: [][]string{{"fail credentials", "set ANTHROPIC_API_KEY"}},
		},
		{
			name: "unknown model", env: withAnthropic(anth, anth.APIKey), args: []string{"--model", "claude-nope-7"}, code: ExitFindings,
			lines: [][]string{
				{"warn model claude-nope-7", "could not say whether it serves"},
				{"fail model claude-nope-7", "answered 404", "--model"},
			},
		},
		{
			name: "output limit below the config's", env: withAnthropic(anth, anth.APIKey), args: []string{"--model", "claude-haiku-4-5", "--config", bigBudget}, code: ExitFindings,
			lines: [][]string{{"fail model claude-haiku-4-5", "budget.max_output_tokens is 70000, above the model's output limit of 64000", "lower it"}},
			not:   []string{"answered 404"},
		},
		{
			name: "anthropic without a cache", env: withAnthropic(noCache, noCache.APIKey), code: ExitOK,
			lines: [][]string{{"warn prompt cache", "no cached tokens", "pay for the whole prompt"}},
		},
		{
			name: "a local server without a cache", env: map[string]string{"OPENAI_BASE_URL": local.URL}, args: []string{"--model", "qwen2.5-coder:7b"}, code: ExitOK,
			lines: [][]string{
				{"ok   credentials", "no key sent"},
				{"warn model qwen2.5-coder:7b", "not known to council"},
				{"warn prompt cache", "compatible servers"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := council(t, tt.env, append([]string{"doctor", "--dir", repo}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", r.code, tt.code, r.err)
			}
			lines := doctorLines(t, r.out)
			for _, want := range tt.lines {
				if !hasLine(lines, want[0], want[1:]...) {
					t.Errorf("no line %q containing %q in:\n%s", want[0], want[1:], r.out)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.err, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.err)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(r.out+r.err, s) {
					t.Errorf("output contains %q:\n%s%s", s, r.out, r.err)
				}
			}
		})
	}
}

func TestDoctorGitHub(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	anth := anthropictest.New(t, anthropictest.WithRespond(anthropicModel))
	const full, readOnly = "github_pat_11AAAAAAA0doctorFull00000000000000000", "github_pat_11AAAAAAA0doctorRead00000000000000000"
	gh := githubtest.New(t,
		githubtest.WithFineGrainedToken(full, githubtest.ContentsRead, githubtest.PullRequestsWrite, githubtest.IssuesWrite),
		githubtest.WithFineGrainedToken(readOnly, githubtest.ContentsRead, githubtest.PullRequestsRead))
	gh.SetPrivate("acme", "widget", true)
	env := func(tok string) map[string]string {
		return map[string]string{"ANTHROPIC_API_KEY": anth.APIKey, "ANTHROPIC_BASE_URL": anth.URL, "GITHUB_TOKEN": tok, "GITHUB_API_URL": gh.URL}
	}

	r := council(t, env(full), "doctor", "--dir", repo, "--repo", "acme/widget")
	lines := doctorLines(t, r.out)
	if r.code != ExitOK || !hasLine(lines, "ok   github acme/widget pull_requests:write", "post reviews") ||
		!hasLine(lines, "warn github acme/widget checks:write", "only --check-run needs it") {
		t.Errorf("full token: exit %d:\n%s%s", r.code, r.out, r.err)
	}

	r = council(t, env(readOnly), "doctor", "--dir", repo, "--repo", "acme/widget")
	lines = doctorLines(t, r.out)
	if r.code != ExitFindings || !hasLine(lines, "fail github acme/widget pull_requests:write", `"Pull requests: Read and write"`) {
		t.Errorf("read-only token: exit %d:\n%s%s", r.code, r.out, r.err)
	}

	r = council(t, env(full), "doctor", "--dir", repo, "--repo", "acme/missing")
	if lines := doctorLines(t, r.out); r.code != ExitFindings || !hasLine(lines, "fail github acme/missing", "cannot see the repository") {
		t.Errorf("unknown repository: exit %d:\n%s%s", r.code, r.out, r.err)
	}
}

// TestDoctorOffline: no request leaves the process, every kind of request is checked, and a
// config whose output budget no request could carry fails.
func TestDoctorOffline(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	chat := map[string]string{"COUNCIL_OPENAI_API": "chat"}
	for _, p := range []struct {
		provider, model, api string
		env                  map[string]string
		warn                 string // a warning line's check
	}{
		{"anthropic", "claude-sonnet-5-5", "the Messages API's rules", nil, ""},
		// The default OpenAI model, on the Responses API api.openai.com gets.
		{"openai", "", "the Responses API's rules", nil, ""},
		{"openai", "gpt-5", "the Responses API's rules", nil, "warn model gpt-5"},
		{"openai", "gpt-4.1", "Chat Completions' rules", chat, "warn model gpt-4.1"},
		// Tools only with reasoning off: the body is written for OpenAI's own endpoint.
		{"openai", "gpt-6-luna", "Chat Completions' rules", chat, ""},
	} {
		args := []string{"doctor", "--dir", repo, "--offline", "--provider", p.provider}
		model := p.model
		if model == "" {
			model = "gpt-6.2-sol"
		} else {
			args = append(args, "--model", model)
		}
		r := council(t, p.env, args...)
		lines := doctorLines(t, r.out)
		if r.code != ExitOK || !hasLine(lines, "ok   requests for "+model, "of the 18 kinds council sends pass "+p.api) ||
			!hasLine(lines, "warn credentials", "no key") || strings.Contains(r.err, "Usage:") ||
			(p.warn != "" && !hasLine(lines, p.warn, "OpenAI shuts it down on", "such as gpt-6.2-sol")) {
			t.Errorf("%s %s: exit %d:\n%s%s", p.provider, model, r.code, r.out, r.err)
		}
	}

	// A model that calls tools only through the Responses API, told to use Chat Completions,
	// fails with council's own words: one line for the one cause, naming the kinds it refused.
	r := council(t, chat, "doctor", "--dir", repo, "--offline", "--provider", "openai", "--model", "gpt-6.2-sol")
	if lines := doctorLines(t, r.out); r.code != ExitFindings || !hasLine(lines, "fail requests for gpt-6.2-sol", "16 kinds (", "Responses API", "COUNCIL_OPENAI_API") ||
		strings.Count(r.out, "fail requests for gpt-6.2-sol") != 1 || !hasLine(lines, "ok   openai api", "Chat Completions") {
		t.Errorf("gpt-6.2-sol on Chat Completions: exit %d:\n%s%s", r.code, r.out, r.err)
	}

	cfg := filepath.Join(t.TempDir(), "council.yaml")
	if err := os.WriteFile(cfg, []byte("budget:\n  max_output_tokens: 130000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = council(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-not-sent"}, "doctor", "--dir", repo, "--offline", "--config", cfg)
	lines := doctorLines(t, r.out)
	if r.code != ExitFindings || !hasLine(lines, "fail model claude-sonnet-5-5", "130000", "128000") ||
		!hasLine(lines, "fail requests for claude-sonnet-5-5", "max_tokens: 130000 > 128000") {
		t.Errorf("budget above the limit: exit %d:\n%s%s", r.code, r.out, r.err)
	}
}

// TestDoctorEveryModel: a reviewer on another model is checked too, and the key once.
func TestDoctorEveryModel(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	anth := anthropictest.New(t, anthropictest.WithRespond(anthropicModel))
	cfg := filepath.Join(t.TempDir(), "council.yaml")
	if err := os.WriteFile(cfg, []byte("reviewers:\n  security:\n    model: claude-haiku-4-5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := council(t, map[string]string{"ANTHROPIC_API_KEY": anth.APIKey, "ANTHROPIC_BASE_URL": anth.URL}, "doctor", "--dir", repo, "--config", cfg)
	lines := doctorLines(t, r.out)
	if r.code != ExitOK || strings.Count(r.out, "credentials:") != 1 ||
		!hasLine(lines, "ok   model claude-haiku-4-5", "output limit 64000") || !hasLine(lines, "ok   model claude-sonnet-5-5", "output limit 128000") ||
		strings.Count(r.out, "ok   tool call") != 2 || !strings.Contains(r.err, "Usage: 6 requests") {
		t.Errorf("exit %d:\n%s%s", r.code, r.out, r.err)
	}
}
