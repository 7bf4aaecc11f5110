#!/usr/bin/env bash
# Total CPU (user+sys) over N interleaved runs of each binary, in ms:
# contention inflates wall time, not CPU time. BIN_DIR holds main-agentx
# and trust-agentx (issue 32).
set -euo pipefail
ws=$1; runs=$2; shift 2
declare -A tot=([main]=0 [trust]=0)
for i in $(seq $runs); do
  for b in main trust; do
    /usr/bin/time -f "%U %S" -o /tmp/trustbench/t.out ${BIN_DIR:-/tmp/trustbench}/$b-agentx --root "$ws" "$@" >/dev/null 2>&1 || true
    ms=$(awk '{printf "%d", ($1+$2)*1000}' /tmp/trustbench/t.out)
    tot[$b]=$(( ${tot[$b]} + ms ))
  done
done
echo "$* : cpu per run main=$(awk -v t=${tot[main]} -v n=$runs 'BEGIN{printf "%.1f", t/n}') ms trust=$(awk -v t=${tot[trust]} -v n=$runs 'BEGIN{printf "%.1f", t/n}') ms ratio=$(awk -v a=${tot[trust]} -v b=${tot[main]} 'BEGIN{printf "%.3f", a/b}')"
