#!/usr/bin/env bash
# The memory store's scaling table (docs/PERFORMANCE.md, issue 35): search,
# hook start, one capture (memory add) and verify at 1K, 10K, 100K and 1M
# observations, CPU (user+sys), wall and peak memory from /usr/bin/time -v,
# median of RUNS runs, each binary's runs interleaved on the same stores.
#   scripts/bench-scale.sh WORKDIR [OLD_BINARY] [SIZES]
# CMDS="search|capture" measures only those. WARMUP=1 makes each copy's
# anchors index current and runs each binary once before timing.
# WORKDIR keeps the generated stores (1M takes about 15 minutes to make on
# a loaded 2-core machine; they are reused). Each binary works on its own
# hard-linked copy of a store: every write agentx makes replaces files by
# rename, so the copies never share a changed file.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: bench-scale.sh WORKDIR [OLD_BINARY] [SIZES]}
old=${2:-}
sizes=${3:-"1000 10000 100000 1000000"}
runs=${RUNS:-5}
mkdir -p "$work"
go build -trimpath -o "$work/ax-new" ./cmd/agentx-hook
bins=(new)
[ -n "$old" ] && { [ "$old" -ef "$work/ax-old" ] || cp "$old" "$work/ax-old"; bins=(old new); }

# measure CMD...: one run; prints "cpu_ms wall_ms rss_kb". The figures are
# the child's rusage, what /usr/bin/time -v prints, read with wait4 in
# microseconds (GNU time rounds CPU and wall to 10 ms).
measure() {
  python3 - "$@" <<'PY'
import os, sys, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, _, ru = os.wait4(pid, 0)
wall = (time.monotonic() - t0) * 1000
print("%.1f %.1f %d" % ((ru.ru_utime + ru.ru_stime) * 1000, wall, ru.ru_maxrss))
PY
}
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

printf '| observations | command | binary | CPU ms | wall ms | peak RSS MB |\n|---|---|---|---|---|---|\n'
for n in $sizes; do
  ws="$work/ws$n"
  if [ ! -f "$ws/.agentx/memory/manifest.json" ]; then
    rm -rf "$ws"; mkdir -p "$ws"; "$work/ax-new" --root "$ws" init >/dev/null
    "$work/ax-new" --root "$ws" memory generate --observations "$n" --issues $((n / 50)) --seed 1 --into-store >/dev/null
  fi
  for b in "${bins[@]}"; do
    rm -rf "$work/run-$b"; cp -al "$ws" "$work/run-$b"
    # What is appended in place (trail, events, metrics, hook log) is copied.
    rm -rf "$work/run-$b/.agentx/state"; cp -a "$ws/.agentx/state" "$work/run-$b/.agentx/state"
    for f in "$ws"/.agentx/*.jsonl; do [ -e "$f" ] && { rm -f "$work/run-$b/.agentx/${f##*/}"; cp -a "$f" "$work/run-$b/.agentx/"; }; done
  done
  if [ -n "${WARMUP:-}" ]; then
    # A hard-linked copy changes every shared file's change time, which the
    # anchors index's verdicts are keyed on: without this, each search of
    # every copy judges its hits' issue files again (a reader never saves
    # verdicts), which no workspace left alone pays. The anchors index is
    # made again from the trail once per copy, untimed, then one search
    # and one hook start warm the store as a user's runs would.
    for b in "${bins[@]}"; do
      rm -f "$work/run-$b/.agentx/memory/anchors.state" "$work/run-$b/.agentx/memory/anchors.idx"
      "$work/ax-$b" --root "$work/run-$b" memory search "token refresh" >/dev/null 2>&1 || true
      "$work/ax-$b" --root "$work/run-$b" hook start --agent engineer --issue 7 --deadline 60s >/dev/null 2>&1 || true
    done
  fi
  r=$runs; [ "$n" -ge 1000000 ] && r=3
  IFS='|' read -r -a cmds <<<"${CMDS:-search|hook start|capture|verify}"
  for cmd in "${cmds[@]}"; do
    rr=$r; [ "$cmd" = verify ] && rr=1
    declare -A cpu=() wall=() rss=()
    for i in $(seq 1 "$rr"); do
      for b in "${bins[@]}"; do
        root="$work/run-$b"; ax="$work/ax-$b"
        case $cmd in
          search) set -- "$ax" --root "$root" memory search "token refresh" ;;
          "hook start") set -- "$ax" --root "$root" hook start --agent engineer --issue 7 --deadline 60s ;;
          capture) set -- "$ax" --root "$root" memory add --agent engineer --issue $((1 + i % (n / 50))) --category key-fact "Bench capture $i of $b: the cache layer retries three times before failing over" ;;
          verify) set -- "$ax" --root "$root" verify ;;
        esac
        read -r c w m < <(measure "$@")
        cpu[$b]+="$c "; wall[$b]+="$w "; rss[$b]+="$m "
      done
    done
    for b in "${bins[@]}"; do
      c=$(tr ' ' '\n' <<<"${cpu[$b]}" | grep . | median)
      w=$(tr ' ' '\n' <<<"${wall[$b]}" | grep . | median)
      m=$(tr ' ' '\n' <<<"${rss[$b]}" | grep . | median)
      printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "$cmd" "$b" "$c" "$w" "$((m / 1024))"
    done
    unset cpu wall rss
  done
done
