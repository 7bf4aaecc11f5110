package memory

import (
	"encoding/json"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
)

// An observation's content hash covers what it says and where it belongs:
// id, agent, issueNumber, category, content, summary, tokens, timestamp and
// sessionId (when set). The recall count changes at every recall and the
// keys other tools add are theirs, so both stay outside it. The hash is
// kept under contenthash.Key among the observation's extra keys, after
// every reference key, where the old tools keep it untouched.

// ComputeHash returns the content hash of the observation.
func (o *Observation) ComputeHash() string {
	// Added in canonical (sorted) key order, so hashing needs no sort.
	var c contenthash.Object
	c.Grow(len(o.Agent) + len(o.Category) + len(o.Content) + len(o.ID) + len(o.SessionID) + len(o.Summary) + len(o.Timestamp) + 64)
	c.String("agent", o.Agent).String("category", string(o.Category)).String("content", o.Content).
		String("id", o.ID).Int("issueNumber", o.IssueNumber)
	if o.SessionID != "" {
		c.String("sessionId", o.SessionID)
	}
	c.String("summary", o.Summary).String("timestamp", o.Timestamp).Int("tokens", o.Tokens)
	return c.Sum()
}

// StoredHash returns the hash recorded with the observation; ok is false
// when there is none (an old file) or it is not a string.
func (o *Observation) StoredHash() (hash string, ok bool) {
	raw, found := o.extra(contenthash.Key)
	if !found || json.Unmarshal(raw, &hash) != nil {
		return "", false
	}
	return hash, true
}

// Seal records the observation's content hash: every writer that stores
// an observation seals it once its fields are complete.
func (o *Observation) Seal() {
	raw, _ := json.Marshal(o.ComputeHash()) // a plain ASCII string always marshals
	o.setExtra(contenthash.Key, raw)
}

// sealIfMissing seals an observation that has no hash yet and leaves a
// recorded one alone, so a copy (the archive) keeps the hash the original
// was stored with and a change made since stays detectable.
func (o *Observation) sealIfMissing() {
	if _, ok := o.extra(contenthash.Key); !ok {
		o.Seal()
	}
}

// Integrity checks the observation against its recorded hash: Tampered
// when what it says changed since it was stored.
func (o *Observation) Integrity() contenthash.Integrity {
	h, ok := o.StoredHash()
	return contenthash.Check(h, ok, o.ComputeHash)
}
