# measure CMD ARGS...: the CPU (user + system, ms) of one run of CMD,
# forked, exec'd and waited for by a fresh python3 (its rusage), output
# discarded. Sourced by bench-fts.sh and bench-fts-floors.sh, so both
# measure the same way.
measure() {
  python3 - "$@" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, _, ru = os.wait4(pid, 0)
print("%.2f" % ((ru.ru_utime + ru.ru_stime) * 1000))
PY
}
