package monitor

import (
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/wordset"
)

// Similar reports whether two texts are the same question in other words
// (word sets at least protocol.Similarity alike).
func Similar(a, b string) bool {
	return wordset.Jaccard(wordset.Of(a), wordset.Of(b)) >= protocol.Similarity
}
