//go:build unix

package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// TestConcurrentProcessesKeepEveryLine: processes appending at once (the
// test binary started again as children) to a log near its bound, so
// trims replace the file under them, leave every line whole and lose
// none: of each child's events the log keeps a run that ends with its
// last one, with no gap (a trim drops the oldest lines only), and it
// never holds a lock file.
func TestConcurrentProcessesKeepEveryLine(t *testing.T) {
	t.Parallel()
	const children, each = 4, 60
	if path := os.Getenv("AGENTX_EVENTS_CHILD_LOG"); path != "" {
		l := &Log{Path: path, Locks: lock.New(lock.Options{Wait: 10 * time.Second}), Clock: clock.Real{}}
		who := os.Getenv("AGENTX_EVENTS_CHILD")
		for i := 0; i < each; i++ {
			if err := l.Append(context.Background(), "test", map[string]string{"who": who, "seq": strconv.Itoa(i), "pad": strings.Repeat("x", 150)}); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	path := filepath.Join(t.TempDir(), "state", "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// 1,450 old events of about 200 bytes: past the size that starts
	// trimming, 50 lines short of the count that makes a trim cut.
	var seed bytes.Buffer
	for i := 0; i < 1450; i++ {
		fmt.Fprintf(&seed, `{"type":"old","time":"2026-03-01T00:00:00.000Z","payload":{"seq":"%d","pad":%q}}`+"\n", i, strings.Repeat("y", 130))
	}
	if err := os.WriteFile(path, seed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var envs [][]string
	for c := 0; c < children; c++ {
		envs = append(envs, []string{"AGENTX_EVENTS_CHILD_LOG=" + path, "AGENTX_EVENTS_CHILD=" + strconv.Itoa(c)})
	}
	testenv.RunSelf(t, "^TestConcurrentProcessesKeepEveryLine$", envs...)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) >= 1450+children*each {
		t.Fatalf("%d lines: the log was never trimmed, the test checks nothing", len(lines))
	}
	seqs := map[string][]int{}
	for _, line := range lines {
		var e struct {
			Type    string `json:"type"`
			Payload struct {
				Who string `json:"who"`
				Seq string `json:"seq"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("a broken line %q: %v", line, err)
		}
		if e.Type == "test" {
			n, _ := strconv.Atoi(e.Payload.Seq)
			seqs[e.Payload.Who] = append(seqs[e.Payload.Who], n)
		}
	}
	for c := 0; c < children; c++ {
		got := seqs[strconv.Itoa(c)]
		for i, n := range got {
			if n != each-len(got)+i {
				t.Fatalf("child %d: kept %v, want a gapless run ending at %d", c, got, each-1)
			}
		}
	}
	if _, err := os.Lstat(path + ".lock"); err == nil {
		t.Fatal("a lock file was left beside the log")
	}
}
