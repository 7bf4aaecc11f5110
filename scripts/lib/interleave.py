"""Interleaved timing of commands, shared by the bench scripts.

Every round runs each command once, in a shuffled order, so that a change
of load hits all alike; each run's wall time and CPU time (user + system,
from wait4) are kept. A script imports it with scripts/lib on PYTHONPATH.
"""
import os
import random
import sys
import time

_null = os.open(os.devnull, os.O_WRONLY)


def run(cmd, prepare=None):
    """Runs cmd (split on spaces, stdout discarded) once and returns its wall
    and CPU seconds; exits the script if it fails. prepare(cmd), when given,
    runs first and is not timed."""
    if prepare:
        prepare(cmd)
    argv = cmd.split()
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, _null, 1)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed" % cmd)
    return wall, ru.ru_utime + ru.ru_stime


def measure(cmds, runs, warmup, prepare=None):
    """Runs every command warmup times untimed, then runs interleaved
    rounds; returns the wall and CPU seconds of each command's runs."""
    for c in cmds * warmup:
        run(c, prepare)
    wall = {c: [] for c in cmds}
    cpu = {c: [] for c in cmds}
    for _ in range(runs):
        order = cmds[:]
        random.shuffle(order)
        for c in order:
            w, u = run(c, prepare)
            wall[c].append(w)
            cpu[c].append(u)
    return wall, cpu
