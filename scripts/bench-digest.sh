#!/usr/bin/env bash
# Whole-process figure of the weekly digest (docs/PERFORMANCE.md): a
# workspace of 1,000 issues x 5 records and a 50K-observation store;
# `agentx-hook digest` against `jq -s` reading the same ledgers, with
# hyperfine and then interleaved (digest, jq, digest, jq, ...) so both
# meet the same machine load. Needs hyperfine and jq.
#   scripts/bench-digest.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
ax="$work/agentx-hook"
ws="$work/ws"
if [ ! -d "$ws/.agentx/memory" ]; then
  rm -rf "$ws"
  go run ./internal/tools/genledgers -root "$ws" -issues 1000 -records 5000 -open 200
  "$ax" --root "$ws" init >/dev/null
  "$ax" --root "$ws" memory generate --observations 50000 --issues 1000 --seed 1 --into-store >/dev/null
fi
"$ax" --root "$ws" digest >/dev/null 2>&1   # the first read builds the memory index
ledgers=("$ws"/.agentx/state/clarifications/issue-*.json)
echo "ledgers: ${#ledgers[@]} files, $(cat "${ledgers[@]}" | wc -c) bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"

hyperfine -N --warmup 3 --runs 40 --export-json "$work/digest.json" \
  "$ax --root $ws digest" "jq -s . ${ledgers[*]}" | grep -Ev '^ *$' | cut -c1-160

echo "== interleaved: 40 rounds of (digest, jq), wall ms"
: > "$work/interleaved.txt"
for _ in $(seq 40); do
  t0=$(date +%s%N); "$ax" --root "$ws" digest >/dev/null 2>&1
  t1=$(date +%s%N); jq -s . "${ledgers[@]}" >/dev/null
  t2=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 )) $(( (t2 - t1) / 1000 ))" >> "$work/interleaved.txt"
done
med() { cut -d' ' -f"$1" "$work/interleaved.txt" | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'; }
wins=$(awk '$1 <= $2' "$work/interleaved.txt" | wc -l)
echo "digest median $(med 1) ms, jq -s median $(med 2) ms; digest faster in $wins of $(wc -l < "$work/interleaved.txt") rounds"
echo "hyperfine medians: $(jq -r '[.results[] | "\(.median*1000*10|round/10) ms"] | join(" vs ")' "$work/digest.json")"
