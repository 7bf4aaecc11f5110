package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// bigTranscript repeats the Claude Code fixture, with fresh tool ids, files
// and numbers in every copy, until it is size bytes: a long session of the
// real shape (tool results with file bodies, edits, failures, prose).
func bigTranscript(tb testing.TB, size int) []byte {
	tb.Helper()
	fixture := read(tb, "claude_session.jsonl")
	var b bytes.Buffer
	for rep := 0; b.Len() < size; rep++ {
		copy := bytes.ReplaceAll(fixture, []byte("toolu_0"), []byte(fmt.Sprintf("toolu_%d_0", rep)))
		copy = bytes.ReplaceAll(copy, []byte("store.go"), []byte(fmt.Sprintf("store%d.go", rep%40)))
		copy = bytes.ReplaceAll(copy, []byte("30 s stale"), []byte(fmt.Sprintf("%d s stale", rep)))
		copy = bytes.ReplaceAll(copy, []byte("TestStoreAppend"), []byte(fmt.Sprintf("TestStoreAppend%d", rep)))
		b.Write(copy)
	}
	return b.Bytes()
}

// BenchmarkExtract2MB is the extraction `hook finish` runs on a 2 MB
// transcript: read, parse every line, classify, sanitise, de-duplicate.
func BenchmarkExtract2MB(b *testing.B) {
	data := bigTranscript(b, 2<<20)
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		res, err := ExtractFile(path, Options{Cwd: "/home/dev/agentx"})
		if err != nil || len(res.Candidates) == 0 {
			b.Fatal(err, len(res.Candidates))
		}
	}
}

func BenchmarkParseSummary(b *testing.B) {
	text := string(read(b, "summary_reference.md"))
	for b.Loop() {
		ParseSummary(text)
	}
}

func TestBigTranscriptCapture(t *testing.T) {
	// The benchmark's input yields a full, bounded capture.
	res := Extract(bigTranscript(t, 256<<10), Options{Cwd: "/home/dev/agentx"})
	if len(res.Candidates) < 20 || res.Skipped == 0 {
		t.Fatalf("%d candidates, %d skipped", len(res.Candidates), res.Skipped)
	}
	checkInvariants(t, res.Candidates)
}
