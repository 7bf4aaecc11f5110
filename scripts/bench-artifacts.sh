#!/usr/bin/env bash
# Issue 33 item 6: hook start and the post-commit hook of this tree against
# a base binary (main), interleaved, on seed 004's large project: 2,000
# artifacts over 500 issues beside 20,000 observations
# (docs/performance-history.md, "Stage artifacts (issue 33)").
#   (cd /work/main && go build -o /tmp/base-agentx-hook ./cmd/agentx-hook)
#   scripts/bench-artifacts.sh /tmp/base-agentx-hook [RUNS]
# Prints, per command, the median wall time and the median CPU time
# (user+sys of the process and the git it waited for) of each binary and
# their ratio. Needs python3 and git.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1
runs=${2:-40}
work=$(mktemp -d)
cp "$base" "$work/main-hook"
go build -o "$work/new-hook" ./cmd/agentx-hook
ws=$work/ws
mkdir -p "$ws" && cd "$ws"
git init -q -b 42-login
git config user.email bench@example.com && git config user.name bench
"$work/new-hook" init >/dev/null
"$work/new-hook" memory generate --observations 20000 --issues 500 --into-store >/dev/null
"$work/new-hook" artifact generate --issues 500
mkdir -p docs/specs src
echo spec >docs/specs/SPEC-42.md
git add docs && git commit -qm 'SPEC for login'
"$work/new-hook" git-hook post-commit 2>/dev/null
echo code >src/x.go && git add src && git commit -qm 'code'
export BENCH_DIR=$work BENCH_RUNS=$runs
python3 - <<'PY'
import os, statistics, subprocess, time
d, n = os.environ["BENCH_DIR"], int(os.environ["BENCH_RUNS"])
env = dict(os.environ, AGENTX_AGENT="", AGENTX_ISSUE="")
def run(b, args):
    t = time.perf_counter()
    p = subprocess.Popen([f"{d}/{b}-hook"] + args, cwd=f"{d}/ws", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    assert status == 0, (b, args)
    return (time.perf_counter() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000
for name, args in (("hook start", ["hook", "start", "--agent", "architect", "--issue", "42"]),
                   ("post-commit (a code commit)", ["git-hook", "post-commit"])):
    wall, cpu = {"main": [], "new": []}, {"main": [], "new": []}
    for i in range(n):
        for b in (("main", "new") if i % 2 == 0 else ("new", "main")):
            w, c = run(b, args)
            wall[b].append(w); cpu[b].append(c)
    for k, v in (("wall", wall), ("cpu", cpu)):
        m, x = statistics.median(v["main"]), statistics.median(v["new"])
        print(f"{name:28s} {k:4s} N={n}: main {m:7.1f} ms  new {x:7.1f} ms  ratio {x/m:.3f}")
PY
