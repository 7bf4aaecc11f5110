package verify

import "github.com/agentx-dev/agentx/internal/core/process"

// The problem codes. They are a contract with scripts (docs/verify.md):
// never rename one. The audit trail's codes (AUDIT_*) are package audit's.
const (
	// Files and paths.
	CodeWorkspaceUnsafe = "WORKSPACE_UNSAFE" // a state directory is a symlink leading outside the workspace
	CodeSymlink         = "SYMLINK"          // a state file is a symlink (not followed)
	CodeNotRegular      = "NOT_REGULAR"      // a FIFO, a directory, a device where a file is expected
	CodeUnreadable      = "UNREADABLE"       // a read failed (permissions, size limit)

	// Configuration.
	CodeConfigCorrupt    = "CONFIG_CORRUPT"      // agentx.toml does not load (not TOML, a wrong type, over the limits)
	CodeWorkflowCorrupt  = "WORKFLOW_CORRUPT"    // a workflows/*.toml file does not load
	CodeConfigUnknownKey = "CONFIG_UNKNOWN_KEY"  // a key or section of agentx.toml the toolkit does not read (warning)
	CodeConfigMode       = "CONFIG_MODE_UNKNOWN" // a mode other than local or github (warning)

	// Ledgers.
	CodeLedgerCorrupt     = "LEDGER_CORRUPT"         // does not parse
	CodeLedgerIssue       = "LEDGER_ISSUE_MISMATCH"  // issueNumber is not the file name's
	CodeRecordIssue       = "RECORD_ISSUE_MISMATCH"  // a record's issueNumber is not the ledger's
	CodeRecordIDDuplicate = "RECORD_ID_DUPLICATE"    // two records under one id
	CodeRecordIDForeign   = "RECORD_ID_FOREIGN"      // a CLR id of another issue
	CodeRecordStatus      = "RECORD_STATUS_UNKNOWN"  // not one of the six statuses
	CodeRoundInvalid      = "ROUND_INVALID"          // round < 0, or beyond maxRounds
	CodeEntryBeyondRound  = "ENTRY_BEYOND_ROUND"     // an entry of a round the record has not reached
	CodeEntryAfterFinal   = "ENTRY_AFTER_FINAL"      // an entry the protocol forbids after a resolution or escalation
	CodeEntryType         = "ENTRY_TYPE_UNKNOWN"     // not question, answer, resolution or escalation
	CodeStatusThread      = "STATUS_THREAD_MISMATCH" // the status does not follow from the thread
	CodeTimestamp         = "TIMESTAMP_INVALID"      // a time that does not parse
	CodeEntryHash         = "ENTRY_HASH_MISMATCH"    // an entry changed since it was written
	CodeRecordHash        = "RECORD_HASH_MISMATCH"   // a field a record keeps from its creation changed
	CodeLedgerDeleted     = "LEDGER_DELETED"         // a ledger the last checkpoint holds is gone
	CodeRecordDeleted     = "RECORD_DELETED"         // a record the last checkpoint holds is gone
	CodeRecordRewritten   = "RECORD_REWRITTEN"       // a record differs from the last checkpoint's in what never changes
	CodeCheckpointForged  = "CHECKPOINT_UNAUDITED"   // a checkpoint commit no checkpoint.create audit line names
	CodeCheckpointLost    = "CHECKPOINT_LINE_LOST"   // agentx's own checkpoint (its pending mark) whose line a kill cut off (--repair appends it)
	CodeRestoreLost       = "RESTORE_LINE_LOST"      // a checkpoint restore killed before its checkpoint.restore line (its pending mark; --repair appends it)
	CodeGitTemp           = "GIT_TEMP_LEFTOVER"      // a git object or agentx temporary left by a killed writer
	CodeUnhashed          = "UNHASHED"               // entries or observations without a hash (info)

	// Other state files.
	CodeStatusCorrupt = "AGENT_STATUS_CORRUPT" // agent-status.json does not parse
	CodeEventsCorrupt = "EVENTS_CORRUPT"       // a line of events.jsonl is not JSON
	CodeEventsTorn    = "EVENTS_TORN"          // its last line is cut short (info)

	// Memory.
	CodeMemoryCorrupt     = "MEMORY_FILE_CORRUPT"   // an issue or archive file does not parse
	CodeMemoryIssue       = "MEMORY_ISSUE_MISMATCH" // issueNumber is not the file name's, or an observation's is not the file's
	CodeObsDuplicate      = "OBSERVATION_DUPLICATE" // one id stored twice (in one file or two)
	CodeObsHash           = "OBSERVATION_HASH_MISMATCH"
	CodeManifestCorrupt   = "MANIFEST_CORRUPT"
	CodeManifestMissing   = "MANIFEST_MISSING_ENTRY" // an observation the manifest does not list
	CodeManifestOrphan    = "MANIFEST_ORPHAN_ENTRY"  // a manifest row with no observation
	CodeManifestDuplicate = "MANIFEST_DUPLICATE_ENTRY"
	CodeManifestDiffers   = "MANIFEST_ENTRY_DIFFERS" // a row that does not say what its observation says
	CodeManifestTotals    = "MANIFEST_TOTALS"        // counts or token sums differ
	CodeManifestNotKept   = "MANIFEST_NOT_KEPT"      // the old tools' manifest beside a store that keeps none (warning)
	CodeArchiveMissing    = "ARCHIVE_MISSING"        // a summary's original is not in the archive
	CodeArchiveLive       = "ARCHIVE_STILL_LIVE"     // archived and still in the issue file (info: a compaction cut short)

	// Derived files (never errors) and leftovers.
	CodeSearchIndexStale  = "SEARCH_INDEX_STALE"
	CodeMonitorIndexStale = "MONITOR_INDEX_STALE"
	CodeDeadLock          = "LOCK_DEAD_PROCESS" // a lock of a process that no longer runs on this host
	CodeStaleLock         = "LOCK_STALE"        // a lock past the stale threshold (info)
	CodeDeadTemp          = "TEMP_LEFTOVER"     // an atomic write's temporary left by a dead writer
)

// alive is process.Alive; a variable so tests can play dead processes.
var alive = process.Alive
