package verify

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
)

// memory checks the store: issue files, manifest, archive, search index.
func (c *checker) memory() {
	store := memory.New(c.ws.MemoryDir(), nil, nil)
	c.restoreCut()
	sub := c.sub()
	// A writer stores an observation in its issue file, then lists it in
	// the manifest, with a pending marker in memory/pending/ from before
	// the first write to after the second: read between the two, the
	// manifest lags. So manifest problems are read again, until a reading
	// with no write in progress agrees with the one before; those that
	// remain while writes go on are a lag (stale), not an error
	// (issue 26: verify beside writers). A write that begins and ends
	// between the two looks for a marker leaves none to see (on a fast
	// disk a whole write fits inside one reading), but it replaced the
	// manifest: a manifest that changed under a reading makes it busy too.
	m0 := c.manifestInfo(store)
	busy := c.writing()
	sub.memoryFiles(store)
	busy = busy || c.writing() || replaced(m0, c.manifestInfo(store))
	for try := 1; c.fsys == nil && try < maxReads && manifestTrouble(sub.rep); try++ {
		if c.opt.beforeRecheck != nil {
			c.opt.beforeRecheck()
		} else {
			time.Sleep(recheckDelay)
		}
		// Only the reading's problems are compared with the next one's:
		// its rows go first, so two readings' are never held at once.
		sub.live, sub.archived, sub.hits = nil, nil, nil
		again := c.sub()
		m0 := c.manifestInfo(store)
		before := c.writing()
		again.memoryFiles(memory.New(c.ws.MemoryDir(), nil, nil))
		same := sameProblems(sub.rep, again.rep)
		sub, busy = again, before || c.writing() || replaced(m0, c.manifestInfo(store))
		if same && !busy {
			break
		}
	}
	if busy {
		lagging(sub.rep)
	}
	if c.fsys == nil {
		c.anchored(sub, busy)
	}
	c.merge(sub)
	if why := store.IndexStale(); why != "" && c.hasMemory(store) {
		c.add(Problem{Code: CodeSearchIndexStale, Severity: Stale, Path: c.rel(store.IndexPath()), Offset: -1,
			Message: "the search index is stale: " + why + " (searches read the issue files until the next write)",
			Repair:  "rebuild the manifest and the index"})
	}
	if why := monitor.IndexStale(c.ws.ClarificationsDir()); why != "" {
		c.add(Problem{Code: CodeMonitorIndexStale, Severity: Stale, Path: c.rel(filepath.Join(c.ws.ClarificationsDir(), monitor.IndexName)), Offset: -1,
			Message: "the monitor's index is stale: " + why + " (the next scan reads what changed)",
			Repair:  "delete it"})
	}
}

// hasMemory reports whether the store holds anything a search index would
// describe (a manifest, an index, an issue file): an empty store needs none.
func (c *checker) hasMemory(store *memory.Store) bool {
	if c.exists(store.ManifestPath()) || c.exists(store.IndexPath()) {
		return true
	}
	issues, err := store.Issues()
	return err == nil && len(issues) > 0
}

// manifestInfo is the manifest as it is now (nil when it cannot be read,
// or when checking a tree, which nothing writes to).
func (c *checker) manifestInfo(store *memory.Store) os.FileInfo {
	if c.fsys != nil {
		return nil
	}
	fi, err := os.Stat(store.ManifestPath())
	if err != nil {
		return nil
	}
	return fi
}

// replaced reports whether a file was written between two looks: every
// write replaces it (a rename: another file), or at least its size or time.
func replaced(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return (a == nil) != (b == nil)
	}
	return !os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime())
}

// recheckDelay is the pause before the memory files are read again: a
// writer's issue file and manifest writes are milliseconds apart.
const recheckDelay = 100 * time.Millisecond

// writing reports whether a memory write is in progress: a pending
// marker younger than the stale threshold (an older one is a writer that
// died, which the next access repairs).
func (c *checker) writing() bool {
	if c.fsys != nil {
		return false
	}
	ents, err := os.ReadDir(filepath.Join(c.ws.MemoryDir(), "pending"))
	if err != nil {
		return false
	}
	now := c.opt.Now()
	for _, e := range ents {
		// Markers are issue-N-*; the search's freshness record
		// (search.fresh) lives beside them and is no write.
		if !strings.HasPrefix(e.Name(), "issue-") {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) < c.opt.StaleAfter {
			return true
		}
	}
	return false
}

// lagging turns the manifest errors of a reading made while writes were
// in progress into stale findings: the writers bring it in line.
func lagging(rep *Report) {
	for i := range rep.Problems {
		p := &rep.Problems[i]
		if p.Severity == Error && strings.HasPrefix(p.Code, "MANIFEST_") {
			p.Severity = Stale
			p.Message += " (read while a memory write was in progress, which brings the manifest in line: run verify again when the writers are done)"
		}
	}
}

// maxReads bounds the readings of the memory files.
const maxReads = 4

// sameProblems reports whether two readings found the same problems.
func sameProblems(a, b *Report) bool {
	if len(a.Problems) != len(b.Problems) {
		return false
	}
	for i := range a.Problems {
		p, q := a.Problems[i], b.Problems[i]
		if p.Code != q.Code || p.Path != q.Path || p.ID != q.ID {
			return false
		}
	}
	return true
}

// manifestTrouble reports whether rep holds a manifest error, which a
// write in progress can cause.
func manifestTrouble(rep *Report) bool {
	for _, p := range rep.Problems {
		if p.Severity == Error && strings.HasPrefix(p.Code, "MANIFEST_") {
			return true
		}
	}
	return false
}
