//go:build unix

// Waiting until nothing works in a world any more (quiesce): the
// processes /proc shows working in its directory (busy), told from the
// machine's older ones by the process ids handed out since the world was
// made (pidMark, sinceWorld).

package statesafety

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// busy says whether a process other than this one still works in dir:
// its working directory or its command line is there (git -C DIR), and it
// is no zombie (an orphan's zombie waits for init to reap it). agentx runs
// git in process groups of its own and rebuilds the memory index in a
// session of its own, so neither a process group nor the children of the
// process started tell when everything a step started has ended.
func busy(dir string) bool {
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(procs) == 0 {
		return false // no /proc: nothing to wait for that can be seen
	}
	isNew := sinceWorld(dir)
	self := fmt.Sprint(os.Getpid())
	for _, p := range procs {
		if filepath.Base(p) == self || !isNew(filepath.Base(p)) {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if !strings.HasPrefix(cwd, dir) && !bytes.Contains(cmdline, []byte(dir)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ...: comm may hold spaces.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
				continue
			}
		}
		return true
	}
	return false
}

// pidMark is where the process ids of this process's namespace stood at
// an instant: the last one handed out (/proc/loadavg) and the forks of
// the whole system so far (/proc/stat), which bounds how many ids were
// handed out since.
type pidMark struct{ last, forks, max int64 }

// readPidMark reads the mark now; false where it cannot be read, or
// /proc is not of this process's namespace.
func readPidMark() (pidMark, bool) {
	var m pidMark
	self, err := os.Readlink("/proc/self")
	if err != nil || self != fmt.Sprint(os.Getpid()) {
		return m, false
	}
	load, err1 := os.ReadFile("/proc/loadavg")
	stat, err2 := os.ReadFile("/proc/stat")
	pidMax, err3 := os.ReadFile("/proc/sys/kernel/pid_max")
	if err1 != nil || err2 != nil || err3 != nil {
		return m, false
	}
	f := strings.Fields(string(load))
	_, forks, _ := strings.Cut(string(stat), "\nprocesses ")
	forks, _, _ = strings.Cut(forks, "\n")
	var e1, e2, e3 error
	if len(f) == 5 {
		m.last, e1 = strconv.ParseInt(f[4], 10, 64)
	}
	m.forks, e2 = strconv.ParseInt(forks, 10, 64)
	m.max, e3 = strconv.ParseInt(strings.TrimSpace(string(pidMax)), 10, 64)
	return m, len(f) == 5 && e1 == nil && e2 == nil && e3 == nil && m.max > 0
}

// worldMarks holds, by world directory, the pidMark taken just before
// the world was made.
var worldMarks sync.Map

// sinceWorld returns what tells the process ids handed out since world
// dir was made, as /proc names them, from those of processes older than
// it, which cannot be working in it (nothing made before the world knew
// its name): busy then reads nothing of the machine's other processes,
// where it read two files of each, a third of the test binary's own CPU
// (issue 37). Every id is new where that cannot be told: no mark, or so
// many forks since that the ids may have come round again. Read after
// /proc was listed, so that every process listed is older than the mark
// now.
func sinceWorld(dir string) func(pid string) bool {
	all := func(string) bool { return true }
	v, ok := worldMarks.Load(dir)
	if !ok {
		return all
	}
	then := v.(pidMark)
	now, ok := readPidMark()
	if !ok || now.max != then.max || now.forks-then.forks >= then.max {
		return all
	}
	span := (now.last - then.last + then.max) % then.max
	return func(pid string) bool {
		n, err := strconv.ParseInt(pid, 10, 64)
		if err != nil {
			return true
		}
		d := (n - then.last + then.max) % then.max
		return d > 0 && d <= span
	}
}

// quiesce waits until nothing works in dir any more (busy), at most a
// minute.
func quiesce(dir string) error {
	deadline := time.Now().Add(time.Minute)
	for busy(dir) {
		if time.Now().After(deadline) {
			return fmt.Errorf("processes still work in %s after a minute", dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}
