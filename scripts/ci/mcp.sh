#!/usr/bin/env bash
# agentx-mcp against third-party MCP clients (issue 36): the TypeScript SDK
# (@modelcontextprotocol/sdk) and the inspector's CLI
# (@modelcontextprotocol/inspector-cli), at pinned versions, installed
# into a cached prefix and run from it (scripts/ci/mcp-clients.mjs).
# A missing node, npm or package is a failure, never a skip.
#
# Wall time: about 30 s on a warm machine (packages cached; the build of
# the two binaries, the 100 MB frame and the inspector's processes are
# most of it), plus about 20 s for the first npm install.
set -euo pipefail

SDK_VERSION=1.32.2
INSPECTOR_VERSION=1.0.3
PREFIX="${AGENTX_MCP_NODE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/agentx-mcp-node}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

fail() { echo "mcp clients: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
command -v node >/dev/null || fail "node is not installed (apt-get install nodejs npm)"
command -v npm >/dev/null || fail "npm is not installed (apt-get install npm)"

installed() { # installed NAME VERSION: the prefix holds NAME at VERSION
  node -e 'const p=require(process.argv[1]); process.exit(p.version===process.argv[2]?0:1)' \
    "$PREFIX/node_modules/$1/package.json" "$2" 2>/dev/null
}
mkdir -p "$PREFIX"
[ -f "$PREFIX/package.json" ] || echo '{"name":"agentx-mcp-ci","private":true}' >"$PREFIX/package.json"
if ! installed @modelcontextprotocol/sdk "$SDK_VERSION" || ! installed @modelcontextprotocol/inspector-cli "$INSPECTOR_VERSION"; then
  (cd "$PREFIX" && npm install --no-audit --no-fund --save-exact \
    "@modelcontextprotocol/sdk@$SDK_VERSION" "@modelcontextprotocol/inspector-cli@$INSPECTOR_VERSION") >&2 ||
    fail "npm install of the MCP SDK $SDK_VERSION and inspector-cli $INSPECTOR_VERSION failed"
fi
installed @modelcontextprotocol/sdk "$SDK_VERSION" || fail "@modelcontextprotocol/sdk@$SDK_VERSION is not in $PREFIX"
installed @modelcontextprotocol/inspector-cli "$INSPECTOR_VERSION" || fail "@modelcontextprotocol/inspector-cli@$INSPECTOR_VERSION is not in $PREFIX"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/bin/" ./cmd/agentx-mcp ./cmd/agentx-hook)
mkdir -p "$work/ws"
"$work/bin/agentx-hook" --root "$work/ws" init >/dev/null

cp "$root/scripts/ci/mcp-clients.mjs" "$PREFIX/mcp-clients.mjs"
AGENTX_MCP="$work/bin/agentx-mcp" AGENTX_HOOK="$work/bin/agentx-hook" WS="$work/ws" PATH="$work/bin:$PATH" \
  node "$PREFIX/mcp-clients.mjs"
