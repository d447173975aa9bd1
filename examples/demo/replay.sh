#!/usr/bin/env bash
# Replays the recorded demo review: builds the demo repository, then runs council review on it
# with every model request answered from examples/demo/recording. No API key, no network.
# Extra arguments go to council review (try --format json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$("$here/make-repo.sh")
trap 'rm -rf "$(dirname "$repo")"' EXIT
cd "$here/../.."
go run ./cmd/council review --repo "$repo" --base v1 --head v2 --replay examples/demo/recording "$@"
