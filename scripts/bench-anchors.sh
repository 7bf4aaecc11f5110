#!/usr/bin/env bash
# Issue 32: the read paths' audit-trail check (package memanchor) against
# the same binary without it (AGENTX_BENCH_NO_ANCHORS=1, a benchmark knob),
# and hook start of BEFORE_BIN (main) against BIN. Interleaved blocks (A,
# B, A, B, ...) of BLOCK runs each, ROUNDS rounds, on one workspace; each
# block is timed whole by /usr/bin/time (its user+sys covers the runs, so
# the 10 ms resolution of one run's CPU time does not blur a 5 ms command).
# Prints per command: the median of the blocks' wall time per run, the CPU
# per run over all blocks, and the ratios.
#   scripts/bench-anchors.sh WS [ROUNDS] [BLOCK]   (BIN, BEFORE_BIN; CMDS)
set -euo pipefail
ws=$1; rounds=${2:-8}; block=${3:-10}
bin=${BIN:-agentx-hook}; before=${BEFORE_BIN:-}
out=$(mktemp -d)
one() { # side env-prefix binary args...: one timed block, appended to $out/side
  local side=$1; shift
  local s e
  s=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$out/t" bash -c 'for _ in $(seq '"$block"'); do "$@" >/dev/null 2>&1 || true; done' _ "$@"
  e=$(date +%s%N)
  echo "$(( (e-s)/1000/block )) $(awk -v b="$block" '{printf "%.2f", ($1+$2)*1000/b}' "$out/t")" >> "$out/$side"
}
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
report() { # name a b
  local wa wb ca cb
  wa=$(cut -d' ' -f1 "$out/$2" | median); wb=$(cut -d' ' -f1 "$out/$3" | median)
  ca=$(awk '{s+=$2} END{printf "%.2f", s/NR}' "$out/$2"); cb=$(awk '{s+=$2} END{printf "%.2f", s/NR}' "$out/$3")
  printf '%s: %d runs each; wall median %s=%.1fms %s=%.1fms ratio=%.3f; cpu/run %s=%sms %s=%sms ratio=%.3f\n' "$1" "$((rounds*block))" \
    "$2" "$(echo "$wa/1000" | bc -l)" "$3" "$(echo "$wb/1000" | bc -l)" "$(echo "$wb/$wa" | bc -l)" \
    "$2" "$ca" "$3" "$cb" "$(echo "$cb/$ca" | bc -l)"
}
recall=(memory recall --agent engineer --issue 7 --query "token refresh cache")
search=(memory search "token refresh cache" --limit 10)
start=(hook start --agent engineer --issue 7)
for cmd in ${CMDS:-recall search start}; do
  declare -n args=$cmd
  rm -f "$out/without" "$out/with" "$out/before" "$out/after"
  "$bin" --root "$ws" "${args[@]}" >/dev/null 2>&1 || true # warm: the index brought up to date
  for _ in $(seq "$rounds"); do
    one without env AGENTX_BENCH_NO_ANCHORS=1 "$bin" --root "$ws" "${args[@]}"
    one with "$bin" --root "$ws" "${args[@]}"
    if [ "$cmd" = start ] && [ -n "$before" ]; then
      one before "$before" --root "$ws" "${args[@]}"
      one after "$bin" --root "$ws" "${args[@]}"
    fi
  done
  report "$cmd (check)" without with
  if [ "$cmd" = start ] && [ -n "$before" ]; then report "$cmd (main->branch)" before after; fi
done
rm -rf "$out"
