package monitor

import "github.com/agentx-dev/agentx/internal/core/wordset"

// Similarity is the word-set overlap at or above which two questions count
// as the same question asked again.
const Similarity = 0.8

// Similar reports whether two texts are the same question in other words.
func Similar(a, b string) bool { return wordset.Jaccard(wordset.Of(a), wordset.Of(b)) >= Similarity }
