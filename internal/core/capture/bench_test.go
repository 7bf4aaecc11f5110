package capture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/spool"
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
	t.Parallel()
	// The benchmark's input yields a full, bounded capture.
	res := Extract(bigTranscript(t, 256<<10), Options{Cwd: "/home/dev/agentx"})
	if len(res.Candidates) < 20 || res.Skipped == 0 {
		t.Fatalf("%d candidates, %d skipped", len(res.Candidates), res.Skipped)
	}
	checkInvariants(t, res.Candidates)
}

// BenchmarkHookFinishCapture is `hook finish` without the store: parse the
// payload, key the turn, spool it durably (fsync), claim it, capture from
// the 2 MB transcript, mark it done. The store's append comes on top.
func BenchmarkHookFinishCapture(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, bigTranscript(b, 2<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	sp := spool.New(filepath.Join(dir, "spool"), lock.New(lock.Options{}), spool.Options{})
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		payload := []byte(fmt.Sprintf(`{"session_id":"s%d","transcript_path":%q,"cwd":"/home/dev/agentx","hook_event_name":"SessionEnd","reason":"exit"}`, i, path))
		p, err := ParsePayload(payload)
		if err != nil {
			b.Fatal(err)
		}
		key := TurnKey(p)
		if _, err := sp.Put(ctx, key, payload); err != nil {
			b.Fatal(err)
		}
		c, err := sp.Claim(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := FromPayload(p, Options{}); err != nil || len(res.Candidates) == 0 {
			b.Fatal(err)
		}
		if err := c.Done(); err != nil {
			b.Fatal(err)
		}
	}
}
