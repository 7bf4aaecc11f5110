package gitstore

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkWriteZlibSmall is the deflate of one small object (a ledger or
// a tree), what a sync writes dozens of: its cost is mostly the
// compressor's set-up, not the bytes.
func BenchmarkWriteZlibSmall(b *testing.B) {
	data := bytes.Repeat([]byte(`{"id": "CLR-7-001", "status": "pending"} `), 50)
	head := []byte("blob 2050\x00")
	b.ReportAllocs()
	for b.Loop() {
		if err := writeZlib(io.Discard, head, data); err != nil {
			b.Fatal(err)
		}
	}
}
