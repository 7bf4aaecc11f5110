#!/usr/bin/env bash
# Old and new agentx-hook side by side, one hyperfine run per command
# (docs/performance-history.md, "Round 2: the same commands before and after").
# Needs hyperfine.
#   git worktree add --detach /tmp/old 83b9911 && (cd /tmp/old && go build -o /tmp/old-agentx-hook ./cmd/agentx-hook)
#   scripts/bench-compare.sh /tmp/old-agentx-hook [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
work=${2:-$(mktemp -d)}
mkdir -p "$work"
cp "$old" "$work/base"
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/new" ./cmd/agentx-hook
go run ./internal/tools/genledgers -root "$work/wsbig" -issues 1000 -records 5000 -open 200 >/dev/null
cd "$work"
./new --root wsbig init >/dev/null
./new --root wsbig memory generate --observations 100000 --issues 1000 --seed 7 --into-store >/dev/null 2>&1 ||
  ./new --root wsbig memory generate --observations 100000 --issues 1000 --seed 7 >/dev/null
for b in base new; do rm -rf "ws-$b"; cp -r wsbig "ws-$b"; done
rm -rf w50 && mkdir w50 && ./new --root w50 init >/dev/null
for i in $(seq 1 50); do
  ./new --root w50 clarify request --issue 7 --from engineer --to architect --non-blocking \
    --topic "topic $i" --question "Question number $i about the design?" >/dev/null
done
cp w50/.agentx/state/clarifications/issue-7.json led50.json
for b in base new; do rm -rf "w50-$b"; cp -r w50 "w50-$b"; done

H="hyperfine -N --warmup 3 --style basic"
$H --runs 100 "./base version" "./new version"
$H --runs 60 \
  --prepare "cp led50.json w50-base/.agentx/state/clarifications/issue-7.json" \
  "./base --root w50-base clarify request --issue 7 --from engineer --to architect --non-blocking --topic bench --question q?" \
  --prepare "cp led50.json w50-new/.agentx/state/clarifications/issue-7.json" \
  "./new --root w50-new clarify request --issue 7 --from engineer --to architect --non-blocking --topic bench --question q?"
$H --runs 40 "./base --root ws-base monitor" "./new --root ws-new monitor"
$H --runs 40 "./base --root ws-base memory search 'token refresh middleware' --limit 5" \
  "./new --root ws-new memory search 'token refresh middleware' --limit 5"
$H --runs 40 "./base --root ws-base hook start --agent engineer --issue 42 --format claude" \
  "./new --root ws-new hook start --agent engineer --issue 42 --format claude"
ledgers=$(ls ws-new/.agentx/state/clarifications/issue-*.json)
$H --runs 30 "./new --root ws-new digest" "jq -s . $(echo $ledgers)" | grep -v '^ *jq\|^Benchmark 2'
