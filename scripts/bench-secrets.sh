#!/usr/bin/env bash
# Issue 26 item 1's figures, old and new binaries interleaved in one
# hyperfine run each (docs/performance-history.md, "gitleaks' rules"):
#   1. process start: agentx-hook version;
#   2. hook finish on a 2 MB Claude Code transcript over a 10K store (the
#      whole capture, as scripts/bench-pipeline.sh 1b).
# Needs hyperfine.
#   git worktree add --detach /tmp/old 0a9daaa && (cd /tmp/old && go build -trimpath -ldflags="-s -w" -o /tmp/old-agentx-hook ./cmd/agentx-hook)
#   scripts/bench-secrets.sh /tmp/old-agentx-hook [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
work=${2:-$(mktemp -d)}
mkdir -p "$work"
cp "$old" "$work/base"
go build -trimpath -ldflags="-s -w" -o "$work/new" ./cmd/agentx-hook

fixture=internal/core/capture/testdata/claude_session.jsonl
tr="$work/session.jsonl"; : > "$tr"
rep=0
while [ "$(stat -c %s "$tr")" -lt $((2 << 20)) ]; do
  sed -e "s/toolu_0/toolu_${rep}_0/g" -e "s/store\.go/store$((rep % 40)).go/g" \
      -e "s/30 s stale/${rep} s stale/g" -e "s/TestStoreAppend/TestStoreAppend${rep}/g" "$fixture" >> "$tr"
  rep=$((rep + 1))
done
echo "transcript: $(stat -c %s "$tr") bytes"

ws0="$work/store10k"; rm -rf "$ws0"; mkdir -p "$ws0"
git init -q "$ws0"
"$work/new" --root "$ws0" init >/dev/null
"$work/new" --root "$ws0" memory generate --observations 10000 --issues 200 --seed 1 --into-store >/dev/null
for b in base new; do
  printf '{"session_id":"bench-session","transcript_path":"%s","cwd":"%s","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}' \
    "$tr" "$work/ws-$b" > "$work/payload-$b.json"
done

hyperfine -N --warmup 5 --runs 100 --style basic "$work/base version" "$work/new version"
hyperfine --warmup 3 --runs 30 --style basic \
  --prepare "rm -rf $work/ws-base && cp -a $ws0 $work/ws-base" \
  "$work/base --root $work/ws-base hook finish --agent engineer --issue 42 < $work/payload-base.json" \
  --prepare "rm -rf $work/ws-new && cp -a $ws0 $work/ws-new" \
  "$work/new --root $work/ws-new hook finish --agent engineer --issue 42 < $work/payload-new.json"
for b in base new; do
  rm -rf "$work/ws-$b" && cp -a "$ws0" "$work/ws-$b"
  echo "$b: $("$work/$b" --root "$work/ws-$b" hook finish --agent engineer --issue 42 < "$work/payload-$b.json" | grep -i stored || true)"
done
