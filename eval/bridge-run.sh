#!/bin/sh
# Run council on a dataset with a model in the loop: the eval kit's bridge (../shared/eval)
# turns every request into a file that an answerer reads and answers (ANSWERING.md), and
# --record keeps the answers so that anyone can --replay the run offline.
#
# usage: eval/bridge-run.sh NAME COUNCIL DATASET CACHE PORT [bench run flags...]
#   NAME     the run's name: runs/NAME, recordings/NAME, queue /tmp/council-eval/q-NAME
#   COUNCIL  the council binary to measure
#   DATASET  a dataset directory (eval/cases, or a subset of it)
#   CACHE    the clone cache prepare.sh filled
#   PORT     the bridge's port
# The bridge's lanes appear under the queue; give each to one answerer, then, when the run is
# over, touch the queue's FINISHED file.
# VALIDATOR_LANES (default 3) sets how many lanes the validator's checks are spread over.
set -eu
name=$1 council=$2 dataset=$3 cache=$4 port=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
kit=${EVAL_KIT:-$here/../../shared/eval}
queue=/tmp/council-eval/q-$name
mkdir -p "$queue" "$here/runs"
python3 "$kit/bridge.py" --port "$port" --queue "$queue" --validator-lanes "${VALIDATOR_LANES:-3}" >"$queue/bridge.log" 2>&1 &
bridge=$!
trap 'kill $bridge 2>/dev/null; touch "$queue/FINISHED"' EXIT
# Wait for the bridge to listen: a sample reviewed before it does fails at once.
i=0
until python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" "$port" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 60 ] || { echo "bridge-run: the bridge on port $port did not start; see $queue/bridge.log" >&2; exit 1; }
	sleep 1
done
env -u OPENAI_API_KEY -u OPENAI_BASE_URL ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=bridge \
	GIT_ALLOW_PROTOCOL=file "$council" bench run "$dataset" --out "$here/runs/$name" \
	--record "/tmp/council-eval/recordings/$name" --cache "$cache" --concurrency 3 --max-cost 200 "$@"
