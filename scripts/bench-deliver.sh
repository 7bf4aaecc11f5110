#!/usr/bin/env bash
# The mid-session deliver hook with nothing new against `agentx-hook
# version` (issue 34; docs/performance-history.md, "Answers delivered mid-session"):
# one interleaved run (every command once per round, shuffled), wall and CPU
# medians, ratios to `version`. The hook gets a Claude Code payload on
# stdin, as the host gives it: a UserPromptSubmit, and a PostToolUse whose
# tool_response is 64 KB (a file read). The workspace has 20 issues of
# clarifications and a session stamped by hook start. Needs python3.
#   RUNS=500 scripts/bench-deliver.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
runs=${RUNS:-500}
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/agentx-hook.built" ./cmd/agentx-hook
# A copy made with cp (see bench-start.sh: a file the linker wrote starts
# slower than the same bytes copied).
cp "$work/agentx-hook.built" "$work/agentx-hook"
cd "$work"
rm -rf ws && mkdir ws && (cd ws && git init -q && ../agentx-hook init >/dev/null)
for i in $(seq 1 20); do
  for j in 1 2 3; do
    ./agentx-hook --root ws clarify request --issue "$i" --from engineer --to architect --non-blocking \
      --topic "topic $i $j" --question "Question $j about issue $i?" >/dev/null
  done
  ./agentx-hook --root ws clarify answer "CLR-$i-001" --body "Answer about issue $i." >/dev/null
done
ws=$(cd ws && pwd)
printf '{"session_id":"bench-1","hook_event_name":"SessionStart","source":"startup","cwd":"%s"}' "$ws" >start.json
./agentx-hook hook start --agent engineer --format claude <start.json >/dev/null
printf '{"session_id":"bench-1","hook_event_name":"UserPromptSubmit","prompt":"go on with the login lockout","cwd":"%s"}' "$ws" >prompt.json
python3 - "$ws" >tool.json <<'PY'
import json, sys
print(json.dumps({"session_id": "bench-1", "hook_event_name": "PostToolUse", "cwd": sys.argv[1], "tool_name": "Read",
                  "tool_input": {"file_path": "/src/main.go"}, "tool_response": {"content": "x := 1 // line\n" * 4400}}))
PY
# Nothing new: the check must not read a ledger, and print nothing.
out=$(./agentx-hook hook deliver --agent engineer --format claude <tool.json)
[ -z "$out" ] || { echo "the deliver hook printed: $out" >&2; exit 1; }
uptime
cat >bench.py <<'PY'
import os, random, statistics, sys, time
runs = int(sys.argv[1])
cmds = [("version", ["./agentx-hook", "version"], None),
        ("hook deliver, UserPromptSubmit", ["./agentx-hook", "hook", "deliver", "--agent", "engineer", "--format", "claude"], "prompt.json"),
        ("hook deliver, PostToolUse 64 KB", ["./agentx-hook", "hook", "deliver", "--agent", "engineer", "--format", "claude"], "tool.json")]
null = os.open(os.devnull, os.O_WRONLY)
def run(argv, stdin):
    fa = [(os.POSIX_SPAWN_DUP2, null, 1)]
    fd = None
    if stdin:
        fd = os.open(stdin, os.O_RDONLY)
        fa.append((os.POSIX_SPAWN_DUP2, fd, 0))
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if fd is not None:
        os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed" % argv)
    return wall, ru.ru_utime + ru.ru_stime
for c in cmds * 20:  # warm-up
    run(c[1], c[2])
wall = {c[0]: [] for c in cmds}
cpu = {c[0]: [] for c in cmds}
for _ in range(runs):
    order = cmds[:]
    random.shuffle(order)
    for name, argv, stdin in order:
        w, u = run(argv, stdin)
        wall[name].append(w)
        cpu[name].append(u)
base_w, base_c = statistics.median(wall["version"]), statistics.median(cpu["version"])
print("| command | wall, median | ratio | CPU (user + system), median | ratio |")
print("|---|---:|---:|---:|---:|")
for name, _, _ in cmds:
    w, u = statistics.median(wall[name]), statistics.median(cpu[name])
    print("| `%s` | %.2f ms | %.2f | %.2f ms | %.2f |" % (name, w * 1e3, w / base_w, u * 1e3, u / base_c))
PY
python3 bench.py "$runs"
