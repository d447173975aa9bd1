// Package cli is council's command line: flag parsing, wiring the engine to real providers and
// outputs, and the mapping from errors to exit codes. It is the only package that prints to the
// user; everything it does is testable in-process through Run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/provider"
)

// Version is set at build time with -ldflags "-X github.com/council-dev/council/internal/cli.Version=...".
var Version = "dev"

// Exit codes. They are part of the CLI's contract (docs/cli.md).
const (
	ExitOK          = 0
	ExitFindings    = 1   // a finding at or above --fail-on
	ExitUsage       = 2   // bad flags, config, reviewer document, repository or credentials
	ExitIncomplete  = 3   // a reviewer failed (and --allow-partial did not apply)
	ExitPublish     = 4   // the review ran but could not be posted to GitHub
	ExitInterrupted = 130 // Ctrl-C
)

// Factory carries the process's effects so that tests can replace them.
type Factory struct {
	Out, Err io.Writer
	Getenv   func(string) string
	// Environ is the whole environment, which the go command gets when a reviewer's
	// read_dependency downloads a module (GOPROXY, GOMODCACHE, ...); os.Environ when nil.
	Environ func() []string
	// NewClient makes the model client for a provider; the default uses the official SDKs.
	NewClient func(name string, s ProviderSettings) (provider.Client, error)
}

// ProviderSettings are what a provider client needs, resolved from flags and environment.
type ProviderSettings struct {
	APIKey  string
	BaseURL string
	// HTTPClient carries the requests; the SDK's default when nil (council doctor --offline
	// gives one that never leaves the process).
	HTTPClient *http.Client
	// KeyEnv names where the key came from, for error messages.
	KeyEnv string
	// API is the OpenAI API to speak, "responses" or "chat" (COUNCIL_OPENAI_API, or openai_api:
	// in .council.yaml); "" chooses by the base URL.
	API string
}

// Main runs council with the process's arguments and returns its exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := &Factory{Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, NewClient: newSDKClient}
	return Run(ctx, f, os.Args[1:])
}

// Run executes one command line and returns its exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetOut(f.Out)
	root.SetErr(f.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitCode(ctx, err)
	var silent *exitError
	if !errors.As(err, &silent) || silent.msg != "" {
		fmt.Fprintf(f.Err, "council: %v\n", err)
	}
	return code
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "council",
		Short: "Review changes with a council of LLM reviewers",
		Long: `council reviews a change with several LLM reviewers at once: three built-in lenses
(Correctness; Security; Maintainability & Tests) and personas that imitate real maintainers.
Every finding is anchored to the exact diff lines it is about and deduplicated across reviewers.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.AddCommand(NewCmdReview(f, nil))
	root.AddCommand(NewCmdBench(f))
	root.AddCommand(NewCmdDoctor(f, nil))
	root.AddCommand(NewCmdPersona(f))
	root.AddCommand(NewCmdLearn(f))
	root.AddCommand(NewCmdServe(f, nil))
	root.AddCommand(NewCmdRuns(f))
	root.AddCommand(NewCmdInstallations(f))
	return root
}

// exitError carries an exit code through cobra; an empty msg means the output already said it.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// ExitCode maps an error to the process's exit code. It is the only place that does. Errors
// that reach it without an exit code of their own happened before any reviewer ran (flags,
// credentials, config, reviewer documents, repository, revisions): they are the user's to fix.
func ExitCode(ctx context.Context, err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return ExitInterrupted
	default:
		return ExitUsage
	}
}
