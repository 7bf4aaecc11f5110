#!/usr/bin/env bash
# Process start against a Go hello-world built the same way (issue 25 item
# 4; docs/performance-history.md, "Process start against a hello-world"): `version`
# and `monitor` over 5 issues, as ratios of medians in one interleaved run,
# then the package initialisers by cost (GODEBUG=inittrace=1, median of
# RUNS_INIT runs). Needs python3.
#   scripts/bench-start.sh [OLD_AGENTX_HOOK] [WORKDIR]
# With OLD_AGENTX_HOOK (e.g. built at an earlier commit with the same flags)
# old and new run interleaved in the same run. RUNS rounds (default 1000).
set -euo pipefail
cd "$(dirname "$0")/.."
lib=$PWD/scripts/lib # interleave.py: the interleaved timing loop
old=${1:-}
work=${2:-$(mktemp -d)}
runs=${RUNS:-1000}
mkdir -p "$work/hello"
flags=(-trimpath -ldflags="-s -w")
CGO_ENABLED=0 go build "${flags[@]}" -o "$work/new.built" ./cmd/agentx-hook
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$work/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$work/hello/go.mod"
(cd "$work/hello" && CGO_ENABLED=0 go build "${flags[@]}" -o "$work/hello.built" .)
# Every binary is run from a copy made with cp: a file the linker wrote
# starts 0.3-0.5 ms slower than the same bytes written by cp (the page
# cache's pages of the file differ; same count of page faults, dearer
# ones), which would otherwise favour whichever binary was copied.
cp "$work/hello.built" "$work/hello-world"
cp "$work/new.built" "$work/new"
bins=(new)
if [ -n "$old" ]; then
  cp "$old" "$work/old"
  bins=(old new)
fi
cd "$work"
rm -rf ws5 && mkdir ws5 && ./new --root ws5 init >/dev/null
for i in 1 2 3 4 5; do
  for j in 1 2 3; do
    ./new --root ws5 clarify request --issue "$i" --from engineer --to architect --non-blocking \
      --topic "topic $i $j" --question "Question $j about issue $i?" >/dev/null
  done
done
cmds=(./hello-world)
for b in "${bins[@]}"; do
  rm -rf "ws5-$b" && cp -r ws5 "ws5-$b"
  cmds+=("./$b version" "./$b --root ws5-$b monitor")
done
uptime
# Interleaved rounds (every command once per round, in a shuffled order),
# so that a change of load hits all alike; wall time and CPU time (user +
# system, from wait4) of each run, medians.
cat >bench.py <<'PY'
import statistics, sys
from interleave import measure
runs, cmds = int(sys.argv[1]), sys.argv[2:]
wall, cpu = measure(cmds, runs, 20)
base_w, base_c = statistics.median(wall[cmds[0]]), statistics.median(cpu[cmds[0]])
print("| command | wall, median | ratio | CPU (user + system), median | ratio |")
print("|---|---:|---:|---:|---:|")
for c in cmds:
    w, u = statistics.median(wall[c]), statistics.median(cpu[c])
    print("| `%s` | %.2f ms | %.2f | %.2f ms | %.2f |" % (c, w * 1e3, w / base_w, u * 1e3, u / base_c))
PY
PYTHONPATH="$lib" python3 bench.py "$runs" "${cmds[@]}"
uptime
for b in hello-world "${bins[@]}"; do
  echo "== package initialisers of $b (median of ${RUNS_INIT:-21} runs)"
  for _ in $(seq 1 "${RUNS_INIT:-21}"); do GODEBUG=inittrace=1 "./$b" version 2>&1 >/dev/null | grep '^init '; done |
    python3 -c '
import sys, statistics
d = {}
for l in sys.stdin:
    f = l.split()
    d.setdefault(f[1], []).append((float(f[4]), int(f[7]), int(f[9])))
rows = sorted(((statistics.median(v[0] for v in vs), vs[0][1], vs[0][2], p) for p, vs in d.items()), reverse=True)
for ms, b, a, p in rows[:int(sys.argv[1])]:
    print("%-58s %6.3f ms %7d B %5d allocs" % (p, ms, b, a))
print("%-58s %6.3f ms %7d B %5d allocs (%d packages)" % ("all", sum(r[0] for r in rows), sum(r[1] for r in rows), sum(r[2] for r in rows), len(rows)))
' "${TOP:-15}"
done
