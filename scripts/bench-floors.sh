#!/usr/bin/env bash
# Everyday commands against their floors (issue 35; docs/PERFORMANCE.md,
# "Everyday commands on their floors"), each a ratio of medians measured
# interleaved in one run (every command once per round, shuffled):
#   - `version` and `monitor` over 5 issues against a Go hello-world built
#     the same way;
#   - `clarify request` on a 120-record ledger (about 100 KB) against a
#     durable atomic rewrite of the same file by a small Go program (read
#     it, write a temporary beside it, fsync, rename, fsync the directory),
#     both starting from the same 120-record copy each round.
# Wall and CPU (user + system, from wait4) of each run; needs python3.
#   scripts/bench-floors.sh [OLD_AGENTX_HOOK] [WORKDIR]
# With OLD_AGENTX_HOOK (built with the same flags at another commit) old
# and new run interleaved. RUNS rounds (default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
lib=$PWD/scripts/lib # interleave.py: the interleaved timing loop
old=${1:-}
work=${2:-$(mktemp -d)}
runs=${RUNS:-300}
mkdir -p "$work/hello" "$work/rewrite"
flags=(-trimpath -ldflags="-s -w")
CGO_ENABLED=0 go build "${flags[@]}" -o "$work/new.built" ./cmd/agentx-hook
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$work/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$work/hello/go.mod"
cat >"$work/rewrite/main.go" <<'GO'
// rewrite FILE: a durable atomic rewrite of FILE with its own content.
package main

import (
	"os"
	"path/filepath"
)

func main() {
	p := os.Args[1]
	data, err := os.ReadFile(p)
	if err != nil {
		panic(err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".rewrite-*")
	if err != nil {
		panic(err)
	}
	if _, err := f.Write(data); err != nil {
		panic(err)
	}
	if err := f.Sync(); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		panic(err)
	}
	d, err := os.Open(filepath.Dir(p))
	if err != nil {
		panic(err)
	}
	if err := d.Sync(); err != nil {
		panic(err)
	}
}
GO
printf 'module rewrite\n\ngo 1.26\n' >"$work/rewrite/go.mod"
(cd "$work/hello" && CGO_ENABLED=0 go build "${flags[@]}" -o "$work/hello.built" .)
(cd "$work/rewrite" && CGO_ENABLED=0 go build "${flags[@]}" -o "$work/rewrite.built" .)
# Run from copies made with cp (see scripts/bench-start.sh: a file the
# linker wrote starts slower than the same bytes written by cp).
cp "$work/hello.built" "$work/hello-world"
cp "$work/rewrite.built" "$work/rewrite-file"
cp "$work/new.built" "$work/new"
bins=(new)
if [ -n "$old" ]; then
  cp "$old" "$work/old"
  bins=(old new)
fi
cd "$work"
rm -rf ws5 ws120 && mkdir ws5 ws120
./new --root ws5 init >/dev/null
./new --root ws120 init >/dev/null
for i in 1 2 3 4 5; do
  for j in 1 2 3; do
    ./new --root ws5 clarify request --issue "$i" --from engineer --to architect --non-blocking \
      --topic "topic $i $j" --question "Question $j about issue $i?" >/dev/null
  done
done
for i in $(seq 1 120); do
  ./new --root ws120 clarify request --issue 7 --from engineer --to architect --non-blocking \
    --topic "topic $i" --question "Question number $i about the design of the cache layer and what surrounds it, long enough to be a real one?" >/dev/null
done
cp ws120/.agentx/state/clarifications/issue-7.json ledger120.json
echo "== ledger: $(wc -c <ledger120.json) bytes, 120 records"
cmds=(./hello-world "./rewrite-file ws-rw/issue-7.json")
mkdir -p ws-rw
for b in "${bins[@]}"; do
  rm -rf "ws5-$b" "ws120-$b" && cp -r ws5 "ws5-$b" && cp -r ws120 "ws120-$b"
  cmds+=("./$b version" "./$b --root ws5-$b monitor"
    "./$b --root ws120-$b clarify request --issue 7 --from engineer --to architect --non-blocking --topic bench --question q?")
done
# A workspace in use has a configuration older than the racy window of
# the configuration cache (fileid.RacyWindow, 2 s): the copies above are
# new, and a command started within 2 s of them parses agentx.toml and
# the workflows again instead of reading the cache.
sleep 2.1
uptime
cat >bench.py <<'PY'
import shutil, statistics, sys
from interleave import measure
runs, cmds = int(sys.argv[1]), sys.argv[2:]
def prepare(cmd):
    # Every run that rewrites the ledger starts from the same 120 records
    # (not timed).
    argv = cmd.split()
    if "clarify" in argv:
        shutil.copyfile("ledger120.json", argv[argv.index("--root") + 1] + "/.agentx/state/clarifications/issue-7.json")
    elif "rewrite-file" in argv[0]:
        shutil.copyfile("ledger120.json", argv[1])
wall, cpu = measure(cmds, runs, 10, prepare)
def base(c):
    return cmds[1] if "clarify" in c else cmds[0]
print("| command | wall, median | ratio | CPU (user + system), median | ratio | against |")
print("|---|---:|---:|---:|---:|---|")
for c in cmds:
    w, u = statistics.median(wall[c]), statistics.median(cpu[c])
    bw, bu = statistics.median(wall[base(c)]), statistics.median(cpu[base(c)])
    print("| `%s` | %.2f ms | %.2f | %.2f ms | %.2f | %s |" % (c, w * 1e3, w / bw, u * 1e3, u / bu, base(c).split()[0]))
PY
PYTHONPATH="$lib" python3 bench.py "$runs" "${cmds[@]}"
uptime
