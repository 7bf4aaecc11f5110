#!/usr/bin/env bash
# Scaling rows of `sync` (nothing changed) and `monitor` at 10, 100, 1,000
# and 10,000 ledgers (issue 35; docs/performance-history.md, "Everyday commands on
# their floors"): CPU (user + system), wall and peak memory (maxrss) of
# each, medians of RUNS interleaved rounds (default 21), `sync` beside git
# moving the same branch (`git fetch` + `git push` of the state branch,
# nothing to move) in the same rounds.
#   scripts/bench-floors-scale.sh [OLD_AGENTX_HOOK] [WORKDIR]
# SIZES overrides the ledger counts ("10 100 1000 10000"). Each size is a
# bare remote and a clone whose state branch holds N ledgers (5 records
# each, genledgers); the generated state is kept in WORKDIR and reused.
# Both binaries run on the same clone, so a sync by one invalidates the
# other's clean record (.git/agentx/clean-*): with OLD the syncs of both
# are full checks; measure the clean path without OLD.
# Needs git, python3, a C compiler (cc) and the Go toolchain. Peak memory
# is read by a small C spawner: a child spawned by python itself would
# report python's own resident size (maxrss survives exec).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:-}
work=${2:-$(mktemp -d)}
mkdir -p "$work" && work=$(cd "$work" && pwd)
runs=${RUNS:-21}
sizes=${SIZES:-10 100 1000 10000}
export GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE) GOPATH=$(go env GOPATH)
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" NO_COLOR=1
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com
git config --global init.defaultBranch main
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/new.built" ./cmd/agentx-hook
# Run from a copy made with cp, like OLD (see scripts/bench-start.sh: a
# file the linker wrote starts 0.3-0.5 ms slower than the same bytes
# written by cp).
cp "$work/new.built" "$work/new"
go build -o "$work/genledgers" ./internal/tools/genledgers
[ -n "$old" ] && cp "$old" "$work/old"
cat >"$work/spawn.c" <<'C'
/* spawn OUT CMD...: runs CMD, writes "user_us sys_us maxrss_kb" to OUT. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
  pid_t pid = fork();
  if (pid == 0) { execvp(argv[2], argv + 2); _exit(127); }
  int st; struct rusage ru;
  if (wait4(pid, &st, 0, &ru) < 0) return 1;
  FILE *f = fopen(argv[1], "w");
  fprintf(f, "%ld %ld %ld\n", ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
          ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec, ru.ru_maxrss);
  fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
C
cc -O2 -o "$work/spawn" "$work/spawn.c"
ax="$work/new"
tracking=refs/remotes/origin/agentx/state
for n in $sizes; do
  d="$work/n$n"
  if [ ! -f "$d/done" ]; then
    rm -rf "$d" && mkdir -p "$d"
    git init -q --bare "$d/remote.git"
    git init -q "$d/seed"
    "$ax" --root "$d/seed" init --mode github >/dev/null
    git -C "$d/seed" add .agentx
    git -C "$d/seed" commit -q -m "agentx: GitHub Mode"
    git -C "$d/seed" push -q "$d/remote.git" main
    git clone -q "$d/remote.git" "$d/a"
    open=$((n / 20)); [ "$open" -lt 1 ] && open=1
    "$work/genledgers" -root "$d/a" -issues "$n" -records $((5 * n)) -open "$open" >/dev/null
    "$ax" --root "$d/a" sync >/dev/null
    "$ax" --root "$d/a" monitor >/dev/null # its first run escalates what is due
    "$ax" --root "$d/a" sync >/dev/null
    touch "$d/done"
  fi
  # Past the 2 s racy margin, one sync records the clean state.
  sleep 2.1
  "$ax" --root "$d/a" sync >/dev/null
done
echo "== $(git --version); $(nproc) cores; load: $(uptime | sed 's/.*load average: //')"
cat >"$work/bench.py" <<'PY'
import os, random, statistics, sys
runs, work, sizes, old = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(), sys.argv[4] == "1"
null = os.open(os.devnull, os.O_WRONLY)
import time
out = work + "/spawn.out"
def spawn(argv):
    # Wall from here (the spawner's own start, about 0.3 ms, is in every
    # command's alike); CPU and peak memory of the command alone.
    argv = [work + "/spawn", out] + argv
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status, _ = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed" % " ".join(argv))
    u, s, rss = map(int, open(out).read().split())
    return wall, (u + s) / 1e6, rss
def run(steps):
    w = c = m = 0
    for argv in steps:
        a, b, r = spawn(argv)
        w, c, m = w + a, c + b, max(m, r)
    return w, c, m
tracking = "refs/remotes/origin/agentx/state"
for n in sizes:
    a = "%s/n%s/a" % (work, n)
    git = [["git", "-C", a, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "origin", "+refs/heads/agentx/state:" + tracking],
           ["git", "-C", a, "push", "--quiet", "--porcelain", "--no-verify", "origin", tracking + ":refs/heads/agentx/state"]]
    cmds = {"git fetch + git push": git}
    for b in (["old", "new"] if old else ["new"]):
        cmds["%s sync" % b] = [["%s/%s" % (work, b), "--root", a, "sync"]]
        cmds["%s monitor" % b] = [["%s/%s" % (work, b), "--root", a, "monitor"]]
    for c in list(cmds) * 3:  # warm-up
        run(cmds[c])
    res = {c: [] for c in cmds}
    for _ in range(runs):
        order = list(cmds)
        random.shuffle(order)
        for c in order:
            res[c].append(run(cmds[c]))
    med = lambda c, i: statistics.median(r[i] for r in res[c])
    gw, gc = med("git fetch + git push", 0), med("git fetch + git push", 1)
    for c in cmds:
        ratio = " (%.2fx git wall, %.2fx CPU)" % (med(c, 0) / gw, med(c, 1) / gc) if "sync" in c else ""
        print("| %s | %s | %.1f ms | %.1f ms | %.1f MB |%s" % (n, c, med(c, 1) * 1e3, med(c, 0) * 1e3, med(c, 2) / 1024, ratio))
    sys.stdout.flush()
PY
echo "| ledgers | command | CPU, median | wall, median | peak RSS, median | |"
echo "|---:|---|---:|---:|---:|---|"
python3 "$work/bench.py" "$runs" "$work" "$sizes" "$([ -n "$old" ] && echo 1 || echo 0)"
echo "== load after: $(uptime | sed 's/.*load average: //')"
