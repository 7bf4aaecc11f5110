package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// oneSentenceTranscript is a Claude Code transcript of n assistant
// messages of one decision sentence each, drawn from a small vocabulary so
// that every word is frequent and no two sentences are duplicates: the
// shape that made the prefix filter compare each sentence with most of the
// ones kept before it (10,000 messages: 17.8 s of CPU in `hook finish`).
func oneSentenceTranscript(n int) []byte {
	vocab := strings.Fields("cache queue shard index ledger lock spool cursor token parser router bucket " +
		"retry budget timeout window batch stream buffer pool socket worker gateway replica")
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := range n {
		var ws []string
		for range 7 {
			ws = append(ws, vocab[r.IntN(len(vocab))])
		}
		text := fmt.Sprintf("We decided to use the %s for step %d.", strings.Join(ws, " "), i%50)
		line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{
			"role": "assistant", "content": []map[string]string{{"type": "text", "text": text}}}})
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// TestCaptureOfTenThousandMessagesIsLinear: capture of a 10,000-message
// transcript costs under 0.5 s of CPU (the bound is 10x that in a
// race-built test, which is that much slower); it was quadratic.
func TestCaptureOfTenThousandMessagesIsLinear(t *testing.T) {
	data := oneSentenceTranscript(10000)
	var res Result
	cpu := testenv.CPUOf(t, func() { res = Extract(data, Options{}) })
	t.Logf("%d lines, %d candidates, %s of CPU", res.Lines, len(res.Candidates), cpu)
	if res.Lines != 10000 || len(res.Candidates) != MaxPerCapture {
		t.Fatalf("%d lines, %d candidates", res.Lines, len(res.Candidates))
	}
	if limit := 500 * time.Millisecond * testenv.RaceSlowdown; cpu > limit {
		t.Errorf("capture of 10,000 messages took %s of CPU, over %s", cpu, limit)
	}
}

// A capture stops when its context is done: what the hook's deadline cut
// is not processed further, and the result says it was cut.
func TestCaptureStopsAtItsDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := ExtractContext(ctx, oneSentenceTranscript(2000), Options{})
	if err == nil || res.Lines == 2000 {
		t.Fatalf("a cancelled capture read %d lines and returned %v", res.Lines, err)
	}
}
