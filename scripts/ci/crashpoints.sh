#!/usr/bin/env bash
# CI step: every writing command of agentx-hook killed with SIGKILL at
# every system call that can change a file (internal/e2e/crashpoints, all
# points: AGENTX_CRASH_ALL=1), each kill in a fresh copy of its workspace,
# then verify (and verify --repair), every record stored before still
# there, the new one whole or absent, and the next run succeeding.
#
# The kills come from the test's own ptrace(2) tracer, not strace: strace's
# --inject counts each thread's calls apart, and which thread of a Go
# program makes a call is the scheduler's choice (see the package doc).
# Nothing is installed: ptrace must be allowed (it is in a default Docker
# container and on a CI runner); where it is not, the test FAILS, it never
# skips. The default `go test ./...` runs the same test at 3 points per
# command, the first, the middle and the last, or the middle alone for
# the light ones (4.0 s, 5.8 s of CPU).
#
# Wall time on the quiet 2-core machine: 225 s (about 3,400 kills; 215 s
# of CPU); docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
AGENTX_CRASH_ALL=1 go test -count=1 ./internal/e2e/crashpoints
