#!/usr/bin/env bash
# Whole-process figures of the memory store (docs/PERFORMANCE.md).
# Needs hyperfine, jq, python3 and sqlite3 with FTS5 (the baseline).
#   scripts/bench-memory.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
ax="$work/agentx-hook"
median() { jq -r ".results[$2] | \"\(.command): median \(.median*1000|.*100|round/100) ms, mean \(.mean*1000|.*100|round/100) ms\"" "$1"; }

for n in 10000 50000 100000; do
  ws="$work/ws$n"
  if [ ! -f "$ws/.agentx/memory/manifest.json" ]; then
    rm -rf "$ws"; mkdir -p "$ws"; "$ax" --root "$ws" init >/dev/null
    "$ax" --root "$ws" memory generate --observations $n --issues $((n / 50)) --seed 1 --into-store
  fi
  echo "== disk at $n: $(du -sb "$ws/.agentx/memory" | cut -f1) bytes (manifest $(stat -c %s "$ws/.agentx/memory/manifest.json"), index $(stat -c %s "$ws/.agentx/memory/search.idx"))"
done

echo "== SQLite FTS5 baseline over the same 100K observations"
python3 - "$work/ws100000" "$work/fts100k.db" <<'PY'
import json, glob, sqlite3, sys, os
root, db = sys.argv[1], sys.argv[2]
if os.path.exists(db): os.remove(db)
c = sqlite3.connect(db)
c.execute("CREATE VIRTUAL TABLE obs USING fts5(id UNINDEXED, agent UNINDEXED, issue UNINDEXED, category UNINDEXED, timestamp UNINDEXED, tokens UNINDEXED, summary, content, tokenize='porter')")
for f in glob.glob(root + "/.agentx/memory/issue-*.json"):
    for o in json.load(open(f))["observations"]:
        c.execute("INSERT INTO obs VALUES (?,?,?,?,?,?,?,?)", (o["id"], o["agent"], o["issueNumber"], o["category"], o["timestamp"], o["tokens"], o["summary"], o["content"]))
c.commit(); c.execute("INSERT INTO obs(obs) VALUES('optimize')"); c.commit()
PY
sql() { echo "SELECT id, issue, agent, category, substr(timestamp,1,10), summary, tokens FROM obs WHERE obs MATCH '$1 OR $2' ORDER BY bm25(obs) LIMIT 20"; }

for q in "token refresh" "deadlock queue" "cache redis"; do
  set -- $q
  echo "== search \"$q\""
  hyperfine -N --warmup 10 --runs 200 --export-json "$work/search.json" \
    "$ax --root $work/ws10000 memory search '$q'" \
    "$ax --root $work/ws100000 memory search '$q'" \
    "sqlite3 $work/fts100k.db \"$(sql "$1" "$2")\"" >/dev/null
  for i in 0 1 2; do median "$work/search.json" $i; done
done

echo "== store a batch of 50 (whole process: memory add --file), fresh content each run"
cat > "$work/mkbatch.sh" <<'SH'
#!/bin/sh
# $1: output file, $2: issue count. One capture: 50 observations for one issue.
n=$(date +%s%N); issue=$(( (n / 1000) % $2 + 1 ))
{ echo "["; for i in $(seq 1 50); do
  [ "$i" -gt 1 ] && echo ","
  echo "{\"agent\":\"engineer\",\"issueNumber\":$issue,\"category\":\"key-fact\",\"content\":\"Benchmark capture $n item $i: the cache layer retries three times before failing over to Redis\",\"sessionId\":\"bench-$n\"}"
done; echo "]"; } > "$1"
SH
chmod +x "$work/mkbatch.sh"
for n in 10000 100000; do
  hyperfine -N --warmup 3 --runs 60 --export-json "$work/store$n.json" \
    --prepare "$work/mkbatch.sh $work/batch.json $((n / 50))" \
    "$ax --root $work/ws$n memory add --file $work/batch.json" >/dev/null
  median "$work/store$n.json" 0
done
