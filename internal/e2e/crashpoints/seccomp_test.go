//go:build linux && (amd64 || arm64)

// The filter that makes the tracer cheap: without it the tracer stops the
// command twice at every system call it makes (futex, mmap, epoll, reads:
// thousands a run, most of the sweep's CPU was ptrace's stops), with it
// only on entry to the calls of callKinds (SECCOMP_RET_TRACE), which the
// tracer is told of as PTRACE_EVENT_SECCOMP stops. A seccomp filter can
// only be installed by the process itself and is kept across execve, so
// the tracer starts the test binary again as filterExecMain, which
// installs it and execs the command.

package crashpoints

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"unsafe"
)

// envFilterExec, when 1, makes the test binary filterExecMain: install
// the filter, then exec the command of envArgv.
const envFilterExec = "AGENTX_CRASHPOINTS_FILTER_EXEC"

const (
	prSetNoNewPrivs   = 38 // PR_SET_NO_NEW_PRIVS
	prSetSeccomp      = 22 // PR_SET_SECCOMP
	seccompModeFilter = 2  // SECCOMP_MODE_FILTER
	seccompRetAllow   = 0x7fff0000
	seccompRetTrace   = 0x7ff00000
	// ptraceEventSeccomp is the event of a stop the filter's
	// SECCOMP_RET_TRACE made; ptraceOTraceSeccomp asks for such stops.
	ptraceEventSeccomp  = 7
	ptraceOTraceSeccomp = 0x80
	syscallInfoSeccomp  = 3 // PTRACE_SYSCALL_INFO_SECCOMP

	bpfLdWAbs  = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK    = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfRetK    = 0x06 // BPF_RET | BPF_K
	offNr      = 0    // struct seccomp_data: nr
	offArch    = 4    // arch
	maxFilters = 255  // a jump offset is one byte
)

// sockFilter is struct sock_filter.
type sockFilter struct {
	code uint16
	jt   uint8
	jf   uint8
	k    uint32
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// traceFilter is the BPF program: SECCOMP_RET_TRACE for the calls of
// callKinds on this architecture, SECCOMP_RET_ALLOW for every other call
// (another architecture's calls too: none is made here).
func traceFilter() ([]sockFilter, error) {
	nrs := make([]uint32, 0, len(callKinds))
	for nr := range callKinds {
		nrs = append(nrs, uint32(nr))
	}
	sort.Slice(nrs, func(i, j int) bool { return nrs[i] < nrs[j] })
	n := len(nrs)
	if n+2 > maxFilters {
		return nil, fmt.Errorf("%d calls to trace: a jump cannot reach past %d", n, maxFilters)
	}
	prog := []sockFilter{
		{code: bpfLdWAbs, k: offArch},
		{code: bpfJeqK, jt: 1, jf: 0, k: auditArch},
		{code: bpfRetK, k: seccompRetAllow},
		{code: bpfLdWAbs, k: offNr},
	}
	for j, nr := range nrs {
		// To the RET_TRACE after the RET_ALLOW that follows the list.
		prog = append(prog, sockFilter{code: bpfJeqK, jt: uint8(n - j), jf: 0, k: nr})
	}
	return append(prog,
		sockFilter{code: bpfRetK, k: seccompRetAllow},
		sockFilter{code: bpfRetK, k: seccompRetTrace}), nil
}

// filterExecMain installs traceFilter and execs the command of envArgv
// with the environment less the tracer's settings. It returns only on
// failure.
func filterExecMain() int {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(envArgv)), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "crashpoints filter exec: no command:", err)
		return 1
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashpoints filter exec:", err)
		return 1
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTX_CRASHPOINTS_") {
			env = append(env, kv)
		}
	}
	prog, err := traceFilter()
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashpoints filter exec:", err)
		return 1
	}
	// The filter is the calling thread's: the exec must come from it.
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "crashpoints filter exec: prctl(PR_SET_NO_NEW_PRIVS):", e)
		return 1
	}
	fprog := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		fmt.Fprintln(os.Stderr, "crashpoints filter exec: prctl(PR_SET_SECCOMP):", e)
		return 1
	}
	runtime.KeepAlive(prog)
	err = syscall.Exec(path, argv, env)
	fmt.Fprintln(os.Stderr, "crashpoints filter exec:", err)
	return 1
}
