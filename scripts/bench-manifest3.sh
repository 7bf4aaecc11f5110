#!/usr/bin/env bash
# The file base against the manifest base at 100K observations (issue 35,
# branch manifest3): `memory search`, `hook start` and one capture (`memory
# add`), CPU (user + system, from wait4) and wall, medians of RUNS
# interleaved rounds (each round runs every command once, shuffled).
#   scripts/bench-manifest3.sh OLD_AGENTX_HOOK [STORE] [WORKDIR]
# STORE is a workspace of 100K generated observations (default
# /tmp/store-bench/ws100000, as scripts/bench-scale.sh makes it); it is
# never written: each binary works on a hard-linked copy (agentx replaces
# files by rename) with a real copy of .agentx/state (appended in place).
# Each copy is rebuilt by its binary first (`memory rebuild`, untimed: the
# new one's is converted to its layout), then warmed by one search and one
# hook start.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench-manifest3.sh OLD_AGENTX_HOOK [STORE] [WORKDIR]}
ws=${2:-/tmp/store-bench/ws100000}
work=${3:-$(mktemp -d)}
runs=${RUNS:-15}
# Both binaries run from copies made with cp: a file the linker wrote
# starts 0.3-0.5 ms slower than the same bytes written by cp
# (scripts/bench-start.sh), which would favour the old one.
go build -trimpath -o "$work/ax-new.built" ./cmd/agentx-hook
cp "$work/ax-new.built" "$work/ax-new"
cp "$old" "$work/ax-old"
for b in old new; do
  rm -rf "$work/run-$b"; cp -al "$ws" "$work/run-$b"
  rm -rf "$work/run-$b/.agentx/state"; cp -a "$ws/.agentx/state" "$work/run-$b/.agentx/state"
  for f in "$ws"/.agentx/*.jsonl; do [ -e "$f" ] && { rm -f "$work/run-$b/.agentx/${f##*/}"; cp -a "$f" "$work/run-$b/.agentx/"; }; done
done
# Each copy rebuilt by its own binary (untimed): the new one converted to
# its layout, and both bases freshly written alike (page cache, layout).
for b in old new; do "$work/ax-$b" --root "$work/run-$b" memory rebuild >/dev/null 2>&1; done
for b in old new; do
  "$work/ax-$b" --root "$work/run-$b" memory search "token refresh" >/dev/null 2>&1 || true
  "$work/ax-$b" --root "$work/run-$b" hook start --agent engineer --issue 7 --deadline 60s >/dev/null 2>&1 || true
done
for b in old new; do
  printf '%s store: ' "$b"
  find "$work/run-$b/.agentx/memory" -maxdepth 1 -type f \( -name manifest.json -o -name 'search.*' \) -printf '%f %s  ' ; echo
done
uptime
python3 - "$work" "$runs" <<'PY'
import os, random, statistics, sys, time
work, runs = sys.argv[1], int(sys.argv[2])
null = os.open(os.devnull, os.O_WRONLY)
def run(argv):
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed" % argv)
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime
def argv(b, cmd, i):
    ax, root = "%s/ax-%s" % (work, b), "%s/run-%s" % (work, b)
    if cmd == "search":
        return [ax, "--root", root, "memory", "search", "token refresh"]
    if cmd == "hook start":
        return [ax, "--root", root, "hook", "start", "--agent", "engineer", "--issue", "7", "--deadline", "60s"]
    return [ax, "--root", root, "memory", "add", "--agent", "engineer", "--issue", str(1 + i % 2000), "--category", "key-fact",
            "Bench capture %d of %s: the cache layer retries three times before failing over" % (i, b)]
keys = [(b, c) for c in ("search", "hook start", "capture") for b in ("old", "new")]
wall = {k: [] for k in keys}; cpu = {k: [] for k in keys}
for i in range(runs):
    order = keys[:]; random.shuffle(order)
    for k in order:
        w, c = run(argv(k[0], k[1], i))
        wall[k].append(w); cpu[k].append(c)
print("| command | binary | CPU ms, median | wall ms, median | CPU new/old |")
print("|---|---|---:|---:|---:|")
for b, c in keys:
    m = statistics.median(cpu[(b, c)]) * 1e3
    ratio = "%.2f" % (m / (statistics.median(cpu[("old", c)]) * 1e3)) if b == "new" else ""
    print("| %s | %s | %.1f | %.1f | %s |" % (c, b, m, statistics.median(wall[(b, c)]) * 1e3, ratio))
PY
uptime
