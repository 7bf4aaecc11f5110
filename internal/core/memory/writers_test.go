// Concurrent writer processes: 8 OS processes (this test binary run again)
// storing 50 observations each into 4 issues, with a manifest and in a file
// base, and every one found afterwards.

package memory

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// TestConcurrentWriterProcesses: 8 OS processes x 50 stores into 4 issues.
func TestConcurrentWriterProcesses(t *testing.T) {
	t.Parallel()
	concurrentWriters(t, "TestConcurrentWriterProcesses", false)
}

// The same in a file base (no manifest.json, agentx-hook's default),
// its delta compacted every few writes.
func TestConcurrentWriterProcessesFileBase(t *testing.T) {
	t.Parallel()
	concurrentWriters(t, "TestConcurrentWriterProcessesFileBase", true)
}

func concurrentWriters(t *testing.T, name string, fileBase bool) {
	if dir := os.Getenv("AGENTX_MEMORY_WRITER_DIR"); dir != "" {
		writerProcess(t, dir, fileBase)
		return
	}
	dir := filepath.Join(t.TempDir(), "memory")
	var cmds []*exec.Cmd
	for p := 0; p < 8; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
		cmd.Env = append(os.Environ(), "AGENTX_MEMORY_WRITER_DIR="+dir, "AGENTX_MEMORY_WRITER="+strconv.Itoa(p))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("writer output:\n%s", out.String())
			}
		})
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	s := New(dir, lock.New(lock.Options{}), clock.Real{})
	if fileBase {
		if _, err := os.Stat(s.ManifestPath()); !os.IsNotExist(err) {
			t.Fatalf("manifest.json in a file base: %v", err)
		}
		if st, err := s.Stats(context.Background()); err != nil || st.TotalObservations != 400 {
			t.Fatalf("stats: %+v %v", st, err)
		}
	} else if n := checkAgree(t, s); n != 400 {
		t.Fatalf("stored %d observations, want 400", n)
	}
	rows, err := s.Search(context.Background(), Query{Text: "writer", Limit: -1})
	if err != nil || len(rows) != 400 {
		t.Fatalf("search sees %d rows: %v", len(rows), err)
	}
}

func writerProcess(t *testing.T, dir string, fileBase bool) {
	p := os.Getenv("AGENTX_MEMORY_WRITER")
	s := New(dir, lock.New(lock.Options{Wait: 60 * time.Second}), clock.Real{})
	s.NoSync, s.FileBase = true, fileBase
	if fileBase {
		s.DeltaLimit = 16 // compactions of the file base among the writes
	}
	for i := 0; i < 50; i++ {
		o := obs("engineer", 1+i%4, KeyFact, fmt.Sprintf("writer %s observation %d", p, i))
		if _, err := s.Store(context.Background(), []Observation{o}); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
}
