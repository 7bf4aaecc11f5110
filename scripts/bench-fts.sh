#!/usr/bin/env bash
# memory search at 100K observations against SQLite FTS5 (porter tokenizer,
# optimised index, the same corpus), and after a foreign edit of one issue
# file (docs/PERFORMANCE.md, issue 35). CPU of each process (user+sys, from
# its rusage), median of RUNS, the three interleaved.
#   scripts/bench-fts.sh WORKDIR      (WORKDIR/ws100000 from bench-scale.sh)
#   OLD=BINARY scripts/bench-fts.sh WORKDIR   also that binary, interleaved,
#                                     on copies of its own (its own layout
#                                     and configuration cache)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: bench-fts.sh WORKDIR}
runs=${RUNS:-21}
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing (apt-get install sqlite3)"; exit 1; }
# Run from a cp copy: a file the linker wrote starts slower (scripts/bench-start.sh).
go build -trimpath -o "$work/ax-new.built" ./cmd/agentx-hook
cp "$work/ax-new.built" "$work/ax-new"
sides=(new)
if [ -n "${OLD:-}" ]; then cp "$OLD" "$work/ax-old"; sides+=(old); fi
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
# Two hard-linked copies per binary: one as generated, one with
# issue-7.json edited in place of agentx (a hand edit: a new file renamed
# over it, as sed -i does).
copies=()
for b in "${sides[@]}"; do for c in plain edited; do copies+=("$b-$c"); done; done
for c in "${copies[@]}"; do
  rm -rf "$work/fts-$c"; cp -al "$ws" "$work/fts-$c"
  rm -rf "$work/fts-$c/.agentx/state"; cp -a "$ws/.agentx/state" "$work/fts-$c/.agentx/state"
  for f in "$ws"/.agentx/*.jsonl; do [ -e "$f" ] && { rm -f "$work/fts-$c/.agentx/${f##*/}"; cp -a "$f" "$work/fts-$c/.agentx/"; }; done
  # The .gitignore a workspace of today has (doctor's fix; the generator's
  # may be older): without .config-cache in it the configuration cache is
  # never written, and every command parses the TOML files. A new file,
  # not an append: the copy's is a hard link to the generator's.
  gi="$work/fts-$c/.agentx/.gitignore"
  { cat "$gi"; for n in state/inbox/ .artifact-index search.delta anchors.idx anchors.state .config-cache; do grep -qxF "$n" "$gi" || echo "$n"; done; } >"$gi.new"
  rm -f "$gi"; mv "$gi.new" "$gi"
done
# Laid out as each binary keeps a store (the generator's may be older),
# after all copies exist: a hard link changes every shared inode's ctime,
# which the anchors' record of the files notices (each hit re-checked).
for c in "${copies[@]}"; do "$work/ax-${c%%-*}" --root "$work/fts-$c" memory rebuild >/dev/null 2>&1; done
for b in "${sides[@]}"; do sed -i 's/"content": "/"content": "Edited by hand: /' "$work/fts-$b-edited/.agentx/memory/issue-7.json"; done
# Past the racy margins (the freshness record's, the configuration
# cache's: 2 s) before the warming searches, so that they can record.
sleep 2.5
for c in "${copies[@]}"; do "$work/ax-${c%%-*}" --root "$work/fts-$c" memory search warm >/dev/null 2>&1 || true; done

. scripts/lib/measure.sh # measure CMD ARGS: one run's CPU, ms
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
sqlite=$(command -v sqlite3)
for q in "token refresh" "deadlock queue" "cache redis"; do
  set -- $q
  sql="SELECT id, issue, agent, category, substr(timestamp,1,10), summary, tokens FROM obs WHERE obs MATCH '$1 OR $2' ORDER BY bm25(obs) LIMIT 20"
  a=() s=() e=() oa=() oe=()
  for i in $(seq 1 "$runs"); do
    a+=("$(measure "$work/ax-new" --root "$work/fts-new-plain" memory search "$q")")
    s+=("$(measure "$sqlite" "$db" "$sql")")
    e+=("$(measure "$work/ax-new" --root "$work/fts-new-edited" memory search "$q")")
    if [ -n "${OLD:-}" ]; then
      oa+=("$(measure "$work/ax-old" --root "$work/fts-old-plain" memory search "$q")")
      oe+=("$(measure "$work/ax-old" --root "$work/fts-old-edited" memory search "$q")")
    fi
  done
  ma=$(printf '%s\n' "${a[@]}" | median); ms=$(printf '%s\n' "${s[@]}" | median); me=$(printf '%s\n' "${e[@]}" | median)
  echo "search \"$q\": agentx $ma ms CPU, sqlite3 FTS5 $ms ms, agentx after a foreign edit $me ms; ratios $(awk -v a="$ma" -v s="$ms" -v e="$me" 'BEGIN{printf "%.2fx and %.2fx", a/s, e/s}')"
  if [ -n "${OLD:-}" ]; then
    oma=$(printf '%s\n' "${oa[@]}" | median); ome=$(printf '%s\n' "${oe[@]}" | median)
    echo "  old binary: $oma ms CPU, after a foreign edit $ome ms; ratios $(awk -v a="$oma" -v s="$ms" -v e="$ome" 'BEGIN{printf "%.2fx and %.2fx", a/s, e/s}')"
  fi
done
