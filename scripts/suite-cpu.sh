#!/usr/bin/env bash
# Where `go test ./...` spends its time (issue 37): the whole suite once
# with every test binary run under /usr/bin/time, then each package's
# wall and CPU seconds (user + system of the test binary and every
# process it started and waited for), largest CPU first, and the totals.
#
#   bash scripts/suite-cpu.sh            # the whole suite
#   bash scripts/suite-cpu.sh ./internal/hookcmd ./internal/core/...
#   PROCS=1 bash scripts/suite-cpu.sh    # also count the processes started
#
# The difference between the go test line's CPU and the sum of the test
# binaries is go itself: building, linking and vetting (linking the 81
# test binaries is most of it: `go test -count=1 -run '^$' ./...`).
# PROCS=1 runs the suite under strace (slower, so its times are not the
# suite's) and prints how many processes of each program it started:
# git's own local transport (upload-pack, receive-pack and the shells,
# pack-objects, unpack-objects and rev-list they start) is most of them.
# Wall time: the suite's, about 40 s on an idle 2-core machine.
set -euo pipefail

cd "$(dirname "$0")/.."
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The wrapper go test runs each test binary with (-exec): one line per
# binary, "package-dir wall user system".
cat >"$work/wrap" <<EOF
#!/bin/sh
exec /usr/bin/time -a -o "$work/times" -f "\$(pwd) %e %U %S" "\$@"
EOF
chmod +x "$work/wrap"

run=(go test -count=1 -exec "$work/wrap" "${pkgs[@]}")
if [ "${PROCS:-}" = 1 ]; then
	command -v strace >/dev/null || { echo "PROCS=1 needs strace" >&2; exit 1; }
	run=(strace -f -qq -e trace=execve -e signal=none -o "$work/trace" "${run[@]}")
fi

status=0
/usr/bin/time -o "$work/total" -f "%e %U %S" "${run[@]}" >"$work/out" 2>&1 || status=$?
grep -E '^(FAIL|--- FAIL|panic)' "$work/out" || true

root=$(pwd)
printf '%-44s %8s %8s\n' package wall-s cpu-s
sed "s|^$root/||" "$work/times" | awk '{printf "%-44s %8.2f %8.2f\n", $1, $2, $3 + $4}' | sort -k3 -nr
awk '{w += $2; c += $3 + $4} END {printf "%-44s %8.2f %8.2f\n", "test binaries (sum)", w, c}' "$work/times"
awk '{printf "%-44s %8.2f %8.2f\n", "go test (wall, all CPU)", $1, $2 + $3}' "$work/total"

if [ "${PROCS:-}" = 1 ]; then
	echo
	echo "processes started (successful execve), by program:"
	grep ' = 0$' "$work/trace" | grep -o 'execve("[^"]*"' | sed 's/execve("//; s/"$//; s|.*/||' |
		sort | uniq -c | sort -nr | head -20
	printf '%8d in all\n' "$(grep -c ' = 0$' "$work/trace")"
fi
exit "$status"
