//go:build race

package ledger

// maxMarshalAllocs is what TestMarshalOneBuffer allows: the race
// runtime adds an allocation of its own to a large make.
const maxMarshalAllocs = 2
