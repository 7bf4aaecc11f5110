package sync

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// createOnceScenario is what an Action's day does to a repository: a sync
// (mirrors, labels, the sync state), a person's command ingested (👀, the
// ledger commit, the mirror's update) and the weekly digest (its label and
// issue).
func createOnceScenario(ctx context.Context, t *testing.T, fake *githubfake.Server, ev Event) error {
	c := newTestClient(t, fake, &sleeps{})
	if err := newSyncer(c).RunBranch(ctx, NewStateBranch(c, ""), nil); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if _, err := newIngester(c).Run(ctx, ev); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if _, err := c.PostDigest(ctx, DigestLabel, "AgentX digest 2026-W10", "the week"); err != nil {
		return fmt.Errorf("digest: %w", err)
	}
	return nil
}

func createOnceFake(t *testing.T) (*githubfake.Server, Event) {
	fake := newFakeWithIssues(42)
	t.Cleanup(fake.Close)
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	return fake, event(fake, "alice", "COLLABORATOR", "/clarify answer CLR-42-001 Sessions.")
}

// endState is what people see, without the ids: the comments and their
// reactions, the labels, the digest issues, the ledger's records.
func endState(t *testing.T, fake *githubfake.Server) string {
	var b strings.Builder
	for _, n := range append([]int{42}, fake.IssuesLabelled(DigestLabel)...) {
		for _, cm := range fake.Comments(n) {
			r := append([]string(nil), cm.Reactions...)
			sort.Strings(r)
			fmt.Fprintf(&b, "#%d %s %v: %s\n", n, cm.User, r, cm.Body)
		}
		fmt.Fprintf(&b, "#%d labels %v\n", n, fake.IssueLabels(n))
	}
	fmt.Fprintf(&b, "digest issues: %d\n", len(fake.IssuesLabelled(DigestLabel)))
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	l, err := ledger.Parse("state branch", data, 42)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Clarifications {
		fmt.Fprintf(&b, "%s %s %d entries\n", r.ID, r.Status, len(r.Thread))
	}
	return b.String()
}

// TestEveryCreateExactlyOnce: GitHub carries out a write and the answer
// is lost, a 502 or a dropped connection; the client retries. After every
// write the Action makes, one at a time, the repository must end as a run
// without faults leaves it: no second comment, reaction, digest issue or
// ledger entry, and no run failing for it.
func TestEveryCreateExactlyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake, ev := createOnceFake(t)
	if err := createOnceScenario(ctx, t, fake, ev); err != nil {
		t.Fatal(err)
	}
	want := endState(t, fake)
	var writes []githubfake.Call
	for _, c := range fake.Log() {
		if c.Method != "GET" {
			c.WriteSeq = len(writes) + 1 // the log keeps the calls as they came in, before counting
			writes = append(writes, c)
		}
	}
	if len(writes) < 8 {
		t.Fatalf("the scenario made %d writes: %v", len(writes), writes)
	}
	for _, w := range writes {
		for _, fault := range []struct {
			name string
			resp func() *githubfake.Response
		}{{"502", githubfake.BadGateway}, {"dropped", githubfake.Dropped}} {
			t.Run(fmt.Sprintf("%d %s %s", w.WriteSeq, w.Route, fault.name), func(t *testing.T) {
				t.Parallel()
				fake, ev := createOnceFake(t)
				var done atomic.Bool // set by the fake's handlers
				fake.SetFaultAfter(func(c githubfake.Call) *githubfake.Response {
					if c.WriteSeq == w.WriteSeq && done.CompareAndSwap(false, true) {
						return fault.resp()
					}
					return nil
				})
				if err := createOnceScenario(ctx, t, fake, ev); err != nil {
					t.Fatal(err)
				}
				if !done.Load() {
					t.Fatal("the fault was never injected")
				}
				if got := endState(t, fake); got != want {
					t.Fatalf("after the lost answer to %s:\n%s\nwant\n%s", w.Route, got, want)
				}
			})
		}
	}
}
