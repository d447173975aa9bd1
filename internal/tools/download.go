package tools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Download is how read_dependency downloads a module version the module cache lacks: the go
// command does it, `go mod download -json MODULE@VERSION`, so that GOPROXY (its lists, with
// "," and "|" fallbacks, and "direct"), GOPRIVATE, GONOPROXY, GONOSUMDB, GOSUMDB, GOINSECURE,
// GOFLAGS, the go env file and netrc or GOAUTH credentials mean what they mean to the go
// command, the checksum database is consulted as it would be, and the cache is filled the
// go command's way, under its locks. It runs in a temporary directory that holds nothing but
// a go.mod of its own, never in the repository, so that no go.mod or go.work of the change
// (nor one in a directory above) can alter it, with GOTOOLCHAIN=local (no toolchain is
// fetched), GOWORK=off and GO111MODULE=on; it builds nothing and runs no code of the module.
// read_dependency then checks the cache's checksum of the download against go.sum, as it
// checks every module it reads.
//
// A Download is shared by the Boxes of a run: while one call downloads a module version,
// another call that needs it waits for that download instead of starting its own.
type Download struct {
	Go      string        // the go command; "" looks for go on the PATH
	Env     []string      // the go command's environment, as the go command would read it; GOMODCACHE is set to Limits.ModuleCache over it
	Timeout time.Duration // of one download; default DefaultDownloadTimeout

	mu      sync.Mutex
	flights map[string]*flight // downloads in progress, and those that failed
	joined  func(key string)   // tests: a call waits for another's download
}

// DefaultDownloadTimeout bounds one download of a module version.
const DefaultDownloadTimeout = 2 * time.Minute

// flight is one download in progress.
type flight struct {
	done chan struct{}
	err  error
}

// once runs fn for key unless a run for key is in progress or has failed, and waits for that
// run: the one in progress, or its own. A failed run is not tried again: its error stands
// for the Download's life (a run's), so that a module the proxy lacks or that takes too long
// costs one wait, not one per call. fn runs apart from ctx, so that a caller that gives up
// does not fail the others waiting; ctx only bounds the wait.
func (d *Download) once(ctx context.Context, key string, fn func() error) error {
	d.mu.Lock()
	f, ok := d.flights[key]
	if ok {
		if d.joined != nil {
			d.joined(key)
		}
	} else {
		f = &flight{done: make(chan struct{})}
		if d.flights == nil {
			d.flights = map[string]*flight{}
		}
		d.flights[key] = f
		go func() {
			f.err = fn()
			if f.err == nil {
				d.mu.Lock()
				delete(d.flights, key)
				d.mu.Unlock()
			}
			close(f.done)
		}()
	}
	d.mu.Unlock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxGoOutput caps what is kept of the go command's output.
const maxGoOutput = 64 << 10

// download has the go command put d into the module cache, once however many calls ask at
// the same time, and records the download and how long it took, waiting included.
func (b *Box) download(ctx context.Context, d dep, rec *Call) error {
	dl := b.l.Download
	start := time.Now()
	err := dl.once(ctx, b.l.ModuleCache+"\x00"+d.String(), func() error {
		timeout := dl.Timeout
		if timeout <= 0 {
			timeout = DefaultDownloadTimeout
		}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		return goModDownload(dctx, dl, b.l.ModuleCache, d, timeout)
	})
	rec.Download, rec.DownloadMS = d.String(), time.Since(start).Milliseconds()
	if err != nil && ctx.Err() != nil {
		return refuse("waiting for the download of %s stopped: %v", d, ctx.Err())
	}
	return err
}

// goModDownload runs `go mod download -json d` and turns its failure into a tool error that
// says what to do.
func goModDownload(ctx context.Context, dl *Download, cache string, d dep, timeout time.Duration) error {
	goCmd := cmp.Or(dl.Go, "go")
	if _, err := exec.LookPath(goCmd); err != nil {
		return refuse("%s is not in the module cache on this machine, and downloading it needs the go command, which council cannot run here (%v): install Go (https://go.dev/dl/) where council runs, or run `go mod download %s` there before the review", d, err, d)
	}
	dir, err := os.MkdirTemp("", "council-download-")
	if err != nil {
		return fmt.Errorf("make a directory to download %s from: %w", d, err)
	}
	defer os.RemoveAll(dir)
	// A go.mod of its own stops the go command from looking for one in the directories above.
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module council.invalid/download\n"), 0o644); err != nil {
		return fmt.Errorf("make a directory to download %s from: %w", d, err)
	}
	cmd := exec.CommandContext(ctx, goCmd, "mod", "download", "-json", "--", d.String())
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(dl.Env), "GOMODCACHE="+cache, "GOTOOLCHAIN=local", "GOWORK=off", "GO111MODULE=on")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedBuffer{b: &stdout}, &limitedBuffer{b: &stderr}
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return refuse("downloading %s took longer than %s and was stopped; the module proxy may be slow or unreachable, and this review does not try again: read the repository's own code instead", d, timeout)
	}
	if runErr == nil {
		return nil
	}
	// The go command reports a failed module in the JSON, and anything else on stderr.
	var out struct{ Error string }
	msg := strings.TrimSpace(stderr.String())
	if json.Unmarshal(stdout.Bytes(), &out) == nil && out.Error != "" {
		msg = out.Error
	}
	var exit *exec.ExitError
	if msg == "" && !errors.As(runErr, &exit) {
		msg = runErr.Error()
	}
	if strings.Contains(msg, "GOPROXY=off") {
		return refuse("%s is not in the module cache on this machine, and downloads are off: %s. Whoever runs council can set GOPROXY (for example https://proxy.golang.org,direct) or run `go mod download %s` before the review", d, msg, d)
	}
	return refuse("%s is not in the module cache on this machine, and the go command could not download it: %s", d, msg)
}

// limitedBuffer keeps the first maxGoOutput bytes written to it and drops the rest.
type limitedBuffer struct{ b *bytes.Buffer }

func (w *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxGoOutput - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
