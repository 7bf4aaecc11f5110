#!/usr/bin/env bash
# Whole-process figures of the clarification core (docs/PERFORMANCE.md).
# Needs hyperfine and jq (apt-get install -y hyperfine jq).
#   scripts/bench-clarify.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
ax="$work/agentx-hook"

echo "== 1. clarify request, uncontended, on a ledger of 50 records"
ws1="$work/ws50"; rm -rf "$ws1"; mkdir -p "$ws1"
"$ax" --root "$ws1" init >/dev/null
for i in $(seq 1 50); do
  "$ax" --root "$ws1" clarify request --issue 7 --from engineer --to architect --non-blocking \
    --topic "topic $i" --question "Question number $i about the design?" >/dev/null
done
# Every run starts from the same 50-record ledger (restored by --prepare,
# which hyperfine does not time).
led="$ws1/.agentx/state/clarifications/issue-7.json"
cp "$led" "$work/ledger50.json"
hyperfine -N --warmup 5 --runs 200 --export-json "$work/request.json" \
  --prepare "cp $work/ledger50.json $led" \
  "$ax --root $ws1 clarify request --issue 7 --from engineer --to architect --non-blocking --topic bench --question q?"
jq -r '.results[0] | "median \(.median*1000|.*100|round/100) ms, mean \(.mean*1000|.*100|round/100) ms"' "$work/request.json"

echo "== 2. 8 processes x 50 requests on one issue vs the same 400 requests one after another"
req() { "$ax" --root "$1" clarify request --issue 42 --from engineer --to architect --non-blocking --topic "t" --question "q?" >/dev/null; }
fresh() { rm -rf "$1"; mkdir -p "$1"; "$ax" --root "$1" init >/dev/null; }
fresh "$work/serial"
t0=$(date +%s.%N)
for i in $(seq 1 400); do req "$work/serial"; done
t1=$(date +%s.%N)
fresh "$work/parallel"
t2=$(date +%s.%N)
for w in $(seq 1 8); do ( for i in $(seq 1 50); do req "$work/parallel"; done ) & done
wait
t3=$(date +%s.%N)
serial=$(echo "$t1 - $t0" | bc); parallel=$(echo "$t3 - $t2" | bc)
echo "serial 400: ${serial}s  8x50 concurrent: ${parallel}s  ratio: $(echo "scale=3; $parallel / $serial" | bc)"
n=$(jq '.clarifications | length' "$work/parallel/.agentx/state/clarifications/issue-42.json")
u=$(jq '[.clarifications[].id] | unique | length' "$work/parallel/.agentx/state/clarifications/issue-42.json")
echo "records: $n, unique ids: $u"

echo "== 3. clarify --json over 1,000 ledgers of 5 records vs jq -s"
ws3="$work/ws1000"; rm -rf "$ws3"
go run ./internal/tools/genledgers -root "$ws3" -issues 1000 -records 5000 -open 200 >/dev/null
# jq gets its file list from a shell glob (sh costs ~1 ms of its time).
hyperfine -N --warmup 3 --runs 30 --export-json "$work/list.json" \
  "$ax --root $ws3 clarify --json" \
  "sh -c 'cd $ws3/.agentx/state/clarifications && exec jq -s . issue-*.json'" 2>/dev/null | grep -E 'Time|Benchmark' || true
jq -r '.results | "agentx median \(.[0].median*1000|.*10|round/10) ms, jq median \(.[1].median*1000|.*10|round/10) ms, ratio \((.[0].median/.[1].median)*1000|round/1000)"' "$work/list.json"
