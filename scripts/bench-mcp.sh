#!/usr/bin/env bash
# The MCP server against the CLI at 100K observations (docs/PERFORMANCE.md,
# issue 24): a clarify_request and a memory_search through `agentx-hook
# mcp` (cold: process start + initialize + one call; warm: one call to a
# running server, as a host makes them) and the same through the CLI (one
# whole process each), in one run. Needs hyperfine, jq and python3.
#   scripts/bench-mcp.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook" ./cmd/agentx-hook
ax="$work/agentx-hook"
ws="$work/ws100000"
if [ ! -f "$ws/.agentx/memory/manifest.json" ]; then
  rm -rf "$ws"; mkdir -p "$ws"; "$ax" --root "$ws" init >/dev/null
  "$ax" --root "$ws" memory generate --observations 100000 --issues 2000 --seed 1 --into-store
fi
median() { jq -r ".results[$2] | \"CLI $3: median \(.median*1000|.*100|round/100) ms, mean \(.mean*1000|.*100|round/100) ms\"" "$1"; }

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "== CLI, one process per call"
hyperfine -N --warmup 3 --runs 40 --export-json "$work/cli.json" \
  "$ax --root $ws memory search 'token refresh' --json" \
  "$ax --root $ws clarify request --issue 8 --from engineer --to architect --topic bench --question 'Which queue?' --non-blocking --json" >/dev/null
median "$work/cli.json" 0 "memory search"
median "$work/cli.json" 1 "clarify request"

echo "== MCP server (raw JSON-RPC over stdio)"
python3 - "$ax" "$ws" <<'PY'
import json, statistics, subprocess, sys, time
ax, ws = sys.argv[1], sys.argv[2]
calls = {
    "memory_search": {"query": "token refresh", "limit": 20},
    "clarify_request": {"issue": 7, "to": "architect", "topic": "bench", "question": "Which queue?", "blocking": False},
}
def start():
    p = subprocess.Popen([ax, "--root", ws, "mcp", "--agent", "engineer"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    p.n = 0
    return p
def call(p, method, params):
    p.n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": p.n, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        msg = json.loads(p.stdout.readline())
        if msg.get("id") == p.n:
            if "error" in msg or msg["result"].get("isError"):
                sys.exit(f"{method}: {msg}")
            return msg["result"]
def initialize(p):
    call(p, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
def ms(xs):
    return f"median {statistics.median(xs)*1000:.2f} ms, mean {statistics.mean(xs)*1000:.2f} ms"
for name, args in calls.items():
    cold = []
    for _ in range(20):
        t0 = time.perf_counter()
        p = start(); initialize(p); call(p, "tools/call", {"name": name, "arguments": args})
        cold.append(time.perf_counter() - t0)
        p.stdin.close(); p.wait()
    p = start(); initialize(p)
    for _ in range(3):
        call(p, "tools/call", {"name": name, "arguments": args})
    warm = []
    for _ in range(40):
        t0 = time.perf_counter()
        call(p, "tools/call", {"name": name, "arguments": args})
        warm.append(time.perf_counter() - t0)
    p.stdin.close(); p.wait()
    print(f"MCP {name}: warm (running server) {ms(warm)}; cold (start + initialize + call) {ms(cold)}")
PY
