package testbin

import (
	"fmt"
	"os"
	"syscall"
)

// pipeHolds is what FilledPipe writes at most: every pipe holds 4 KiB
// without a reader (POSIX's PIPE_BUF, Linux's page), Linux's and macOS's
// 64 KiB by default; a host payload is a few hundred bytes.
const pipeHolds = 16 << 10

// FilledPipe returns the read end of a pipe that already holds data, its
// write end closed: a process given it as standard input finds the whole
// payload there the moment it reads, then EOF, as a hook does when its
// host wrote the payload before the hook looked. exec.Cmd's Stdin from a
// Reader is no such thing: a goroutine of the test writes it after the
// process started, and under load that can come after the hook stopped
// waiting for a payload, so the test's verdict would hang on the
// scheduler. The caller closes the returned file (after the process
// started: the child holds its own copy).
func FilledPipe(data []byte) (*os.File, error) {
	if len(data) > pipeHolds {
		return nil, fmt.Errorf("testbin: a %d-byte stdin is more than a pipe surely holds (%d bytes) before its reader starts", len(data), pipeHolds)
	}
	r, w, err := os.Pipe() // before the lock: os.Pipe takes its read side on some systems
	if err != nil {
		return nil, err
	}
	// No fork of this process while the write end is open: a child would
	// hold it until its exec, and the reader's EOF would wait for that.
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	if _, err := w.Write(data); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("testbin: fill the stdin pipe: %w", err)
	}
	if err := w.Close(); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}
