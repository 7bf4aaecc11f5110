#!/usr/bin/env bash
# memory search at 100K observations against SQLite FTS5 (porter tokenizer,
# optimised index, the same corpus), and after a foreign edit of one issue
# file (docs/PERFORMANCE.md, issue 35). CPU of each process (user+sys, from
# its rusage), median of RUNS, the three interleaved.
#   scripts/bench-fts.sh WORKDIR      (WORKDIR/ws100000 from bench-scale.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: bench-fts.sh WORKDIR}
runs=${RUNS:-21}
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing (apt-get install sqlite3)"; exit 1; }
# Run from a cp copy: a file the linker wrote starts slower (scripts/bench-start.sh).
go build -trimpath -o "$work/ax-new.built" ./cmd/agentx-hook
cp "$work/ax-new.built" "$work/ax-new"
ws="$work/ws100000"
[ -f "$ws/.agentx/memory/issue-7.json" ] || { echo "no $ws: run scripts/bench-scale.sh $work first"; exit 1; }
db="$work/fts100k.db"
if [ ! -f "$db" ]; then
  python3 - "$ws" "$db" <<'PY'
import json, glob, sqlite3, sys
root, db = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
c.execute("CREATE VIRTUAL TABLE obs USING fts5(id UNINDEXED, agent UNINDEXED, issue UNINDEXED, category UNINDEXED, timestamp UNINDEXED, tokens UNINDEXED, summary, content, tokenize='porter')")
for f in glob.glob(root + "/.agentx/memory/issue-*.json"):
    for o in json.load(open(f))["observations"]:
        c.execute("INSERT INTO obs VALUES (?,?,?,?,?,?,?,?)", (o["id"], o["agent"], o["issueNumber"], o["category"], o["timestamp"], o["tokens"], o["summary"], o["content"]))
c.commit(); c.execute("INSERT INTO obs(obs) VALUES('optimize')"); c.commit()
PY
fi
# Two hard-linked copies: one as generated, one with issue-7.json edited in
# place of agentx (a hand edit: a new file renamed over it, as sed -i does).
for c in plain edited; do
  rm -rf "$work/fts-$c"; cp -al "$ws" "$work/fts-$c"
  rm -rf "$work/fts-$c/.agentx/state"; cp -a "$ws/.agentx/state" "$work/fts-$c/.agentx/state"
  for f in "$ws"/.agentx/*.jsonl; do [ -e "$f" ] && { rm -f "$work/fts-$c/.agentx/${f##*/}"; cp -a "$f" "$work/fts-$c/.agentx/"; }; done
done
# Laid out as this binary keeps a store (the generator's may be older),
# after both copies exist: a hard link changes every shared inode's ctime,
# which the anchors' record of the files notices (each hit re-checked).
for c in plain edited; do "$work/ax-new" --root "$work/fts-$c" memory rebuild >/dev/null 2>&1; done
sed -i 's/"content": "/"content": "Edited by hand: /' "$work/fts-edited/.agentx/memory/issue-7.json"
for c in plain edited; do "$work/ax-new" --root "$work/fts-$c" memory search warm >/dev/null 2>&1 || true; done

measure() {
  python3 - "$@" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, _, ru = os.wait4(pid, 0)
print("%.2f" % ((ru.ru_utime + ru.ru_stime) * 1000))
PY
}
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
sqlite=$(command -v sqlite3)
for q in "token refresh" "deadlock queue" "cache redis"; do
  set -- $q
  sql="SELECT id, issue, agent, category, substr(timestamp,1,10), summary, tokens FROM obs WHERE obs MATCH '$1 OR $2' ORDER BY bm25(obs) LIMIT 20"
  a=() s=() e=()
  for i in $(seq 1 "$runs"); do
    a+=("$(measure "$work/ax-new" --root "$work/fts-plain" memory search "$q")")
    s+=("$(measure "$sqlite" "$db" "$sql")")
    e+=("$(measure "$work/ax-new" --root "$work/fts-edited" memory search "$q")")
  done
  ma=$(printf '%s\n' "${a[@]}" | median); ms=$(printf '%s\n' "${s[@]}" | median); me=$(printf '%s\n' "${e[@]}" | median)
  echo "search \"$q\": agentx $ma ms CPU, sqlite3 FTS5 $ms ms, agentx after a foreign edit $me ms; ratios $(awk -v a="$ma" -v s="$ms" -v e="$me" 'BEGIN{printf "%.2fx and %.2fx", a/s, e/s}')"
done
