#!/usr/bin/env bash
# The web view in a real browser (issue 39): Debian's Chromium driven by
# chromedp through `agentx-hook view` (internal/e2e/browser, build tag
# `browser`, so the README's plain `go test ./...` needs no browser). A
# missing browser fails the suite. Wall time on the 2-core machine: about
# 25 s warm (building the two binaries and Chromium's start included);
# installing chromium with apt adds about 60 s the first time.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! [ -x /usr/bin/chromium ]; then
  echo "== installing chromium from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version 2>/dev/null | head -1
go vet -tags browser ./internal/e2e/browser/
AGENTX_BROWSER=/usr/bin/chromium go test -tags browser -count=1 ./internal/e2e/browser/
