#!/usr/bin/env bash
# The least the README's test command can cost on this machine (issue 37):
# what go itself spends building, linking and starting every test binary
# with no test run, how many processes the whole suite starts, and what
# starting the cheapest process costs here. Together they bound the
# suite's wall time from below before any test or command does its own
# work: on a CPU-bound run of N cores the wall is at least CPU / N.
#
#   bash scripts/suite-floor.sh        # about 1.5 minutes on 2 cores
#
# Needs perf (the processes are counted system-wide from the scheduler's
# sched_process_exec event, which the crash points' ptrace tracer does not
# mind, unlike strace): run it on a quiet machine, since anything else
# started meanwhile is counted too. scripts/suite-cpu.sh splits the
# suite's CPU by package, PROCS=1 by program.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "suite-floor.sh needs perf" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=$(nproc)

# go's part: vet (cached), link and start each test binary, run no test.
go test -count=1 -run '^$' ./... >/dev/null # warm the build cache
/usr/bin/time -o "$work/link" -f "%e %U %S" go test -count=1 -run '^$' ./... >/dev/null

# The whole suite, counting the processes it starts.
status=0
perf stat -x, -o "$work/stat" -e sched:sched_process_exec -a -- \
	/usr/bin/time -o "$work/suite" -f "%e %U %S" go test -count=1 ./... >"$work/out" 2>&1 || status=$?
grep -E '^(FAIL|--- FAIL|panic)' "$work/out" || true
procs=$(awk -F, '/sched_process_exec/ {print $1}' "$work/stat")

# A process start here: the cheapest program, and git, 1,000 times each
# from a shell (the shell's fork included, as for the suite's).
floor() {
	/usr/bin/time -o "$work/floor" -f "%U %S" bash -c "for i in \$(seq 1000); do $1 >/dev/null; done"
	awk '{printf "%.3f", ($1 + $2)}' "$work/floor" # ms per start: CPU-s / 1000
}
truems=$(floor /bin/true)
gitms=$(floor "git --version")

awk -v cores="$cores" -v procs="$procs" -v truems="$truems" -v gitms="$gitms" '
	FILENAME ~ /link$/ { lw = $1; lc = $2 + $3 }
	FILENAME ~ /suite$/ { sw = $1; sc = $2 + $3 }
	END {
		printf "go test -count=1 ./...        %6.1f s wall %6.1f CPU-s, %d processes started\n", sw, sc, procs
		printf "  of which go (run no test)   %6.1f s wall %6.1f CPU-s: build, vet, link, start\n", lw, lc
		printf "a process start here          %6.2f ms CPU (/bin/true), %.2f ms (git --version)\n", truems, gitms
		ps = procs * truems / 1000
		printf "the starts alone, at the least %5.1f CPU-s (%d x %.2f ms)\n", ps, procs, truems
		f = lc + ps
		printf "floor before any test works   %6.1f CPU-s = %.1f s wall on %d cores\n", f, f / cores, cores
		printf "the tests own work            %6.1f CPU-s (the rest of the suite)\n", sc - f
		printf "20 s on %d cores leaves them   %6.1f CPU-s\n", cores, 20 * cores - f
	}' "$work/link" "$work/suite"
exit "$status"
