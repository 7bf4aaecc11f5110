//go:build !race

package ledger

// maxMarshalAllocs is what TestMarshalOneBuffer allows: the one buffer.
const maxMarshalAllocs = 1
