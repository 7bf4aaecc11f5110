//go:build unix && !linux

package testenv

import "syscall"

// rusageThread: no thread's own CPU here, the whole process's.
const rusageThread = syscall.RUSAGE_SELF
