#!/usr/bin/env bash
# What a capture costs while the delta fills, and the one that compacts it
# (docs/PERFORMANCE.md, issue 35): captures into distinct issues of a
# hard-linked copy of WORKDIR/wsN (issues of 50 observations each, so
# each capture re-indexes 51 into the delta) until search.delta shrinks; prints each
# capture's CPU (user+sys s), wall s and peak RSS KB from /usr/bin/time.
#   scripts/bench-compaction.sh WORKDIR [N]     (N: 1000000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: bench-compaction.sh WORKDIR [N]}
n=${2:-1000000}
go build -trimpath -o "$work/ax-new" ./cmd/agentx-hook
run="$work/fill-$n"
rm -rf "$run"; cp -al "$work/ws$n" "$run"
rm -rf "$run/.agentx/state"; cp -a "$work/ws$n/.agentx/state" "$run/.agentx/state"
delta="$run/.agentx/memory/search.delta"
for i in $(seq 1 100000); do
  before=$(stat -c %s "$delta" 2>/dev/null || echo 0)
  /usr/bin/time -f "%U %S %e %M" -o "$work/fill.time" "$work/ax-new" --root "$run" memory add --agent engineer \
    --issue $((1 + i % (n / 50))) --category key-fact "Fill capture $i about the scheduler queue" >/dev/null 2>&1
  read -r u s w m <"$work/fill.time"
  echo "capture $i: cpu $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') s, wall $w s, rss $m KB, delta $before B"
  after=$(stat -c %s "$delta" 2>/dev/null || echo 0)
  [ "$after" -lt "$before" ] && { echo "compacted at capture $i"; break; }
done
