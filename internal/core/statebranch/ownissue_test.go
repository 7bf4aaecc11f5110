package statebranch_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// A fresh clone's first pull settles the hook's own issue (its ledger and
// memory file) before the 58 other files that sort before it: a pull the
// hook's budget cuts short has brought what the agent works on, and the
// background completion brings the rest.
func TestPullBringsTheOwnIssueFirst(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	b := newAgent(t, remote)
	for i := 1; i <= 30; i++ {
		b.write(fmt.Sprintf("state/clarifications/issue-%d.json", i), sbt.Records(fmt.Sprintf("CLR-%d-001", i)))
		b.write(fmt.Sprintf("memory/issue-%d.json", i), sbt.Records(fmt.Sprintf("obs-%d", i)))
	}
	b.sync()
	a := newAgent(t, remote)
	own := map[string]bool{"state/clarifications/issue-27.json": true, "memory/issue-27.json": true}
	o := a.opts
	o.PullOnly = true
	o.First = func(rel string) bool { return own[rel] }
	var order []string
	o.Wrote = func(rel string, _, _ []byte) { order = append(order, rel) }
	if _, err := statebranch.Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(order) != 60 || !own[order[0]] || !own[order[1]] {
		t.Fatalf("written in the order %q", order)
	}
	for rel := range own {
		if _, err := os.Stat(a.path(rel)); err != nil {
			t.Error(err)
		}
	}
}
