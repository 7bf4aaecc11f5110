#!/usr/bin/env bash
# Whole-process figures of the memory pipeline (docs/PERFORMANCE.md):
#   1. hook finish, Claude Code SessionEnd payload, 2 MB transcript, 10K store:
#      the durable part (spool write; AGENTX_SPOOL_ONLY stops there) and the
#      whole capture.
#   2. hook start --format claude on a 50K-observation store.
# Needs hyperfine and jq.
#   scripts/bench-pipeline.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${1:-$(mktemp -d)}
mkdir -p "$work"
go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
ax="$work/agentx-hook"
median() { jq -r '.results[0] | "median \(.median*1000|.*100|round/100) ms, mean \(.mean*1000|.*100|round/100) ms, min \(.min*1000|.*100|round/100) ms"' "$1"; }

# A 2 MB transcript of the real shape: the Claude Code fixture repeated with
# fresh tool ids, files and numbers in every copy (as capture's benchmark).
fixture=internal/core/capture/testdata/claude_session.jsonl
tr="$work/session.jsonl"; : > "$tr"
rep=0
while [ "$(stat -c %s "$tr")" -lt $((2 << 20)) ]; do
  sed -e "s/toolu_0/toolu_${rep}_0/g" -e "s/store\.go/store$((rep % 40)).go/g" \
      -e "s/30 s stale/${rep} s stale/g" -e "s/TestStoreAppend/TestStoreAppend${rep}/g" "$fixture" >> "$tr"
  rep=$((rep + 1))
done
echo "transcript: $(stat -c %s "$tr") bytes, $(wc -l < "$tr") lines"

ws0="$work/store10k"; rm -rf "$ws0"; mkdir -p "$ws0"
"$ax" --root "$ws0" init >/dev/null
"$ax" --root "$ws0" memory generate --observations 10000 --issues 200 --seed 1 --into-store
printf '{"session_id":"bench-session","transcript_path":"%s","cwd":"%s","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}' "$tr" "$ws0" > "$work/sessionend.json"
ws="$work/ws"
# Each run starts from the same 10K store with nothing spooled or captured.
prep="rm -rf $ws && cp -a $ws0 $ws"
sed "s#$ws0#$ws#" "$work/sessionend.json" > "$work/payload.json"

echo "== 1a. hook finish, durable part only (parse payload, key the turn, spool fsynced)"
# hyperfine runs it through sh (for the stdin redirect) and subtracts the
# shell's own start-up.
hyperfine --warmup 3 --runs 40 --prepare "$prep" --export-json "$work/finish-durable.json" \
  "AGENTX_SPOOL_ONLY=1 $ax --root $ws hook finish --agent engineer --issue 42 < $work/payload.json"
median "$work/finish-durable.json"

echo "== 1b. hook finish, whole capture (durable part + 2 MB transcript + store append + monitor)"
hyperfine --warmup 3 --runs 40 --prepare "$prep" --export-json "$work/finish-whole.json" \
  "$ax --root $ws hook finish --agent engineer --issue 42 < $work/payload.json"
median "$work/finish-whole.json"
eval "$prep"
"$ax" --root "$ws" hook finish --agent engineer --issue 42 < "$work/payload.json" | grep Stored

echo "== 2. hook start --format claude on a 50K-observation store"
ws50="$work/store50k"; rm -rf "$ws50"; mkdir -p "$ws50"
"$ax" --root "$ws50" init >/dev/null
"$ax" --root "$ws50" memory generate --observations 50000 --issues 1000 --seed 2 --into-store
hyperfine -N --warmup 5 --runs 100 --export-json "$work/start50k.json" \
  "$ax --root $ws50 hook start --agent engineer --issue 42 --format claude"
median "$work/start50k.json"
chars=$("$ax" --root "$ws50" hook start --agent engineer --issue 42 --format claude | jq -r '.hookSpecificOutput.additionalContext' | wc -m)
echo "additionalContext: $chars characters"
cd "$repo"
