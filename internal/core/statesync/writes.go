package statesync

import (
	"context"
	"runtime"
	gosync "sync"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/statediff"
	"github.com/agentx-dev/agentx/internal/core/workpool"
)

// OpSync is the audit name of the local files a sync changed: what other
// writers did, arriving through the state branch (or a --init-from
// revision), recorded here because it changes this clone's state.
const OpSync = "sync.merge"

// Writes collects the local files one sync wrote: each file's content
// before the sync's first write and after its last (a sync that lost a
// push race merges and may write a file again).
type Writes struct {
	mu    gosync.Mutex
	order []string
	files map[string]*fileWrite
}

type fileWrite struct{ before, after []byte }

// Wrote is statebranch.Options.Wrote (and RecoverOptions.Wrote).
func (w *Writes) Wrote(rel string, before, after []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil {
		w.files = map[string]*fileWrite{}
	}
	if f := w.files[rel]; f != nil {
		f.after = after
		return
	}
	w.order = append(w.order, rel)
	w.files[rel] = &fileWrite{before: before, after: after}
}

// Entries are the audit lines of the writes: one per file, naming the
// records or observations that changed in it with their hashes before and
// after (statediff.AuditEntry).
func (w *Writes) Entries(detail string) []audit.Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Each entry parses both sides of its file and hashes every record
	// and observation in it: a fresh clone's first pull (1,000 memory
	// files, 100K observations) spends about a second of CPU here, inside
	// the hook's budget, so the files are spread over the processors.
	out := make([]audit.Entry, len(w.order))
	_ = workpool.Run(context.Background(), len(w.order), runtime.GOMAXPROCS(0), func(i int) {
		rel := w.order[i]
		f := w.files[rel]
		e := statediff.AuditEntry(OpSync, rel, f.before, f.after)
		e.Detail = detail + ": " + rel
		out[i] = e
	}) // never cancelled: no error
	return out
}
