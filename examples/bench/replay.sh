#!/usr/bin/env bash
# Replays the recorded benchmark demo: builds the demo repository next to a copy of the
# dataset, runs council bench run with every model request answered from
# examples/bench/recording, scores the council against the sample's human comments, and writes
# the report (bench-report.html in the current directory, or the path given). No API key, no
# network.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:-bench-report.html}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/../demo/make-repo.sh" "$work/inventory" >/dev/null
cp -r "$here/dataset" "$work/dataset"
cd "$here/../.."
go build -o "$work/council" ./cmd/council
"$work/council" bench run "$work/dataset" --out "$work/runs/demo" --replay examples/bench/recording
"$work/council" bench score "$work/runs/demo" --truth "$work/dataset"
"$work/council" bench calibrate "$work/runs/demo" --truth "$work/dataset" --labels examples/bench/labels.jsonl
"$work/council" bench report "$work/runs/demo" --out "$out"
echo "report: $out"
