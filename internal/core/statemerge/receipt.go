package statemerge

import (
	"bytes"
	"encoding/json"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// entryResolver merges thread entry keys both sides changed: of two
// delivery receipts (two clones delivered the entry) the earlier is kept,
// the first time the agent had it; any other key the larger value.
func entryResolver(key string, ours, theirs json.RawMessage) (json.RawMessage, bool) {
	if key == ledger.DeliveredKey {
		// Both start {"at":"<time>": the bytes order as the times do.
		if bytes.Compare(ours, theirs) <= 0 {
			return ours, false
		}
		return theirs, false
	}
	return largerValue(key, ours, theirs)
}
