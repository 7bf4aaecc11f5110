package sync

import (
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// The scheduled monitor's cache. A monitor run must not read every ledger
// to learn that nothing is due: the sync state records, beside each
// ledger's blob id, what the monitor needs of that blob (whether it holds
// an open record, and when the earliest SLA among its waiting records
// passes). A ledger whose blob is the one recorded and whose SLA has not
// passed is not read; a changed ledger is, and when it holds an open
// record so is every other ledger with one (a deadlock spans issues).
// Rather than "holds an open record", a Watch lists the waits of its
// blocking records (requester, owner): a skipped ledger is read for a
// changed one only when one of its waits lies on a cycle through a wait
// of the changed ledgers.
//
// Every run that records a blob (sync, the sync after ingest and monitor)
// records its Watch with it, so the cache follows every writer.

// BlobWatch is a ledger blob's Watch, as the monitor learned it.
type BlobWatch struct {
	Blob  string
	Watch *Watch
}

// learn records, for issues whose recorded blob is the one the monitor
// read and has no Watch yet (a state written before watches were), what
// the monitor learned: the sync skips such ledgers by blob and would
// never record one, and the monitor would read them every run.
func (st *State) learn(learned map[int]BlobWatch) {
	for n, bw := range learned {
		if is, ok := st.Get(n); ok && is.Watch == nil && is.Blob != "" && is.Blob == bw.Blob {
			is.Watch = bw.Watch
			st.Set(n, is)
		}
	}
}

// Watch is what the monitor needs to know of one ledger blob.
type Watch struct {
	// Waits are the (requester, owner) pairs of its blocking records
	// waiting for an answer: the edges it adds to the wait-for graph.
	Waits [][2]string `json:"waits,omitempty"`
	// Due is when the earliest SLA of a waiting record passes (RFC 3339;
	// "" when none waits).
	Due string `json:"due,omitempty"`
}

func (w *Watch) equal(o *Watch) bool {
	if w == nil || o == nil {
		return w == o
	}
	if w.Due != o.Due || len(w.Waits) != len(o.Waits) {
		return false
	}
	for i := range w.Waits {
		if w.Waits[i] != o.Waits[i] {
			return false
		}
	}
	return true
}

// watchOf summarises l for the monitor.
func watchOf(l *ledger.Ledger) *Watch {
	w := &Watch{}
	var due time.Time
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		if !r.Status.Waiting() {
			continue
		}
		if r.Blocking && r.From != r.To {
			w.Waits = append(w.Waits, [2]string{r.From, r.To})
		}
		if t := r.StaleAfterTime(); !t.IsZero() && (due.IsZero() || t.Before(due)) {
			due = t
		}
	}
	if !due.IsZero() {
		w.Due = due.UTC().Format(time.RFC3339Nano)
	}
	return w
}

// dueAt reports whether a record of the ledger may time out at now.
func (w *Watch) dueAt(now time.Time) bool {
	if w.Due == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, w.Due)
	return err != nil || now.After(t)
}

// monitorPick sorts the ledgers (indexes into issues) of a monitor run
// at now, given the sync state cache (nil: every ledger is read): those
// to read because they changed (fresh) or are due, and those skipped
// that hold an open record (read after all when a fresh one holds one:
// a changed ledger may close a wait cycle with ledgers that did not
// change).
func monitorPick(snap *StateSnapshot, issues []int, paths []string, cache *State, now time.Time) (pick []int, fresh map[int]bool, openSkipped []int) {
	fresh = map[int]bool{}
	for i, n := range issues {
		var is IssueState
		ok := false
		if cache != nil {
			is, ok = cache.Get(n)
		}
		switch {
		case !ok || is.Watch == nil || is.Blob != snap.Blobs[paths[i]]:
			fresh[i] = true
			pick = append(pick, i)
		case is.Watch.dueAt(now):
			pick = append(pick, i)
		case len(is.Watch.Waits) > 0:
			openSkipped = append(openSkipped, i)
		}
	}
	return pick, fresh, openSkipped
}

// onCycles returns the agents on a wait cycle through one of fresh, in
// the graph of fresh and others.
func onCycles(fresh, others [][2]string) map[string]bool {
	fwd, back := map[string][]string{}, map[string][]string{}
	for _, list := range [][][2]string{fresh, others} {
		for _, e := range list {
			fwd[e[0]] = append(fwd[e[0]], e[1])
			back[e[1]] = append(back[e[1]], e[0])
		}
	}
	out := map[string]bool{}
	for _, e := range fresh {
		from := reach(fwd, e[1]) // where the owner's waits lead
		to := reach(back, e[0])  // who waits, through others, on the requester
		if !from[e[0]] {
			continue // no cycle through this wait
		}
		for a := range from {
			if to[a] {
				out[a] = true
			}
		}
	}
	return out
}

func reach(adj map[string][]string, start string) map[string]bool {
	seen := map[string]bool{start: true}
	stack := []string{start}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, b := range adj[a] {
			if !seen[b] {
				seen[b] = true
				stack = append(stack, b)
			}
		}
	}
	return seen
}
