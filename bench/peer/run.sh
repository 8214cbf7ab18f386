#!/usr/bin/env bash
# Peer benchmark: the same replication trace through our netsync (arena and
# ordered encoders, a Go benchmark) and through @colyseus/schema 5 with one
# StateView per client, in the same run, one after the other.
#
#   bench/peer/run.sh                    # uses ../shared/peerbench beside the repo
#   PEERBENCH=/path/to/peerbench bench/peer/run.sh
#   RUNS=3 bench/peer/run.sh             # repeat both rows (the machine may be busy)
#
# The peer benchmark is someone else's code and a read-only directory: it is
# copied to a temporary directory, where npm installs @colyseus/schema and
# tracegen writes the trace. Nothing of it is kept in this repository.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="${PEERBENCH:-$repo/../shared/peerbench}"
runs="${RUNS:-1}"
if [ ! -d "$src/colyseus" ] || [ ! -d "$src/tracegen" ]; then
  echo "peer benchmark not found at $src (set PEERBENCH)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$src/." "$work/"
chmod -R u+w "$work"

echo "== tracegen (defaults: 600 ticks at 20 Hz, 1000 entities, 64 clients, AOI radius 200)"
(cd "$work/tracegen" && go build -o "$work/tracegen.bin" . && "$work/tracegen.bin" -o "$work/trace.bin")
"$work/tracegen.bin" -check "$work/trace.bin"

echo "== npm install (@colyseus/schema)"
(cd "$work/colyseus" && npm install --no-audit --no-fund --silent)

for i in $(seq 1 "$runs"); do
  echo "== run $i: ours (go test ./bench -bench PeerReplay)"
  (cd "$repo" && PEER_TRACE="$work/trace.bin" go test ./bench/ -run '^$' -bench 'PeerReplay' -benchtime=3x)
  echo "== run $i: @colyseus/schema, one StateView per client"
  (cd "$work/colyseus" && node --expose-gc bench.mjs "$work/trace.bin" --mode=views)
done
