#!/usr/bin/env bash
# Interleaved whole-process timings of main's and trust's agentx-hook on
# one 100K-observation workspace: recall and search (issue 32).
# MAIN_BIN, TRUST_BIN: the two binaries; CMDS: which commands.
set -euo pipefail
ws=$1; runs=${2:-15}
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e-s)/1000 )); }
for cmd in ${CMDS:-recall search}; do
  case $cmd in
    recall) args=(memory recall --agent engineer --issue 7 --query "token refresh cache");;
    search) args=(memory search "token refresh cache" --limit 10);;
    start)  args=(hook start --agent engineer --issue 7);;
  esac
  : > /tmp/trustbench/$cmd.main; : > /tmp/trustbench/$cmd.trust
  for i in $(seq $runs); do
    t ${MAIN_BIN:-/tmp/trustbench/main-agentx} --root "$ws" "${args[@]}" >> /tmp/trustbench/$cmd.main
    t ${TRUST_BIN:-/tmp/trustbench/trust-agentx} --root "$ws" "${args[@]}" >> /tmp/trustbench/$cmd.trust
  done
  m=$(sort -n /tmp/trustbench/$cmd.main | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  r=$(sort -n /tmp/trustbench/$cmd.trust | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  echo "$cmd main_median_us=$m trust_median_us=$r ratio=$(awk -v a=$r -v b=$m 'BEGIN{printf "%.3f", a/b}')"
done
