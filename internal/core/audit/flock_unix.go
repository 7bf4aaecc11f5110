//go:build unix

package audit

import (
	"context"
	"os"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// lockOpen takes an exclusive flock(2) on the open trail file, polling so
// ctx bounds the wait. The trail is agentx's alone (the old tools never
// read it), so it needs no lock file the old tools understand: a flock
// costs no file creation, and the kernel releases it when its holder dies,
// so it is never stale. (Package lock's files cost a dozen metadata
// operations, most of the 1 ms an append may take.)
func (t *Trail) lockOpen(ctx context.Context, f *os.File) (unlock func(), err error) {
	return atomicfile.FlockWait(ctx, f, lockWait)
}
