package statesync

import (
	"context"
	"runtime"
	"strconv"
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
	// Mark, when set, leaves the memory store's pending marker of a
	// memory issue file about to be written, carrying the file's audit
	// line (memory.Store.MarkWrite); Unmark removes it once the lines
	// are appended. A sync killed between its writes and its lines (they
	// come at its end) left observations that no line stored: verify
	// took them for planted (found by internal/e2e/crashpoints). The
	// marker's repair appends the line instead.
	Mark    func(issue int, e audit.Entry) (string, error)
	Unmark  func(marker string)
	markers []string
}

type fileWrite struct {
	before, after []byte
	writes        int
	// marked is the line its marker carries, computed before its only
	// write: Entries reuses it rather than hash the file twice.
	marked *audit.Entry
}

// Wrote is statebranch.Options.Wrote (and RecoverOptions.Wrote).
func (w *Writes) Wrote(rel string, before, after []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil {
		w.files = map[string]*fileWrite{}
	}
	if f := w.files[rel]; f != nil {
		if f.writes == 0 { // marked by Writing, not written before
			f.before = before
		}
		f.after = after
		f.writes++
		return
	}
	w.order = append(w.order, rel)
	w.files[rel] = &fileWrite{before: before, after: after, writes: 1}
}

// Writing is statebranch.Options.Writing: before a memory issue file is
// written, its marker with its line (Mark).
func (w *Writes) Writing(rel string, before, after []byte) {
	if w.Mark == nil {
		return
	}
	issues := MemoryIssues([]string{rel})
	if len(issues) != 1 || rel != "memory/issue-"+strconv.Itoa(issues[0])+".json" {
		return // the archive and other files: no marker of the store's
	}
	e := statediff.AuditEntry(OpSync, rel, before, after)
	marker, err := w.Mark(issues[0], e)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		w.markers = append(w.markers, marker)
	}
	if w.files == nil {
		w.files = map[string]*fileWrite{}
	}
	f := w.files[rel]
	if f == nil {
		w.order = append(w.order, rel)
		f = &fileWrite{}
		w.files[rel] = f
	}
	if f.writes == 0 {
		f.marked = &e
	} else {
		f.marked = nil // written again: its line covers both writes
	}
}

// unmark removes the markers Writing left: their lines are appended.
func (w *Writes) unmark() {
	w.mu.Lock()
	markers := w.markers
	w.markers = nil
	w.mu.Unlock()
	for _, m := range markers {
		if w.Unmark != nil {
			w.Unmark(m)
		}
	}
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
	out := make([]audit.Entry, 0, len(w.order))
	var order []string
	for _, rel := range w.order {
		if w.files[rel].writes > 0 { // marked, then not written: no line
			order = append(order, rel)
		}
	}
	out = out[:len(order)]
	_ = workpool.Run(context.Background(), len(order), runtime.GOMAXPROCS(0), func(i int) {
		rel := order[i]
		f := w.files[rel]
		var e audit.Entry
		if f.marked != nil && f.writes == 1 {
			e = *f.marked
		} else {
			e = statediff.AuditEntry(OpSync, rel, f.before, f.after)
		}
		e.Detail = detail + ": " + rel
		out[i] = e
	}) // never cancelled: no error
	return out
}
