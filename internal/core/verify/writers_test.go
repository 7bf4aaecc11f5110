package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// Issue 32: verify beside 8 writers making clarifications never reports a
// present record as deleted. The trail is read after the ledgers, so a
// request written in between is on the trail and not in the ledger that
// was read: before, it was RECORD_DELETED (18 times in an 8-process run).
func TestVerifyBesideClarificationWriters(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	for name, data := range config.DefaultFiles() {
		p := filepath.Join(ws.AgentxDir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	const writers = 8
	var made sync.WaitGroup
	made.Add(writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			locks := lock.New(lock.Options{})
			rt := router.New(router.Options{WS: ws, Config: cfg, Locks: locks, NoSync: true, Clock: clock.Real{},
				Audit: &audit.Trail{Dir: ws.StateDir(), Locks: locks}})
			for i := 0; ctx.Err() == nil && i < 150; i++ {
				_, err := rt.Request(ctx, router.RequestInput{Issue: 100 + w, From: "engineer", To: "architect",
					Topic: fmt.Sprintf("topic %d", i), Question: fmt.Sprintf("question %d of writer %d?", i, w)})
				if err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
				if i == 2 {
					made.Done()
				}
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	made.Wait()
	for range 15 {
		rep, err := Run(ws, Options{beforeRecheck: func() {}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Problems {
			if p.Code == CodeRecordDeleted || p.Code == CodeLedgerDeleted {
				t.Fatalf("verify beside writers: %s %s %s: %s", p.Code, p.Path, p.ID, p.Message)
			}
		}
	}
}
