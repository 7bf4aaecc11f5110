#!/usr/bin/env bash
# The bytes of every file in .agentx/memory at N observations (issue 35,
# seed 000 §7.1: manifest under 3 MB and store under 50 MB at 50K), for each
# binary given, from `memory generate` (seed 1, 50 observations an issue, as
# scripts/bench-scale.sh makes its stores), then after `memory rebuild` and
# `memory rebuild --reference`. Wall time: about 30 s a binary at 50K.
#
#   scripts/bench-store-size.sh [-n N] BINARY...
set -euo pipefail
n=50000
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-n N] BINARY..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sizes() { # label dir
  local dir=$1/.agentx/memory
  local issues count
  issues=$(find "$dir" -maxdepth 1 -name 'issue-*.json' -printf '%s\n' | awk '{s+=$1} END{print s+0}')
  count=$(find "$dir" -maxdepth 1 -name 'issue-*.json' | wc -l)
  printf '| %s | %s |' "$2" "$3"
  for f in manifest.json search.idx search.files search.delta anchors.idx; do
    if [ -f "$dir/$f" ]; then printf ' %s |' "$(stat -c %s "$dir/$f")"; else printf ' - |'; fi
  done
  printf ' %s (%s files) |' "$issues" "$count"
  printf ' %s |\n' "$(find "$dir" -type f -printf '%s\n' | awk '{s+=$1} END{print s+0}')"
}

printf '| binary | after | manifest.json | search.idx | search.files | search.delta | anchors.idx | issue-*.json | total (every file) |\n|---|---|---|---|---|---|---|---|---|\n'
for bin in "$@"; do
  ws="$work/ws"
  rm -rf "$ws"; mkdir -p "$ws"
  "$bin" --root "$ws" init >/dev/null
  "$bin" --root "$ws" memory generate --observations "$n" --issues $((n / 50)) --seed 1 --into-store >/dev/null
  name=$(basename "$bin")
  sizes "$ws" "$name" "memory generate"
  "$bin" --root "$ws" memory add --agent engineer --issue 1 --category key-fact "one more fact after the generation" >/dev/null
  sizes "$ws" "$name" "memory add"
  "$bin" --root "$ws" memory rebuild >/dev/null 2>&1
  sizes "$ws" "$name" "memory rebuild"
  if "$bin" memory rebuild --help 2>&1 | grep -q -- --reference; then
    "$bin" --root "$ws" memory rebuild --reference >/dev/null 2>&1
    sizes "$ws" "$name" "memory rebuild --reference"
  fi
done
