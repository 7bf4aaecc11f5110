#!/usr/bin/env bash
# Cross-platform vet: the module, test files included, type-checks and
# passes go vet for windows, darwin and linux/arm64, not only for the
# linux/amd64 CI runs on. go vet stops at a package's first type error, so
# a unix-only call in a test (syscall.Mkfifo, syscall.Kill, a flock helper)
# slips in unseen unless some step builds for a system without it: such
# code belongs in *_unix_test.go or a file with a build tag (see the
# `//go:build unix` files beside the tests). The build tags of the suites
# of their own (realhost, browser) are on, so their files are checked too.
# Each target runs even after one fails; the summary names every one.
# Wall time on the 2-core machine: about 5 s warm (4.1, 4.7, 6.1 s; go
# vet caches its results per package); from a cold build cache each target
# compiles the module's dependencies once (darwin/arm64 67 s, linux/arm64
# 26 s measured), under 2 min in all.
set -euo pipefail
cd "$(dirname "$0")/../.."

targets=("windows/amd64" "darwin/arm64" "linux/arm64")
passed=0 failed=0 failures=()
for t in "${targets[@]}"; do
  start=$SECONDS
  if GOOS=${t%/*} GOARCH=${t#*/} go vet -tags realhost,browser ./...; then
    echo "ok   GOOS=${t%/*} GOARCH=${t#*/} go vet ./...  ($((SECONDS - start))s)"
    passed=$((passed + 1))
  else
    echo "FAIL GOOS=${t%/*} GOARCH=${t#*/} go vet ./...  ($((SECONDS - start))s)"
    failed=$((failed + 1))
    failures+=("$t")
  fi
done
echo "$passed passed, $failed failed"
if [ "$failed" -gt 0 ]; then
  echo "cross vet failed for: ${failures[*]}" >&2
  exit 1
fi
