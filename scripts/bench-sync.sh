#!/usr/bin/env bash
# State branch figures at 1,000 ledgers + 100K observations (docs/PERFORMANCE.md,
# "State branch sync at 100K observations"), each beside plain git moving the
# same content in the same run:
#   1. the first `hook start` in a fresh clone (the pull of the whole state)
#      against `git fetch` of the state branch into a fresh clone;
#   2. `sync` with nothing changed against `git fetch` + `git push`;
#   3. `sync` after one changed ledger against `git commit -a` + `git fetch` +
#      `git push` of the same change on a checkout of the state branch.
# Every figure is the median of RUNS runs (default 7), the two sides
# interleaved so that load on a shared machine hits both alike.
#
#   scripts/bench-sync.sh [WORKDIR]
#   AX=/path/to/agentx-hook scripts/bench-sync.sh WORKDIR   # another build
#
# Needs git and the Go toolchain (it builds agentx-hook from this checkout
# unless AX names a binary). The generated state (about 2 minutes on a
# 2-core machine) is kept in WORKDIR/state and reused by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work" && work=$(cd "$work" && pwd)
runs=${RUNS:-7}
# git reads only this run's settings; Go keeps the user's caches.
export GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE) GOPATH=$(go env GOPATH)
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" NO_COLOR=1
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com
git config --global init.defaultBranch main
git config --global advice.detachedHead false

if [ -z "${AX:-}" ]; then
  go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
  AX="$work/agentx-hook"
fi
go build -o "$work/genledgers" ./internal/tools/genledgers
echo "== $("$AX" version | head -1); $(git --version); $(nproc) cores; load: $(uptime | sed 's/.*load average: //')"

# ms CMD...: runs CMD, prints its wall time in milliseconds.
ms() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
report() { # report LABEL "t1 t2 ..."
  printf '%-62s median %6s ms  (runs: %s)\n' "$1" "$(echo "$2" | median)" "$2"
}

remote="$work/remote.git"
state="$work/state"
# The remote: a code branch carrying the GitHub Mode settings, and the state
# branch pushed by clone `a`, which holds the generated state.
if [ ! -d "$remote" ] || [ ! -f "$state/done" ]; then
  rm -rf "$remote" "$state" "$work/seed"
  git init -q --bare "$remote"
  git init -q "$work/seed"
  "$AX" --root "$work/seed" init --mode github >/dev/null
  git -C "$work/seed" add .agentx/agentx.toml .agentx/workflows .agentx/.gitignore
  git -C "$work/seed" commit -q -m "agentx: GitHub Mode"
  git -C "$work/seed" push -q "$remote" main
  git clone -q "$remote" "$state"
  "$work/genledgers" -root "$state" -issues 1000 -records 5000 -open 200 >/dev/null
  "$AX" --root "$state" memory generate --observations 100000 --issues 1000 --seed 1 --into-store >/dev/null
  "$AX" --root "$state" sync
  touch "$state/done"
fi
tracking=refs/remotes/origin/agentx/state
fetch() { git -C "$1" fetch --quiet --no-tags --no-write-fetch-head --no-auto-maintenance origin "+refs/heads/agentx/state:$tracking"; }
echo "== state branch: $(git -C "$remote" ls-tree -r agentx/state | wc -l) files, $(du -sh "$remote" | cut -f1) packed; ledgers $(du -sh "$state/.agentx/state/clarifications" | cut -f1), memory issue files $(du -sch "$state"/.agentx/memory/issue-*.json | tail -1 | cut -f1)"

# 1. A fresh clone's first hook start, against git fetching the same branch
# into a fresh clone. The clone itself (the code branch only, through the
# file:// transport so that no object of the state branch is there yet) is
# not timed.
first=() gitfirst=() bg=()
for i in $(seq "$runs"); do
  rm -rf "$work/fresh" "$work/freshgit"
  git clone -q --no-local --single-branch --branch main "$remote" "$work/fresh"
  first+=("$(ms "$AX" --root "$work/fresh" hook start --agent engineer --issue 1)")
  git clone -q --no-local --single-branch --branch main "$remote" "$work/freshgit"
  gitfirst+=("$(ms fetch "$work/freshgit")")
  # Let what the hook left running in the background (the rest of the
  # pull, the memory index) finish before the next run, so it does not
  # load the next one; how long it took is reported.
  t0=$(date +%s%N)
  for _ in $(seq 1200); do
    [ -e "$work/fresh/.agentx/memory/index-rebuild" ] || break
    sleep 0.1
  done
  bg+=("$((($(date +%s%N) - t0) / 1000000))")
done
"$AX" --root "$work/fresh" hook start --agent engineer --issue 1 >"$work/first-hook.out" 2>&1 || true
report "first hook start, fresh clone (pull + hook)" "${first[*]}"
report "git fetch of the state branch, fresh clone" "${gitfirst[*]}"
report "background completion after the first hook (pull rest, index)" "${bg[*]}"
echo "   the next hook start in that clone, once it is done:"; grep -E '^(warning|## |Recall ran)' "$work/first-hook.out" | sed 's/^/   | /'
"$AX" --root "$work/fresh" memory search 'token refresh' | tail -1 || true

# 2. Nothing changed: sync against git fetch + git push (up to date).
"$AX" --root "$state" sync >/dev/null
noop=() gitnoop=()
for i in $(seq "$runs"); do
  noop+=("$(ms "$AX" --root "$state" sync)")
  gitnoop+=("$(ms sh -c "git -C '$state' fetch --quiet --no-tags --no-write-fetch-head --no-auto-maintenance origin '+refs/heads/agentx/state:$tracking' && git -C '$state' push --quiet --porcelain --no-verify origin '$tracking:refs/heads/agentx/state'")")
done
report "sync, nothing changed" "${noop[*]}"
report "git fetch + git push, nothing changed" "${gitnoop[*]}"

# 3. One changed ledger: a new clarification on issue 5 in clone a, then
# sync; against a change of one ledger committed on a plain checkout of the
# state branch (clone g), then fetch and push, to a copy of the remote so
# that neither side has the other's commits to merge.
rm -rf "$work/g" "$work/remote-g.git"
git clone -q --bare "$remote" "$work/remote-g.git"
git clone -q --branch agentx/state "$work/remote-g.git" "$work/g"
one=() gitone=()
for i in $(seq "$runs"); do
  "$AX" --root "$state" clarify request --issue 5 --from engineer --to architect --topic "bench $i $RANDOM" --question "Which cache, run $i?" >/dev/null
  one+=("$(ms "$AX" --root "$state" sync)")
  sed -i "s/\"topic\": \"/\"topic\": \"g$i /" "$work/g/state/clarifications/issue-7.json"
  gitone+=("$(ms sh -c "git -C '$work/g' commit -q -a -m 'one ledger' && git -C '$work/g' fetch --quiet --no-tags origin agentx/state && git -C '$work/g' push --quiet --no-verify origin HEAD:agentx/state")")
done
report "sync, one changed ledger (commit + push)" "${one[*]}"
report "git commit -a + git fetch + git push, one changed ledger" "${gitone[*]}"
echo "== load after: $(uptime | sed 's/.*load average: //')"
