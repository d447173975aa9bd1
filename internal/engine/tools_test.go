package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/config"
)

// TestToolLimits: read_dependency downloads unless the caller or the config says not to, and
// the go command gets the environment without council's own secrets.
func TestToolLimits(t *testing.T) {
	t.Parallel()
	env := []string{"GOMODCACHE=/first", "HOME=/home/ann", "ANTHROPIC_API_KEY=sk-secret", "GOPROXY=https://proxy.example",
		"GITHUB_APP_PRIVATE_KEY=pem", "COUNCIL_DATABASE_URL=postgres://u:pw@db/council", "GITHUB_TOKEN=ghs_kept", "GOMODCACHE=/cache"}
	off := config.Default()
	off.Tools.DownloadModules = false
	tests := []struct {
		name       string
		opts       Options
		cfg        config.Config
		wantEnv    []string // nil: no downloads
		noDownload string
	}{
		{name: "downloads", opts: Options{Env: env}, cfg: config.Default(),
			wantEnv: []string{"GOMODCACHE=/first", "HOME=/home/ann", "GOPROXY=https://proxy.example", "GITHUB_TOKEN=ghs_kept", "GOMODCACHE=/cache"}},
		{name: "the config turns them off", opts: Options{Env: env}, cfg: off, noDownload: "tools.download_modules is false in .council.yaml@abc"},
		{name: "the caller turns them off", opts: Options{Env: env, NoDownload: "not on this server"}, cfg: config.Default(), noDownload: "not on this server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &Session{opts: tt.opts, Config: tt.cfg, ConfigSource: ".council.yaml@abc"}
			l := s.newToolLimits()
			if l.ModuleCache != "/cache" {
				t.Errorf("ModuleCache = %q, want the environment's last GOMODCACHE", l.ModuleCache)
			}
			var gotEnv []string
			if l.Download != nil {
				gotEnv = l.Download.Env
			}
			if diff := cmp.Diff(tt.wantEnv, gotEnv); diff != "" || l.NoDownload != tt.noDownload {
				t.Errorf("download environment (-want +got):\n%s\nNoDownload %q, want %q", diff, l.NoDownload, tt.noDownload)
			}
		})
	}
}
