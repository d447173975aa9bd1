// Command council reviews pull requests with a council of LLM reviewers.
package main

import (
	"os"

	"github.com/council-dev/council/internal/cli"
)

func main() { os.Exit(cli.Main()) }
