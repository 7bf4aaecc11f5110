#!/usr/bin/env bash
# The floors under `memory search`'s ratio to sqlite3 FTS5 (docs/PERFORMANCE.md,
# issue 35): a Go hello-world, `version`, a search with no hit and the
# "deadlock queue" search, against sqlite3's query and its `select 1`, in
# bench-fts.sh's own measure (a fresh python3 forks, execs and waits; CPU of
# the child from its rusage), medians of RUNS interleaved rounds.
#   scripts/bench-fts-floors.sh WORKDIR   after scripts/bench-fts.sh WORKDIR
#                                         (its ax-new, fts-new-plain and
#                                         fts100k.db; ax-old and
#                                         fts-old-plain too when OLD was set)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: bench-fts-floors.sh WORKDIR}
runs=${RUNS:-15}
for f in ax-new fts-new-plain fts100k.db; do
  [ -e "$work/$f" ] || { echo "no $work/$f: run scripts/bench-fts.sh $work first"; exit 1; }
done
mkdir -p "$work/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$work/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$work/hello/go.mod"
(cd "$work/hello" && go build -trimpath -o "$work/hello.built" .)
cp "$work/hello.built" "$work/hello-go" # a file the linker wrote starts slower
. scripts/lib/measure.sh # measure CMD ARGS: one run's CPU, ms
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
sqlite=$(command -v sqlite3)
sql="SELECT id, issue, agent, category, substr(timestamp,1,10), summary, tokens FROM obs WHERE obs MATCH 'deadlock OR queue' ORDER BY bm25(obs) LIMIT 20"
names=(hello version nohit deadlock sqlite sqlite1)
old=""
if [ -x "$work/ax-old" ] && [ -d "$work/fts-old-plain" ]; then old=1; names+=(old-nohit old-deadlock); fi
declare -A r
for _ in $(seq 1 "$runs"); do
  r[hello]+="$(measure "$work/hello-go") "
  r[version]+="$(measure "$work/ax-new" version) "
  r[nohit]+="$(measure "$work/ax-new" --root "$work/fts-new-plain" memory search zzzqqq) "
  r[deadlock]+="$(measure "$work/ax-new" --root "$work/fts-new-plain" memory search "deadlock queue") "
  r[sqlite]+="$(measure "$sqlite" "$work/fts100k.db" "$sql") "
  r[sqlite1]+="$(measure "$sqlite" "$work/fts100k.db" "select 1") "
  if [ -n "$old" ]; then
    r[old-nohit]+="$(measure "$work/ax-old" --root "$work/fts-old-plain" memory search zzzqqq) "
    r[old-deadlock]+="$(measure "$work/ax-old" --root "$work/fts-old-plain" memory search "deadlock queue") "
  fi
done
declare -A label=([hello]="Go hello-world" [version]="agentx-hook version" [nohit]="memory search, no hit" \
  [deadlock]="memory search \"deadlock queue\"" [sqlite]="sqlite3 \"deadlock queue\"" [sqlite1]="sqlite3 'select 1'" \
  [old-nohit]="old binary: memory search, no hit" [old-deadlock]="old binary: memory search \"deadlock queue\"")
for n in "${names[@]}"; do printf '%-45s %s ms CPU\n' "${label[$n]}" "$(echo "${r[$n]}" | median)"; done
