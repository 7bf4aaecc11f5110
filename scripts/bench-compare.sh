#!/usr/bin/env bash
# Old and new agentx-hook side by side in one hyperfine run per command
# (docs/PERFORMANCE.md, "Round 2: the same commands before and after").
# Needs /tmp/perf2/base (a build of the old commit), /tmp/perf2/new, and the
# workspaces that gen.sh in the same section makes.
set -e
cd /tmp/perf2
H="hyperfine -N --warmup 3 --style basic"
echo "== clarify request on a 50-record ledger"
$H --runs 60 --export-json req.json \
  --prepare "cp led50.json w50-base/.agentx/state/clarifications/issue-7.json" \
  "./base --root w50-base clarify request --issue 7 --from engineer --to architect --non-blocking --topic bench --question q?" \
  --prepare "cp led50.json w50-new/.agentx/state/clarifications/issue-7.json" \
  "./new --root w50-new clarify request --issue 7 --from engineer --to architect --non-blocking --topic bench --question q?"
echo "== monitor, 1000 issues / 5000 records / 200 open"
$H --runs 40 --export-json mon.json "./base --root ws-base monitor" "./new --root ws-new monitor"
echo "== memory search, 100K observations"
$H --runs 40 --export-json search.json "./base --root ws-base memory search 'token refresh middleware' --limit 5" "./new --root ws-new memory search 'token refresh middleware' --limit 5"
echo "== hook start --format claude, 1000 issues, 100K observations"
$H --runs 40 --export-json start.json "./base --root ws-base hook start --agent engineer --issue 42 --format claude" "./new --root ws-new hook start --agent engineer --issue 42 --format claude"
