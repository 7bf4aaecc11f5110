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
# the light ones (4.5 s, 6.6 s of CPU).
#
# Wall time on the quiet 2-core machine: 148 s (about 3,800 kills; 226 s
# of CPU); docs/PERFORMANCE.md. Four scenarios at a time (-parallel 4):
# a kill spends much of its time in the tracer's stops and the processes'
# starts, so two at a time left a core idle (225 s). The kill points are
# counts of calls, so the load changes no verdict.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
AGENTX_CRASH_ALL=1 go test -count=1 -parallel 4 ./internal/e2e/crashpoints
