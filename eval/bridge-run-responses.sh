#!/bin/sh
# Issue 20: run council on a dataset with a model in the loop through OpenAI's Responses API.
# council speaks the Responses API (COUNCIL_OPENAI_API=responses) to tools/responses_bridge.py,
# which turns each request into the Messages request the eval kit's bridge (../shared/eval)
# writes to a file for an answerer (ANSWERING.md), in the same lanes as on the Anthropic path,
# and the answer back into a Responses answer. --record keeps the answers so that anyone can
# --replay the run offline.
#
# usage: eval/bridge-run-responses.sh NAME COUNCIL DATASET CACHE PORT [bench run flags...]
#   NAME     the run's name: runs/NAME, recordings/NAME, queue /tmp/council-eval/q-NAME
#   COUNCIL  the council binary to measure
#   DATASET  a dataset directory (eval/cases, or a subset of it)
#   CACHE    the clone cache prepare.sh filled
#   PORT     the bridge's port; the Responses adapter listens on PORT+1
# The model is OpenAI's default, gpt-6.2-sol (--model after PORT replaces it). The bridge's
# lanes appear under the queue; give each to one answerer, then, when the run is over, touch
# the queue's FINISHED file.
set -eu
name=$1 council=$2 dataset=$3 cache=$4 port=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
kit=${EVAL_KIT:-$here/../../shared/eval}
queue=/tmp/council-eval/q-$name
adapter_port=$((port + 1))
mkdir -p "$queue" "$here/runs"
python3 "$kit/bridge.py" --port "$port" --queue "$queue" --validator-lanes 3 >"$queue/bridge.log" 2>&1 &
bridge=$!
python3 "$here/tools/responses_bridge.py" --port "$adapter_port" --bridge "http://127.0.0.1:$port" >"$queue/adapter.log" 2>&1 &
adapter=$!
trap 'kill $bridge $adapter 2>/dev/null; touch "$queue/FINISHED"' EXIT
sleep 1
env -u ANTHROPIC_API_KEY -u ANTHROPIC_BASE_URL COUNCIL_OPENAI_API=responses \
	OPENAI_BASE_URL="http://127.0.0.1:$adapter_port/v1" OPENAI_API_KEY=bridge \
	GIT_ALLOW_PROTOCOL=file "$council" bench run "$dataset" --out "$here/runs/$name" \
	--record "/tmp/council-eval/recordings/$name" --cache "$cache" --concurrency 3 --max-cost 200 \
	--provider openai --model gpt-6.2-sol "$@"
