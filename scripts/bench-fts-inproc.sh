#!/usr/bin/env bash
# The search engine in process against sqlite3 FTS5 warm (docs/PERFORMANCE.md,
# issue 35): BenchmarkSearchCPU and BenchmarkSearchCPUEdited (CPU per search
# at 100K observations, file base; Edited after a foreign in-place edit of
# one issue file) against sqlite3's `.timer` user + system for the same
# three queries, medians of 100 after the first in one sqlite3 session,
# taken before and after the Go rounds. Each round runs every binary once
# (-count=3, the first of each query dropped: it carries the store build's
# leftover work); medians over the rounds.
#   scripts/bench-fts-inproc.sh DB              DB: the FTS5 table bench-fts.sh
#                                               builds (WORKDIR/fts100k.db)
#   OLD=REV scripts/bench-fts-inproc.sh DB      also REV's code (this
#                                               checkout's benchmark file on
#                                               it), interleaved
# ROUNDS (3) and N (2000 searches a run) set the size.
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:?usage: bench-fts-inproc.sh FTS5_DB}
rounds=${ROUNDS:-3}
n=${N:-2000}
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing (apt-get install sqlite3)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/new.test" ./internal/core/memory
bins=(new)
if [ -n "${OLD:-}" ]; then
  mkdir "$work/old"
  git archive "$OLD" | tar -x -C "$work/old"
  cp internal/core/memory/bench_cpu_test.go "$work/old/internal/core/memory/"
  (cd "$work/old" && go test -c -o "$work/old.test" ./internal/core/memory)
  bins+=(old)
fi
queries=("token refresh" "deadlock queue" "cache redis")
sqlwarm() {
  for q in "${queries[@]}"; do
    set -- $q
    sql="SELECT id, issue, agent, category, substr(timestamp,1,10), summary, tokens FROM obs WHERE obs MATCH '$1 OR $2' ORDER BY bm25(obs) LIMIT 20;"
    { echo ".timer on"; echo ".output /dev/null"; for _ in $(seq 101); do echo "$sql"; done; } |
      sqlite3 "$db" 2>&1 | grep "Run Time" | tail -n +2 | awk -v q="$q" '{print "sqlite", q, ($6 + $8) * 1000}'
  done
}
out="$work/figures"
sqlwarm >>"$out"
for _ in $(seq "$rounds"); do
  for b in "${bins[@]}"; do
    (cd internal/core/memory && "$work/$b.test" -test.run '^$' -test.bench BenchmarkSearchCPU \
      -test.benchtime="${n}x" -test.count=3) |
      awk -v b="$b" '/cpu-ms\/op/ { k = $1; seen[k]++; if (seen[k] > 1) print b, $1, $5 }' >>"$out"
  done
done
sqlwarm >>"$out"
python3 - "$out" <<'PY'
import collections, statistics, sys
sql, go = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "sqlite":
        sql[" ".join(f[1:-1])].append(float(f[-1]))
    else:
        go[(f[1], f[0])].append(float(f[2]))
for q in sql:
    print("sqlite3 %-15s %.3f ms (median of %d)" % (q, statistics.median(sql[q]), len(sql[q])))
for (bench, b), v in sorted(go.items()):
    q = bench.split("/")[1].rsplit("-", 1)[0].replace("_", " ")
    m, s = statistics.median(v), statistics.median(sql[q])
    print("%-45s %-3s %.4f ms (median of %d, %.3f-%.3f) = %.3fx sqlite3" % (bench, b, m, len(v), min(v), max(v), m / s))
PY
uptime
