#!/usr/bin/env bash
# Issue 33, the cost of reading the artifact ledgers: `ready` and `monitor`
# (and, re-checked, `hook start` and the post-commit hook) of this tree
# against two base binaries, interleaved in one run, on seed 004's large
# project (2,000 artifacts over 500 issues beside 20,000 observations) and
# on the same workspace without artifacts.
#   d=$(mktemp -d); git archive c88c27d | tar -x -C $d; (cd $d && go build -o /tmp/pre-hook ./cmd/agentx-hook)
#   d=$(mktemp -d); git archive 3e5a225 | tar -x -C $d; (cd $d && go build -o /tmp/before-hook ./cmd/agentx-hook)
#   scripts/bench-artifact-scan.sh /tmp/pre-hook /tmp/before-hook [RUNS]
# pre: before artifacts existed; before: artifacts, every ledger decoded by
# each ready and monitor. Prints, per command and workspace, the median
# wall and CPU time (user+sys of the process and the git it waited for)
# of each binary and its ratio to pre, then the instructions `ready` and
# `monitor` execute (valgrind --tool=callgrind, median of 3: the same count
# whatever the load of the machine, unlike its times). Needs python3, git and valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
pre=$1
before=$2
runs=${3:-30}
work=$(mktemp -d)
cp "$pre" "$work/pre-hook"
cp "$before" "$work/before-hook"
go build -o "$work/new-hook" ./cmd/agentx-hook
for ws in none art; do
	mkdir -p "$work/$ws" && cd "$work/$ws"
	git init -q -b 42-login
	git config user.email bench@example.com && git config user.name bench
	"$work/new-hook" init >/dev/null
	"$work/new-hook" memory generate --observations 20000 --issues 500 --into-store >/dev/null
	if [ "$ws" = art ]; then
		"$work/new-hook" artifact generate --issues 500 >/dev/null
		# The 300 stale artifacts announced once (100 clarifications), as
		# on any workspace after its first monitor.
		"$work/new-hook" monitor >/dev/null
	fi
	mkdir -p src && echo code >src/x.go && git add src && git commit -qm 'code'
	cd - >/dev/null
done
sleep 3 # past the racy window: the ledgers' identities may stand for them
export BENCH_DIR=$work BENCH_RUNS=$runs
python3 - <<'PY'
import os, statistics, subprocess, time
d, n = os.environ["BENCH_DIR"], int(os.environ["BENCH_RUNS"])
env = dict(os.environ, AGENTX_AGENT="", AGENTX_ISSUE="")
bins = ("pre", "before", "new")
def run(b, ws, args):
    t = time.perf_counter()
    p = subprocess.Popen([f"{d}/{b}-hook"] + args, cwd=f"{d}/{ws}", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    assert status == 0, (b, args)
    return (time.perf_counter() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000
cmds = (("ready", ["ready"]), ("monitor", ["monitor"]),
        ("hook start", ["hook", "start", "--agent", "architect", "--issue", "42"]),
        ("post-commit", ["git-hook", "post-commit"]))
for ws in ("none", "art"):
    for name, args in cmds:
        wall, cpu = {b: [] for b in bins}, {b: [] for b in bins}
        for i in range(n):
            for b in (bins if i % 2 == 0 else bins[::-1]):
                w, c = run(b, ws, args)
                wall[b].append(w); cpu[b].append(c)
        m = {b: (statistics.median(wall[b]), statistics.median(cpu[b])) for b in bins}
        line = "  ".join(f"{b} {m[b][0]:6.1f}/{m[b][1]:6.1f}" for b in bins)
        print(f"{name:12s} {ws:4s} N={n} wall/cpu ms: {line}  new/pre cpu {m['new'][1]/m['pre'][1]:.3f}  new/before cpu {m['new'][1]/m['before'][1]:.3f}", flush=True)
import re
genv = dict(env, GODEBUG="asyncpreemptoff=1") # callgrind loses track of Go's preemption signals
def instructions(b, ws, args):
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"{d}/{b}-hook"] + args,
                       cwd=f"{d}/{ws}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=genv, text=True)
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))
for ws in ("none", "art"):
    for name, args in cmds[:2]: # callgrind aborts on the signals hook start and post-commit handle
        m = {b: statistics.median(instructions(b, ws, args) for _ in range(3)) for b in bins}
        line = "  ".join(f"{b} {m[b]/1e6:7.1f}M" for b in bins)
        print(f"{name:12s} {ws:4s} instructions: {line}  new/pre {m['new']/m['pre']:.3f}  new/before {m['new']/m['before']:.3f}", flush=True)
PY
rm -rf "$work"
