#!/usr/bin/env bash
# The real-host suite (issue 31): installs Claude Code, Codex CLI and GitHub
# Copilot CLI at pinned versions from npm into a cache, then runs
# internal/e2e/realhost (build tag realhost) against them: each host runs
# headless against a fake model server on 127.0.0.1, in a throwaway HOME.
#
#   bash scripts/ci/hostsuite.sh
#
# AGENTX_HOSTS_DIR   where the hosts are installed (default ~/.cache/agentx-hosts,
#                    one prefix per host and version; keep it between CI runs)
# AGENTX_HOST_REPEAT first sessions per host (default 5)
# AGENTX_HOSTS       hosts to run, comma-separated (default all three)
#
# A host that cannot be installed or found fails the suite; nothing skips.
# Time on the 2-core machine (other jobs running): about 20 s to install the
# three hosts cold (about 480 MB), 0.1 s warm; the tests about 60-70 s with
# 5 sessions per host (docs/performance-history.md, "Real hosts"), and issue 34's
# two delivery sessions per host beside them (20-25 s run alone).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"

hosts_dir=${AGENTX_HOSTS_DIR:-$HOME/.cache/agentx-hosts}
export AGENTX_HOSTS_DIR=$hosts_dir

command -v node >/dev/null || { echo "hostsuite: node is not on PATH (the hosts need Node.js 20 or later)"; exit 1; }
command -v npm >/dev/null || { echo "hostsuite: npm is not on PATH"; exit 1; }

# install DIR PACKAGE@VERSION BIN NATIVE: npm-install one pinned host into
# its own prefix unless it is there already, then check that its command
# runs and that the platform package carrying its native binary landed
# (npm skips a failed optional dependency silently).
install() {
  local dir=$hosts_dir/$1 pkg=$2 bin=$3 native=$4
  if [ ! -x "$dir/node_modules/.bin/$bin" ] || [ ! -e "$dir/.installed" ]; then
    echo "== installing $pkg into $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "$pkg"
    touch "$dir/.installed"
  fi
  if ! ls -d "$dir"/node_modules/$native >/dev/null 2>&1; then
    echo "hostsuite: $pkg installed without its native package ($native) in $dir"; exit 1
  fi
  local home; home=$(mktemp -d)
  echo "$pkg: $(HOME=$home COPILOT_PKG_CACHE_HOME=$hosts_dir/copilot-pkg-cache "$dir/node_modules/.bin/$bin" --version 2>/dev/null | head -1)"
  rm -rf "$home"
}
install claude-code-2.1.328 @anthropic-ai/claude-code@2.1.328 claude "@anthropic-ai/claude-code-linux-*"
install codex-0.169.0 @openai/codex@0.169.0 codex "@openai/codex-linux-*"
install copilot-1.0.102 @github/copilot@1.0.102 copilot "@github/copilot-linux-*"

# .ci/run's go vet sees no file of the tagged package.
go vet -tags realhost ./internal/e2e/realhost

summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
status=0
AGENTX_REALHOST_SUMMARY=$summary go test -tags realhost -count=1 -timeout 20m ./internal/e2e/realhost || status=$?
cat "$summary"
exit $status
