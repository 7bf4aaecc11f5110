package atomicfile

import "sync/atomic"

// beforeCreate is the process's call before a temporary is created (nil:
// none). The CLI arms its signal handler there for a command that arms it
// on demand (`memory search`, whose writes are the derived records a
// search leaves): a signal before the handler is armed ends the process at
// once, and one between a temporary and its rename would leave the
// temporary behind.
var beforeCreate atomic.Pointer[func()]

// SetBeforeCreate makes fn the call made before every temporary this
// process creates (Write, Stage), and returns what puts the previous one
// back. fn must be cheap once it has run, and safe from any goroutine, and
// must not start a process: for an executable it runs under
// syscall.ForkLock's read lock (newTemp), which a fork waits for.
func SetBeforeCreate(fn func()) (restore func()) {
	var p *func()
	if fn != nil {
		p = &fn
	}
	old := beforeCreate.Swap(p)
	return func() { beforeCreate.Store(old) }
}

// announceCreate calls the hook set by SetBeforeCreate, if any.
func announceCreate() {
	if fn := beforeCreate.Load(); fn != nil {
		(*fn)()
	}
}
