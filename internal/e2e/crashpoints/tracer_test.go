//go:build linux && (amd64 || arm64)

// The tracer: a ptrace(2) loop that runs one command and kills its whole
// process group with SIGKILL on entry to its Nth mutating system call,
// counted over every thread of the process. strace's --inject cannot do
// that for a Go program: it counts each system call of each thread apart
// (strace 6.1: `-f -e inject=write:signal=KILL:when=5` never fires in a
// program whose four threads write four times each), and which thread of
// the Go runtime makes a call is the scheduler's choice. One global count
// is as deterministic as the program's own order of calls.
//
// The tracer runs in a process of its own (the test binary started again
// with envTrace set, see TestMain): it waits for any child with wait4(-1),
// which in the test process would take the exit statuses of other tests'
// children, and it makes itself the subreaper of what the command starts,
// so that when it exits every process the command left behind (a git
// killed with its parent, a background sync) has ended too.

package crashpoints

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// The tracer's settings, passed in its environment by tracedEnv.
const (
	envTrace  = "AGENTX_CRASHPOINTS_TRACE"  // the kill point N, 0 to count only
	envArgv   = "AGENTX_CRASHPOINTS_ARGV"   // the command, a JSON array
	envReport = "AGENTX_CRASHPOINTS_REPORT" // where the JSON report goes
	// envChildren, when 1, counts the calls of the processes the command
	// starts (git) too, in one count with its own.
	envChildren = "AGENTX_CRASHPOINTS_CHILDREN"
)

// report is what one traced run did.
type report struct {
	// Count is the number of mutating calls the command entered (up to
	// and including the one it was killed at).
	Count int `json:"count"`
	// Killed says whether the command was killed (at call Count); At
	// names that call.
	Killed bool   `json:"killed"`
	At     string `json:"at,omitempty"`
	// Exit is the command's exit code when it was not killed, -1 when a
	// signal ended it.
	Exit int `json:"exit"`
	// Calls names every mutating call, in order (count-only runs).
	Calls []string `json:"calls,omitempty"`
	Error string   `json:"error,omitempty"`
}

// tracerMain is the tracer process's main.
func tracerMain() int {
	killAt, err := strconv.Atoi(os.Getenv(envTrace))
	var argv []string
	if err == nil {
		err = json.Unmarshal([]byte(os.Getenv(envArgv)), &argv)
	}
	var rep report
	if err == nil {
		rep, err = trace(killAt, argv)
	}
	if err != nil {
		rep.Error = err.Error()
	}
	data, _ := json.Marshal(rep)
	if err := os.WriteFile(os.Getenv(envReport), data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "crashpoints tracer:", err)
		return 1
	}
	return 0
}

const (
	ptraceGetSyscallInfo = 0x420e // PTRACE_GET_SYSCALL_INFO, Linux 5.3
	syscallInfoEntry     = 1      // PTRACE_SYSCALL_INFO_ENTRY
	prSetChildSubreaper  = 36     // PR_SET_CHILD_SUBREAPER
)

// trace runs argv under ptrace and kills its process group on entry to
// its killAt-th mutating call (never when killAt is 0).
func trace(killAt int, argv []string) (report, error) {
	rep := report{Exit: -1}
	// Every ptrace request must come from the thread that traces.
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return rep, fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", e)
	}
	// The test binary again, as filterExecMain: it installs the filter
	// that stops the command at the calls of callKinds only, then execs
	// it (seccomp_test.go).
	self, err := os.Executable()
	if err != nil {
		return rep, err
	}
	cmd := exec.Command(self)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTX_CRASHPOINTS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	argvJSON, err := json.Marshal(argv)
	if err != nil {
		return rep, err
	}
	cmd.Env = append(cmd.Env, envFilterExec+"=1", envArgv+"="+string(argvJSON))
	// Its own process group: the kill takes the git processes it runs
	// with it, as a closed terminal or a killed session would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return rep, err
	}
	pid := cmd.Process.Pid
	var ws syscall.WaitStatus
	// The child stops with SIGTRAP once its execve is done.
	if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil {
		return rep, fmt.Errorf("wait for the traced command to start: %w", err)
	}
	if !ws.Stopped() {
		return rep, fmt.Errorf("the traced command did not stop at its start: %v", ws)
	}
	// Threads (clone) are followed, and the processes it starts (git):
	// they inherit the filter, and a filtered call with no tracer fails
	// (ENOSYS). Their calls count only with envChildren: git's own writes
	// (a fetch's objects and refs, a push's remote side) become kill
	// points, and the order of two processes' calls may differ from run
	// to run (the verdict may not).
	children := os.Getenv(envChildren) == "1"
	opts := syscall.PTRACE_O_TRACECLONE | syscall.PTRACE_O_TRACEFORK | syscall.PTRACE_O_TRACEVFORK |
		syscall.PTRACE_O_TRACEEXEC | ptraceOTraceSeccomp | 0x100000 /* PTRACE_O_EXITKILL */
	if err := syscall.PtraceSetOptions(pid, opts); err != nil {
		return rep, fmt.Errorf("ptrace(SETOPTIONS): %w", err)
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return rep, fmt.Errorf("ptrace(CONT): %w", err)
	}
	// seen are the tracees (threads and, with envChildren, processes): a
	// kill in a git process, which agentx starts in a process group of
	// its own, takes every one of them.
	seen := map[int]bool{pid: true}
	for {
		wpid, err := syscall.Wait4(-1, &ws, syscall.WALL, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.ECHILD) {
			return rep, nil // the command and everything it left have ended
		}
		if err != nil {
			return rep, fmt.Errorf("wait4: %w", err)
		}
		switch {
		case ws.Exited():
			if wpid == pid {
				rep.Exit = ws.ExitStatus()
			}
			continue
		case ws.Signaled():
			continue
		case !ws.Stopped():
			continue
		}
		seen[wpid] = true
		inject := 0
		switch sig := ws.StopSignal(); {
		case sig == syscall.SIGTRAP && ws.TrapCause() == ptraceEventSeccomp:
			// The entry of a call of callKinds (the filter's stop).
			if rep.Killed || !children && !threadOf(pid, wpid) {
				break
			}
			name, ok := mutating(wpid)
			if !ok {
				break
			}
			rep.Count++
			if killAt == 0 {
				rep.Calls = append(rep.Calls, name)
				break
			}
			if rep.Count == killAt {
				rep.Killed, rep.At = true, name
				// On entry: the call is never made. The command's
				// process group (what it starts in it), and with
				// envChildren every process traced and its group: the
				// whole session dies at once, as on a crash.
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				if children {
					for t := range seen {
						if pg, err := syscall.Getpgid(t); err == nil {
							_ = syscall.Kill(-pg, syscall.SIGKILL)
						}
						_ = syscall.Kill(t, syscall.SIGKILL)
					}
				}
				continue
			}
		case sig == syscall.SIGTRAP, sig == syscall.SIGSTOP:
			// A ptrace event (a new thread) or a new thread's first stop.
		default:
			inject = int(sig) // the command's own signal (SIGURG, SIGCHLD...)
		}
		// A thread may be gone (killed) meanwhile: ESRCH is no error.
		_ = syscall.PtraceCont(wpid, inject)
	}
}

// mutating returns a name for the system call thread tid is entering when
// it is one that can change a file (it is the entry, not the exit, and
// one of callKinds, an open for writing or a write to a file, pipe or
// terminal rather than to the runtime's eventfd).
func mutating(tid int) (string, bool) {
	var info [88]byte // struct ptrace_syscall_info
	if _, _, e := syscall.Syscall6(syscall.SYS_PTRACE, ptraceGetSyscallInfo, uintptr(tid),
		uintptr(len(info)), uintptr(unsafe.Pointer(&info[0])), 0, 0); e != 0 {
		return "", false
	}
	if info[0] != syscallInfoEntry && info[0] != syscallInfoSeccomp {
		return "", false
	}
	nr := binary.LittleEndian.Uint64(info[24:])
	var args [6]uint64
	for i := range args {
		args[i] = binary.LittleEndian.Uint64(info[32+8*i:])
	}
	k, ok := callKinds[nr]
	if !ok {
		return "", false
	}
	if k.flags >= 0 && args[k.flags]&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_CREAT|syscall.O_TRUNC) == 0 {
		return "", false // an open for reading
	}
	var parts []string
	for _, i := range k.paths {
		parts = append(parts, readString(tid, uintptr(args[i])))
	}
	if k.fd >= 0 {
		target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", tid, int32(args[k.fd])))
		if strings.HasPrefix(target, "anon_inode:") {
			return "", false // the runtime's eventfd or epoll, not a file
		}
		parts = append(parts, target)
	}
	return k.name + "(" + strings.Join(parts, ", ") + ")", true
}

// threadOf says whether tid is a thread of process pid (not of a process
// it started).
func threadOf(pid, tid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", pid, tid))
	return err == nil
}

// callKind says how to read one system call: its name, the argument that
// holds the open flags (-1: none), those that hold paths, the one that
// holds the file descriptor written (-1: none).
type callKind struct {
	name  string
	flags int
	paths []int
	fd    int
}

// readString reads the NUL-terminated string at addr in tid's memory
// (at most 4 KiB).
func readString(tid int, addr uintptr) string {
	if addr == 0 {
		return ""
	}
	var out []byte
	buf := make([]byte, 64)
	for len(out) < 4096 {
		n, err := syscall.PtracePeekData(tid, addr+uintptr(len(out)), buf)
		if n <= 0 || err != nil {
			break
		}
		if i := strings.IndexByte(string(buf[:n]), 0); i >= 0 {
			return string(append(out, buf[:i]...))
		}
		out = append(out, buf[:n]...)
	}
	return string(out)
}
