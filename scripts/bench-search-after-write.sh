#!/usr/bin/env bash
# `memory search` right after a write (within the freshness gate's racy
# window, memory/fresh.go: 100 ms on file systems with sub-second times)
# against the same search a second later, and `hook start` right after a
# write and the hook start after it, and after a session's hook finish,
# on a store from
# scripts/bench-scale.sh. CPU (user+sys) medians of RUNS rounds.
#   scripts/bench-search-after-write.sh WORKDIR [SIZE]
# TAG (default aw) names the binary and the run copy under WORKDIR, so two
# runs on one machine do not share them.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: bench-search-after-write.sh WORKDIR [SIZE]}
n=${2:-1000000}
runs=${RUNS:-5}
tag=${TAG:-aw}
ws="$work/ws$n"
[ -f "$ws/.agentx/memory/search.idx" ] || { echo "no $ws: run scripts/bench-scale.sh $work first"; exit 1; }
go build -trimpath -o "$work/ax-$tag.built" ./cmd/agentx-hook
cp "$work/ax-$tag.built" "$work/ax-$tag"
ax="$work/ax-$tag"
d="$work/run-$tag"
rm -rf "$d"; cp -al "$ws" "$d"
rm -rf "$d/.agentx/state"; cp -a "$ws/.agentx/state" "$d/.agentx/state"
for f in "$ws"/.agentx/*.jsonl; do [ -e "$f" ] && { rm -f "$d/.agentx/${f##*/}"; cp -a "$f" "$d/.agentx/"; }; done
"$ax" --root "$d" memory rebuild >/dev/null 2>&1
rm -f "$d/.agentx/memory/anchors.state" "$d/.agentx/memory/anchors.idx" "$d/.agentx/memory/pending/anchors.state" "$d/.agentx/memory/pending/anchors.idx"
"$ax" --root "$d" memory search "token refresh" >/dev/null 2>&1 || true
"$ax" --root "$d" hook start --agent engineer --issue 7 --deadline 60s >/dev/null 2>&1 || true
python3 - "$ax" "$d" "$runs" <<'PY'
import os, statistics, sys, time
ax, root, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
null = os.open(os.devnull, os.O_WRONLY)
def cpu(argv):
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, st, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit("%s failed" % argv)
    return (ru.ru_utime + ru.ru_stime) * 1e3
search = [ax, "--root", root, "memory", "search", "token refresh"]
start = [ax, "--root", root, "hook", "start", "--agent", "engineer", "--issue", "7", "--deadline", "60s"]
def add(i):
    cpu([ax, "--root", root, "memory", "add", "--agent", "engineer", "--issue", str(1 + i), "--category", "key-fact", "probe %d: the cache layer retries" % i])
right, later, steady = [], [], []
hright, hnext, hthird = [], [], []
for i in range(runs):
    add(2 * i)
    right.append(cpu(search))
    time.sleep(1)
    later.append(cpu(search))
    steady.append(cpu(search))
    add(2 * i + 1)
    time.sleep(1)  # past the racy window: what a session start after a capture sees
    hright.append(cpu(start))
    hnext.append(cpu(start))
    hthird.append(cpu(start))
finish = [ax, "--root", root, "hook", "finish", "--agent", "engineer", "--issue", "7"]
sfirst, snext = [], []
for i in range(runs):
    # A session: start, finish (recall journal folded, retention's slice),
    # then the next session's starts.
    cpu(start)
    cpu(finish)
    time.sleep(1)
    sfirst.append(cpu(start))
    snext.append(cpu(start))
m = statistics.median
print("search right after a write: %.1f ms CPU; a second later: %.1f ms; the next: %.1f ms (medians of %d)" % (m(right), m(later), m(steady), runs))
print("hook start a second after a write: %.1f ms CPU; the next: %.1f ms; the third: %.1f ms (medians of %d)" % (m(hright), m(hnext), m(hthird), runs))
print("hook start a second after a session's hook finish: %.1f ms CPU; the next: %.1f ms (medians of %d)" % (m(sfirst), m(snext), runs))
PY
