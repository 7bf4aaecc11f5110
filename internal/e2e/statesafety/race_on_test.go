//go:build unix && race

package statesafety

// raceBuilt: the harness runs under the race detector (.ci/run's race
// step, which sets no AGENTX_MODEL_SEQS).
const raceBuilt = true
