package workspace

import (
	"path"
	"strings"
)

// Names of the local-only parts of `.agentx/`, shared by the path methods
// and LocalOnly so the two cannot drift apart.
const (
	spoolName         = "spool"
	cursorsName       = "cursors"
	recallJournalName = "recall-pending.jsonl"
	// WriterIDName is this clone's writer id inside `.agentx/state/`
	// (package statebranch creates it).
	WriterIDName = "writer-id"
	// MemoryPendingName is the store's crash-marker directory inside
	// `.agentx/memory/` (package memory writes it).
	MemoryPendingName = "pending"
	// MonitorIndexName is the monitor's derived index inside the
	// clarifications directory (package monitor writes it).
	MonitorIndexName = ".monitor-index"
	// ArtifactIndexName is the artifact ledgers' scan index inside the
	// artifacts directory (package artifact writes it).
	ArtifactIndexName = ".artifact-index"
	// SearchIndexName is the memory store's derived search index inside
	// `.agentx/memory/` (package memory writes it).
	SearchIndexName = "search.idx"
	// SearchFilesName is the per-issue-file record of what the search
	// index holds (size, time, hash) inside `.agentx/memory/` (package
	// memory writes it).
	SearchFilesName = "search.files"
	// SearchDeltaName is the memory store's derived delta segment (the
	// observations written since search.idx and manifest.json were) inside
	// `.agentx/memory/` (package memory writes it).
	SearchDeltaName = "search.delta"
	// AnchorsBaseName and AnchorsStateName are the derived index of the
	// audit trail's anchors of observations inside `.agentx/memory/pending/`
	// (package memanchor writes them; before issue 35 they were in
	// `.agentx/memory/`, where their names stay ignored).
	AnchorsBaseName  = "anchors.idx"
	AnchorsStateName = "anchors.state"
	// IndexRebuildName is the marker (and, with ".log", the output) of a
	// memory index rebuild a hook left running in the background inside
	// `.agentx/memory/` (package hookcmd writes it).
	IndexRebuildName = "index-rebuild"
	// HookLogName is the bounded log of the last hook runs and their
	// warnings inside `.agentx/` (package hooklog writes it; doctor reads it).
	HookLogName = "hook-log.jsonl"
	// RetentionName is the hooks' retention bookkeeping inside
	// `.agentx/memory/` (package retention writes it).
	RetentionName = "retention.json"
	// ConfigCacheName is the derived cache of the loaded configuration
	// inside `.agentx/` (package config writes it).
	ConfigCacheName = ".config-cache"
	// InboxName is the delivery stamps inside `.agentx/state/` (package
	// delivery writes them): when an answer last arrived, and what each
	// running session has seen of it.
	InboxName = "inbox"
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
// recall journal (and the batch being folded), the marker and log of a
// background index rebuild, the log of the last hook runs, the hooks'
// retention bookkeeping, this clone's writer id (a copy committed and
// cloned would make two machines one writer), and the derived indexes.
func LocalOnly() []Pattern {
	return []Pattern{
		{Glob: "*.lock"},
		{Glob: "*.lock.*"},
		{Glob: ".*.tmp-*"},
		{Glob: spoolName + "/"},
		// The spool as a path too: `spool/` matches directories only, and
		// a symbolic link in its place would be committed (issue 32).
		{Glob: "memory/" + spoolName},
		{Glob: cursorsName + "/"},
		{Glob: "memory/" + MemoryPendingName + "/"},
		{Glob: IndexRebuildName + "*"},
		{Glob: recallJournalName + "*"},
		{Glob: HookLogName + "*"},
		{Glob: "state/" + WriterIDName},
		{Glob: "memory/" + RetentionName},
		{Glob: "state/" + InboxName + "/"},
		{Glob: MonitorIndexName, Derived: true},
		{Glob: ArtifactIndexName, Derived: true},
		{Glob: SearchIndexName, Derived: true},
		{Glob: SearchFilesName, Derived: true},
		{Glob: SearchDeltaName, Derived: true},
		{Glob: AnchorsBaseName, Derived: true},
		{Glob: AnchorsStateName, Derived: true},
		{Glob: ConfigCacheName, Derived: true},
	}
}

// IsLocalOnly reports whether rel (relative to `.agentx/`, slash-separated,
// a directory ending in "/") is covered by a LocalOnly pattern, read the
// way git reads them: a pattern ending in "/" names a directory at any
// depth (or, holding another "/", at that path), one with "*" is matched
// against the base name, any other names a base name. Everything else
// under `.agentx/` is durable: it is what a checkpoint keeps.
func IsLocalOnly(rel string) bool {
	base := path.Base(rel)
	for _, p := range LocalOnly() {
		g := p.Glob
		switch {
		case strings.HasSuffix(g, "/"):
			dir := rel
			if !strings.HasSuffix(dir, "/") {
				dir = path.Dir(rel) + "/"
			}
			if strings.HasPrefix(dir, g) || (!strings.Contains(strings.TrimSuffix(g, "/"), "/") && strings.Contains("/"+dir, "/"+g)) {
				return true
			}
		case strings.Contains(g, "*"):
			// The literal parts must all be in the name: most names fail
			// here, without the cost of a match (a scan asks per file).
			if containsAll(base, strings.Split(g, "*")) {
				if ok, _ := path.Match(g, base); ok {
					return true
				}
			}
		case g == base, g == rel: // a name, or a path such as state/writer-id
			return true
		}
	}
	return false
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// PerMachine lists, relative to `.agentx/`, what every hook or change
// rewrites on this machine: the agents' status, the event log, the audit
// trail and the metrics. Durable (checkpoints keep them, so they are no
// LocalOnly pattern), but per machine: committed, they would change at
// every hook and conflict between clones, so `.agentx/.gitignore` lists
// them (issue 37: they showed in `git status` after one session).
func PerMachine() []string {
	return []string{"state/agent-status.json", "state/events.jsonl", "state/audit*.jsonl", "state/metrics/"}
}

// perMachineHeader opens the per-machine group of `.agentx/.gitignore`.
const perMachineHeader = "# per machine: rewritten by every hook here (status, events, audit trail, metrics); checkpoints keep them"

// Gitignore is the content of `.agentx/.gitignore`: LocalOnly, transient
// patterns first, then PerMachine, each group under a comment saying why
// it is ignored.
func Gitignore() []byte {
	var b strings.Builder
	for _, derived := range []bool{false, true} {
		if derived {
			b.WriteString("# derived: rebuilt from the JSON files when missing\n")
		} else {
			b.WriteString("# local: locks, temporaries, spools, crash markers, this clone's writer id\n")
		}
		for _, p := range LocalOnly() {
			if p.Derived == derived {
				b.WriteString(p.Glob + "\n")
			}
		}
	}
	b.WriteString(perMachineHeader + "\n")
	for _, p := range PerMachine() {
		b.WriteString(p + "\n")
	}
	return []byte(b.String())
}

// OnStateBranch lists, relative to `.agentx/`, what GitHub Mode keeps off
// every code branch: state/ (its ledgers go to the state branch; agent
// status and the event log beside them never leave the machine), memory/
// (issue files and archive go to the state branch, the manifest and index
// stay local) and digests/. Clarification state is team coordination, not
// code: on code branches it would conflict at every merge and travel with
// the wrong branch.
func OnStateBranch() []string { return []string{"state/", "memory/", "digests/"} }

// stateBranchHeader opens the GitHub Mode block of `.agentx/.gitignore`.
const stateBranchHeader = "# GitHub Mode: shared state lives on the state branch (agentx-hook sync), never on code branches"

// GitignoreForMode is the `.gitignore` content for a mode: Gitignore, plus
// in GitHub Mode the OnStateBranch block.
func GitignoreForMode(mode string) []byte {
	return AddStateBranchBlock(Gitignore(), mode)
}

// AddStateBranchBlock returns content with the GitHub Mode block appended
// when mode is "github" and the block is not there yet; any other content
// a user wrote is kept as it is.
func AddStateBranchBlock(content []byte, mode string) []byte {
	if mode != "github" || strings.Contains(string(content), stateBranchHeader) {
		return content
	}
	var b strings.Builder
	b.Write(content)
	if len(content) > 0 && !strings.HasSuffix(string(content), "\n") {
		b.WriteString("\n")
	}
	b.WriteString(stateBranchHeader + "\n")
	for _, p := range OnStateBranch() {
		b.WriteString(p + "\n")
	}
	return []byte(b.String())
}
