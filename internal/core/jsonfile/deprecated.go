package jsonfile

import (
	"context"
	"os"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// These forward to package atomicfile, which now owns file I/O. They exist
// only for the callers being rewritten on other branches while this one
// moved the code; remove them once those callers import atomicfile.

// WriteOptions is atomicfile.Options.
//
// Deprecated: use atomicfile.Options.
type WriteOptions = atomicfile.Options

// WriteAtomic is atomicfile.Write.
//
// Deprecated: use atomicfile.Write.
func WriteAtomic(path string, data []byte, opt WriteOptions) error {
	return atomicfile.Write(path, data, opt)
}

// WithLock is atomicfile.WithLock.
//
// Deprecated: use atomicfile.WithLock.
func WithLock(ctx context.Context, locks *lock.Locker, path string, fn func(lk *lock.Lock) error) error {
	return atomicfile.WithLock(ctx, locks, path, fn)
}

// Terminated is atomicfile.Terminated.
//
// Deprecated: use atomicfile.Terminated.
func Terminated(f *os.File, line []byte) []byte { return atomicfile.Terminated(f, line) }
