package workspace

import "strings"

// Names of the local-only parts of `.agentx/`, shared by the path methods
// and LocalOnly so the two cannot drift apart.
const (
	spoolName         = "spool"
	cursorsName       = "cursors"
	recallJournalName = "recall-pending.jsonl"
	// MemoryPendingName is the store's crash-marker directory inside
	// `.agentx/memory/` (package memory writes it).
	MemoryPendingName = "pending"
	// MonitorIndexName is the monitor's derived index inside the
	// clarifications directory (package monitor writes it).
	MonitorIndexName = ".monitor-index"
	// SearchIndexName is the memory store's derived search index inside
	// `.agentx/memory/` (package memory writes it).
	SearchIndexName = "search.idx"
)

// Pattern is one gitignore pattern of content under `.agentx/` that never
// leaves the machine: committed, or mirrored to a state branch, it would be
// noise (a lock, a temporary) or stale (a derived index).
type Pattern struct {
	// Glob is the gitignore pattern, relative to `.agentx/`.
	Glob string
	// Derived is true for indexes rebuilt from the JSON files when missing;
	// false for transient files (locks, temporaries, spools, markers).
	Derived bool
}

// LocalOnly lists what stays local: locks and atomic-write temporaries, the
// capture spool and transcript cursors, the store's crash markers, the
// recall journal (and the batch being folded), and the derived indexes.
func LocalOnly() []Pattern {
	return []Pattern{
		{Glob: "*.lock"},
		{Glob: "*.lock.*"},
		{Glob: ".*.tmp-*"},
		{Glob: spoolName + "/"},
		{Glob: cursorsName + "/"},
		{Glob: "memory/" + MemoryPendingName + "/"},
		{Glob: recallJournalName + "*"},
		{Glob: MonitorIndexName, Derived: true},
		{Glob: SearchIndexName, Derived: true},
	}
}

// Gitignore is the content of `.agentx/.gitignore`: LocalOnly, transient
// patterns first, each group under a comment saying why it is ignored.
func Gitignore() []byte {
	var b strings.Builder
	for _, derived := range []bool{false, true} {
		if derived {
			b.WriteString("# derived: rebuilt from the JSON files when missing\n")
		} else {
			b.WriteString("# transient: locks, temporaries, spools, crash markers\n")
		}
		for _, p := range LocalOnly() {
			if p.Derived == derived {
				b.WriteString(p.Glob + "\n")
			}
		}
	}
	return []byte(b.String())
}
