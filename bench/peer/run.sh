#!/usr/bin/env bash
# Peer benchmark: the same replication trace through our netsync (arena and
# ordered encoders, a Go benchmark) and through @colyseus/schema 5 with one
# StateView per client, in the same run, one after the other.
#
#   PEERBENCH=/path/to/peerbench bench/peer/run.sh
#   PEERBENCH=/path/to/peerbench RUNS=5 bench/peer/run.sh   # five runs of each
#
# PEERBENCH is the peer benchmark's directory, with its tracegen and colyseus
# folders. It is someone else's code and is not part of this repository. It
# may be read-only, so it is copied to a temporary directory, where tracegen
# writes the trace and npm installs @colyseus/schema. Nothing of it is kept.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [ -z "${PEERBENCH:-}" ]; then
  echo "PEERBENCH is not set: set it to the peer benchmark's directory (with tracegen/ and colyseus/)" >&2
  exit 2
fi
src="$PEERBENCH"
runs="${RUNS:-1}"
if [ ! -d "$src/colyseus" ] || [ ! -d "$src/tracegen" ]; then
  echo "PEERBENCH=$src is not the peer benchmark's directory: it has no tracegen/ and colyseus/" >&2
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

# Each run's figures are printed as they come, and kept for the summary:
# the machine's speed moves from minute to minute, so only figures of one
# run compare, and the medians of several.
ours=() theirs=() oursP50=() theirsP50=() theirsView=()
for i in $(seq 1 "$runs"); do
  echo "== run $i: ours (go test ./bench -bench PeerReplay)"
  out=$(cd "$repo" && PEER_TRACE="$work/trace.bin" go test ./bench/ -run '^$' -bench 'PeerReplay' -benchtime=3x)
  echo "$out"
  tiers=$(echo "$out" | grep '^BenchmarkPeerReplay/tiers')
  ours+=("$(echo "$tiers" | grep -o '[0-9.]* us-encode/client' | cut -d' ' -f1)")
  oursP50+=("$(echo "$tiers" | grep -o '[0-9.]* us-p50-encode/client' | cut -d' ' -f1)")
  echo "== run $i: @colyseus/schema, one StateView per client"
  out=$(cd "$work/colyseus" && node --expose-gc bench.mjs "$work/trace.bin" --mode=views)
  echo "$out"
  theirs+=("$(echo "$out" | grep -o '"encode_us_per_client_per_tick": "[0-9.]*"' | grep -o '[0-9.]*"$' | tr -d '"')")
  p50=$(echo "$out" | grep -o '"encode_us_per_tick_p50": "[0-9.]*"' | grep -o '[0-9.]*"$' | tr -d '"')
  clients=$(echo "$out" | grep -o '"clients": [0-9]*' | grep -o '[0-9]*$')
  # Colyseus's view maintenance (who enters and leaves each view), timed
  # apart from its encode: ours does that work inside its encode.
  view=$(echo "$out" | grep -o '"view_maint_us_per_tick": "[0-9.]*"' | grep -o '[0-9.]*"$' | tr -d '"')
  theirsView+=("$(awk -v v="$view" -v c="$clients" -v e="${theirs[$((i - 1))]}" 'BEGIN { printf "%.2f", e + v / c }')")
  theirsP50+=("$(awk -v p="$p50" -v c="$clients" 'BEGIN { printf "%.3f", p / c }')")
done

# median prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== summary: encode µs per client per tick, ours (tiers) against Colyseus (views)"
for i in $(seq 0 $((runs - 1))); do
  awk -v r="$((i + 1))" -v a="${ours[$i]}" -v b="${theirs[$i]}" -v ap="${oursP50[$i]}" -v bp="${theirsP50[$i]}" \
    'BEGIN { printf "run %d: mean %s against %s (%.1fx); median tick %s against %s (%.1fx)\n", r, a, b, b / a, ap, bp, bp / ap }'
done
mo=$(median "${ours[@]}") mt=$(median "${theirs[@]}") po=$(median "${oursP50[@]}") pt=$(median "${theirsP50[@]}")
awk -v a="$mo" -v b="$mt" -v ap="$po" -v bp="$pt" \
  'BEGIN { printf "medians: mean %s against %s (%.1fx); median tick %s against %s (%.1fx)\n", a, b, b / a, ap, bp, bp / ap }'
mv=$(median "${theirsView[@]}")
awk -v a="$mo" -v b="$mv" \
  'BEGIN { printf "with Colyseus view maintenance (ours does it inside its encode): median %s against %s (%.1fx)\n", a, b, b / a }'
