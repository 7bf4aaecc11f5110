#!/usr/bin/env bash
# Integrity on read (issue 22 item 1): what checking content hashes costs
# the reads that hand content to an agent, as two builds compare in one
# run, interleaved, median of RUNS runs each.
#
#   BEFORE=/path/ax-before AFTER=/path/ax-after WS=/path/workspace scripts/bench-integrity.sh
#
# WS is a Local Mode workspace: e.g. the .agentx/ of scripts/bench-sync.sh's
# state clone (1,000 ledgers + 100K observations) copied into a git repo,
# mode set to "local", `agentx-hook memory rebuild` run, and a ledger of
# 120 records on issue 4242 (120 `clarify request --issue 4242 ...`).
set -euo pipefail
cd "${WS:?WS names the workspace}"
runs=${RUNS:-15}
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "== load: $(uptime | sed 's/.*load average: //')"
for what in "hook start --agent engineer --issue 5 --format claude" "clarify --issue 4242"; do
  b=(); a=()
  for _ in $(seq "$runs"); do
    b+=("$(ms "${BEFORE:?}" $what)")
    a+=("$(ms "${AFTER:?}" $what)")
  done
  echo "$what: before median $(median "${b[@]}") ms [${b[*]}]; after median $(median "${a[@]}") ms [${a[*]}]"
done
