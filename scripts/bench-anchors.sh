#!/usr/bin/env bash
# Issue 32: the read paths' audit-trail check (package memanchor) against
# the same binary without it (AGENTX_BENCH_NO_ANCHORS=1, a benchmark knob),
# and hook start of BEFORE_BIN (main) against BIN, each pair interleaved
# (A, B, A, B, ...) in one run on one workspace. Prints, per command, the
# wall medians and the CPU (user+sys) per run of each side, and the ratios.
#   scripts/bench-anchors.sh WS [RUNS]   (BIN, BEFORE_BIN: the binaries)
set -euo pipefail
ws=$1; runs=${2:-31}
bin=${BIN:-agentx-hook}; before=${BEFORE_BIN:-}
out=$(mktemp -d)
one() { # side cmd...: appends "wall_us cpu_ms" to $out/side
  local side=$1; shift
  local s e
  s=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$out/t" "$@" >/dev/null 2>&1 || true
  e=$(date +%s%N)
  echo "$(( (e-s)/1000 )) $(awk '{printf "%.1f", ($1+$2)*1000}' "$out/t")" >> "$out/$side"
}
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
report() { # name a b
  local wa wb ca cb
  wa=$(cut -d' ' -f1 "$out/$2" | median); wb=$(cut -d' ' -f1 "$out/$3" | median)
  ca=$(awk '{s+=$2} END{printf "%.1f", s/NR}' "$out/$2"); cb=$(awk '{s+=$2} END{printf "%.1f", s/NR}' "$out/$3")
  printf '%s: runs=%d wall median %s=%.1fms %s=%.1fms ratio=%.3f; cpu/run %s=%sms %s=%sms ratio=%.3f\n' "$1" "$runs" \
    "$2" "$(echo "$wa/1000" | bc -l)" "$3" "$(echo "$wb/1000" | bc -l)" "$(echo "$wb/$wa" | bc -l)" \
    "$2" "$ca" "$3" "$cb" "$(echo "$cb/$ca" | bc -l)"
}
recall=(memory recall --agent engineer --issue 7 --query "token refresh cache")
search=(memory search "token refresh cache" --limit 10)
start=(hook start --agent engineer --issue 7)
for cmd in recall search start; do
  declare -n args=$cmd
  rm -f "$out/without" "$out/with" "$out/before" "$out/after"
  "$bin" --root "$ws" "${args[@]}" >/dev/null 2>&1 || true # warm: the index brought up to date
  for _ in $(seq "$runs"); do
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
