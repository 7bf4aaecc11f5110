#!/usr/bin/env bash
# Whole-process figures of `agentx-hook checkpoint` (docs/PERFORMANCE.md):
# a workspace of 1,000 ledgers of 5 records and 100,000 observations over
# 1,000 issue files, in a git repository.
#   scripts/bench-checkpoint.sh [WORKDIR]
# Each figure is the median of RUNS runs (default 5), interleaved with the
# git plumbing equivalent where there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
runs=${RUNS:-5}
mkdir -p "$work"
go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
ax="$work/agentx-hook"
ws="$work/ws"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost

if [ ! -f "$ws/.agentx/memory/manifest.json" ]; then
  rm -rf "$ws"; mkdir -p "$ws"; "$ax" --root "$ws" init >/dev/null
  go run ./internal/tools/genledgers -root "$ws" -issues 1000 -records 5000 -open 200 >/dev/null
  "$ax" --root "$ws" memory generate --observations 100000 --issues 1000 --seed 1 --into-store >/dev/null
fi
echo "== workspace: $(find "$ws/.agentx" -type f | wc -l) files, $(du -sb "$ws/.agentx" | cut -f1) bytes"

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fresh_git() { rm -rf "$ws/.git"; git -C "$ws" init -q; }
# One issue file changed, the way a session changes it.
change() { "$ax" --root "$ws" memory add --agent engineer --issue 7 --category key-fact "bench change $RANDOM $1" >/dev/null; }

first=(); plumb_first=()
for i in $(seq "$runs"); do
  fresh_git
  first+=("$(ms "$ax" --root "$ws" checkpoint create -m first)")
  fresh_git
  plumb_first+=("$(ms sh -c "cd '$ws' && export GIT_INDEX_FILE='$work/tmp-index' && rm -f \$GIT_INDEX_FILE && git add -f .agentx && git commit-tree -m first \$(git write-tree)")")
done
echo "first checkpoint create:            median $(median "${first[@]}") ms  (runs: ${first[*]})"
echo "git plumbing, first (fresh index):  median $(median "${plumb_first[@]}") ms  (runs: ${plumb_first[*]})"

# After one change: agentx (its stat cache) against git with its
# temporary index kept between runs (git's own stat cache) and with a fresh
# one. "One issue file" is a ledger edited in place; "memory add" changes
# an issue file, the 35 MB manifest and the event log.
rm -f "$work/tmp-index"
(cd "$ws" && GIT_INDEX_FILE="$work/tmp-index" git add -f .agentx)
"$ax" --root "$ws" checkpoint create -m warm >/dev/null
sleep 2 # past the racy window of both caches
"$ax" --root "$ws" checkpoint create -m warm >/dev/null
(cd "$ws" && GIT_INDEX_FILE="$work/tmp-index" git add -f .agentx)
plumbing() { ms sh -c "cd '$ws' && export GIT_INDEX_FILE='$work/$1' && ${2:-} git add -f .agentx && git commit-tree -m x \$(git write-tree)"; }
edit() { printf ' ' >> "$ws/.agentx/state/clarifications/issue-$1.json"; }
inc=(); plumb_inc=(); plumb_fresh=(); add=(); plumb_add=()
# Both tools see the same changes since their last run: each change is
# made once, then agentx and git run one after the other.
for i in $(seq "$runs"); do
  edit 7; sleep 2
  inc+=("$(ms "$ax" --root "$ws" checkpoint create -m "one file $i")")
  plumb_inc+=("$(plumbing tmp-index)")
  plumb_fresh+=("$(plumbing tmp-index2 'rm -f $GIT_INDEX_FILE &&')")
  change "$i"; sleep 2
  add+=("$(ms "$ax" --root "$ws" checkpoint create -m "memory add $i")")
  plumb_add+=("$(plumbing tmp-index)")
done
echo "create after one ledger changed:      median $(median "${inc[@]}") ms  (runs: ${inc[*]})"
echo "git plumbing, kept temporary index:   median $(median "${plumb_inc[@]}") ms  (runs: ${plumb_inc[*]})"
echo "git plumbing, fresh temporary index:  median $(median "${plumb_fresh[@]}") ms  (runs: ${plumb_fresh[*]})"
echo "create after a memory add:            median $(median "${add[@]}") ms  (runs: ${add[*]})"
echo "git plumbing after a memory add:      median $(median "${plumb_add[@]}") ms  (runs: ${plumb_add[*]})"
unchanged=(); plumb_same=()
for i in $(seq "$runs"); do
  unchanged+=("$(ms "$ax" --root "$ws" checkpoint create -m same)")
  plumb_same+=("$(plumbing tmp-index)")
done
echo "create, nothing changed:              median $(median "${unchanged[@]}") ms  (runs: ${unchanged[*]})"
echo "git plumbing, nothing changed:        median $(median "${plumb_same[@]}") ms  (runs: ${plumb_same[*]})"

# Undo a `memory compact` (its automatic checkpoint): a few files, then
# the memory index rebuilt over 100K observations.
undo=()
for i in $(seq "$runs"); do
  # The checkpoint compact takes is this one when nothing changed since.
  id=$("$ax" --root "$ws" checkpoint create -m "before compact")
  id=${id:0:10}
  "$ax" --root "$ws" memory compact --issue $((RANDOM % 900 + 50)) >/dev/null
  undo+=("$(ms "$ax" --root "$ws" checkpoint restore "$id")")
done
echo "restore undoing a memory compact:     median $(median "${undo[@]}") ms  (runs: ${undo[*]})"
rebuild=()
for i in $(seq "$runs"); do rebuild+=("$(ms "$ax" --root "$ws" memory rebuild)"); done
echo "memory rebuild (with its checkpoint): median $(median "${rebuild[@]}") ms  (runs: ${rebuild[*]})"

# Restore the whole workspace: every ledger and memory issue file removed,
# then put back (2,000 files, each under its lock).
id=$("$ax" --root "$ws" checkpoint create -m full)
id=${id:0:10}
rest=()
for i in $(seq "$runs"); do
  rm -f "$ws"/.agentx/state/clarifications/issue-*.json "$ws"/.agentx/memory/issue-*.json
  rest+=("$(ms "$ax" --root "$ws" checkpoint restore "$id")")
done
echo "restore of the whole workspace:       median $(median "${rest[@]}") ms  (runs: ${rest[*]})"
echo "objects: $(git -C "$ws" count-objects -vH | tr '\n' ' ')"
