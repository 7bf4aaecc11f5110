# Sourced by the benches that time one process at a time (bench-fts.sh,
# bench-fts-floors.sh, bench-scale.sh), so all measure the same way: a
# fresh python3 forks, execs CMD with its output discarded, and reads the
# child's rusage with wait4 (microseconds; GNU time rounds CPU and wall
# to 10 ms).
#
# measure_rusage CMD ARGS...: prints "cpu_ms wall_ms rss_kb" (CPU is user
# + system).
measure_rusage() {
  python3 - "$@" <<'PY'
import os, sys, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, _, ru = os.wait4(pid, 0)
wall = (time.monotonic() - t0) * 1000
print("%.2f %.2f %d" % ((ru.ru_utime + ru.ru_stime) * 1000, wall, ru.ru_maxrss))
PY
}

# measure CMD ARGS...: prints the CPU (ms) of one run.
measure() {
  local cpu _
  read -r cpu _ < <(measure_rusage "$@")
  echo "$cpu"
}
