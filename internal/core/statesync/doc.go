package statesync

import (
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/initws"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
)

// Doc is `sync --json`.
type Doc struct {
	DurationMs int64 `json:"durationMs"`
	// Recover is what --recover found (and brought back).
	Recover       *statebranch.RecoverResult `json:"recover,omitempty"`
	MemoryIndexMs int64                      `json:"memoryIndexMs"`
	Merge         *MergeLog                  `json:"merge"`
	jsonfile.Versioned
	Sync *statebranch.Result `json:"sync"`
	// Error is set when the sync completed but a state file does not
	// parse on one side (exit 1).
	Error *errcode.Body `json:"error,omitempty"`
	// Tracked: after --init-from, the state files the code branch still
	// tracks and the commands that stop tracking them.
	initws.Tracked
}

// Doc is the command's outcome as `sync --json` prints it, with what a
// migration left tracked.
func (o *Outcome) Doc(tracked initws.Tracked) *Doc {
	return &Doc{Sync: o.Sync, Merge: o.Merge, Recover: o.Recover, Tracked: tracked,
		MemoryIndexMs: o.IndexTime.Milliseconds(), DurationMs: o.Took.Milliseconds(), Error: errcode.BodyOf(o.Failure)}
}
