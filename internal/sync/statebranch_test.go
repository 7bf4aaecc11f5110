package sync

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

func TestStateBranchCreatedOnFirstUseAsOrphan(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	ctx := context.Background()

	snap, err := sb.Read(ctx)
	if err != nil || snap.Commit != "" || len(snap.Blobs) != 0 {
		t.Fatalf("missing branch: %+v, %v", snap, err)
	}
	next, err := sb.Commit(ctx, snap, map[string][]byte{"state/clarifications/issue-42.json": []byte(`{"issueNumber":42}`)}, "first")
	if err != nil {
		t.Fatal(err)
	}
	if got := fake.BranchCommits(DefaultStateBranch); got != 1 {
		t.Fatalf("commits on the new branch = %d, want 1 (an orphan)", got)
	}
	files := fake.BranchFiles(DefaultStateBranch)
	if string(files["state/clarifications/issue-42.json"]) != `{"issueNumber":42}` || len(files) != 1 {
		t.Fatalf("branch files = %q", files)
	}
	again, err := sb.Read(ctx)
	if err != nil || again.Commit != next.Commit || again.Tree != next.Tree || len(again.Blobs) != 1 ||
		again.Blobs["state/clarifications/issue-42.json"] != next.Blobs["state/clarifications/issue-42.json"] {
		t.Fatalf("read after commit: %+v, %v; Commit returned %+v", again, err, next)
	}
	// The snapshot Commit returns is a base for the next commit: nothing
	// the first one wrote may be lost.
	if _, err := sb.Commit(ctx, next, map[string][]byte{"memory/issue-42.json": []byte("[]")}, "second"); err != nil {
		t.Fatal(err)
	}
	if files := fake.BranchFiles(DefaultStateBranch); len(files) != 2 {
		t.Fatalf("after a second commit on the returned snapshot: %q", files)
	}
}

func TestStateBranchCommitChangesDeletesAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	fake.SetBranchFiles("agentx/state", map[string][]byte{
		"state/clarifications/issue-1.json":    []byte("one"),
		"memory/issue-1.json":                  []byte("mem"),
		"memory/archive/issue-1-archived.json": []byte("old"),
	}, "seed")
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	ctx := context.Background()
	snap, err := sb.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(snap.Paths("memory/"), ","); got != "memory/archive/issue-1-archived.json,memory/issue-1.json" {
		t.Fatalf("Paths(memory/) = %s", got)
	}
	_, err = sb.Commit(ctx, snap, map[string][]byte{
		"state/clarifications/issue-1.json":    []byte("one, changed"),
		"memory/archive/issue-1-archived.json": nil,
		"memory/absent.json":                   nil, // deleting what is not there is no change
	}, "change")
	if err != nil {
		t.Fatal(err)
	}
	files := fake.BranchFiles("agentx/state")
	want := map[string]string{"state/clarifications/issue-1.json": "one, changed", "memory/issue-1.json": "mem"}
	if len(files) != len(want) {
		t.Fatalf("files = %q", files)
	}
	for p, c := range want {
		if string(files[p]) != c {
			t.Fatalf("%s = %q, want %q", p, files[p], c)
		}
	}
	if fake.BranchCommits("agentx/state") != 2 {
		t.Fatalf("commits = %d, want 2", fake.BranchCommits("agentx/state"))
	}
}

// A run that read the branch before another run moved it must not win
// with its stale view: the ref update is refused (422, not a fast
// forward), and Update re-applies the change to the fresh state.
func TestStateBranchUpdateReappliesAfterALostRace(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	fake.SetBranchFiles("agentx/state", map[string][]byte{"counter": []byte("1")}, "seed")
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	ctx := context.Background()

	stale, _ := sb.Read(ctx)
	fake.SetBranchFiles("agentx/state", map[string][]byte{"counter": []byte("2")}, "another run")
	if _, err := sb.Commit(ctx, stale, map[string][]byte{"counter": []byte("x")}, "stale"); !errors.Is(err, ErrConflict) {
		t.Fatalf("commit on a stale snapshot: %v, want ErrConflict", err)
	}

	raced := false
	attempts, _, err := sb.Update(ctx, "increment", func(ctx context.Context, snap *StateSnapshot, read func(string) ([]byte, error)) (map[string][]byte, error) {
		cur, err := read("counter")
		if err != nil {
			return nil, err
		}
		if !raced {
			raced = true
			fake.SetBranchFiles("agentx/state", map[string][]byte{"counter": []byte("3")}, "a racing run")
		}
		return map[string][]byte{"counter": append(cur, '+')}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Fatalf("attempts = %d, want 2", attempts)
	}
	if got := string(fake.BranchFiles("agentx/state")["counter"]); got != "3+" {
		t.Fatalf("counter = %q, want 3+ (the change re-applied to the racing run's state)", got)
	}
}

func TestStateBranchProtectedIsNotAConflict(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	fake.SetBranchFiles("agentx/state", map[string][]byte{"a": []byte("1")}, "seed")
	fake.ProtectBranch("agentx/state")
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	calls := 0
	attempts, _, err := sb.Update(context.Background(), "m", func(context.Context, *StateSnapshot, func(string) ([]byte, error)) (map[string][]byte, error) {
		calls++
		return map[string][]byte{"a": []byte("2")}, nil
	})
	if !errors.Is(err, ErrProtected) || errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want ErrProtected", err)
	}
	if attempts != 1 || calls != 1 {
		t.Fatalf("attempts %d, calls %d: a protected branch must not be retried", attempts, calls)
	}
	if !strings.Contains(err.Error(), "agentx/state") || !strings.Contains(err.Error(), "protected") {
		t.Fatalf("error does not name the branch and the cause: %v", err)
	}
}

func TestStateBranchLargeFileGoesThroughABlob(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	ctx := context.Background()
	big := bytes.Repeat([]byte(`{"content":"observation text"},`), 50_000) // 1.5 MB
	snap, _ := sb.Read(ctx)
	if _, err := sb.Commit(ctx, snap, map[string][]byte{"memory/issue-7.json": big}, "big"); err != nil {
		t.Fatal(err)
	}
	if fake.Calls()["POST /repos/{owner}/{repo}/git/blobs"] != 1 {
		t.Fatalf("a file over the inline limit must be uploaded as a blob: %v", fake.Calls())
	}
	other := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	snap, err := other.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := other.ReadFile(ctx, snap, "memory/issue-7.json")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read back %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
}

// The figure the state-branch issue sets for an ingest run: one ref read,
// one tree read, the blobs of one issue, then one commit and one ref
// update (the tree request carries small files inline).
func TestStateBranchIngestCallBudget(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	seed := map[string][]byte{}
	for i := 1; i <= 50; i++ {
		seed["state/clarifications/issue-"+strconv.Itoa(i)+".json"] = []byte("ledger " + strconv.Itoa(i))
		seed["memory/issue-"+strconv.Itoa(i)+".json"] = []byte("memory " + strconv.Itoa(i))
	}
	fake.SetBranchFiles("agentx/state", seed, "seed")
	fake.ResetCounts()
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	_, _, err := sb.Update(context.Background(), "ingest", func(_ context.Context, _ *StateSnapshot, read func(string) ([]byte, error)) (map[string][]byte, error) {
		cur, err := read("state/clarifications/issue-7.json")
		if err != nil {
			return nil, err
		}
		return map[string][]byte{"state/clarifications/issue-7.json": append(cur, " answered"...)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"GET /repos/{owner}/{repo}/git/ref/{ref...}":    1,
		"GET /repos/{owner}/{repo}/git/trees/{sha}":     1,
		"GET /repos/{owner}/{repo}/git/blobs/{sha}":     1,
		"POST /repos/{owner}/{repo}/git/trees":          1,
		"POST /repos/{owner}/{repo}/git/commits":        1,
		"PATCH /repos/{owner}/{repo}/git/refs/{ref...}": 1,
	}
	got := fake.Calls()
	if len(got) != len(want) {
		t.Fatalf("calls = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("calls = %v, want %v", got, want)
		}
	}
}

func TestStateBranchNothingChangedReadsOnlyTheRef(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "agentx/state")
	_, _, err := sb.Update(context.Background(), "m", func(context.Context, *StateSnapshot, func(string) ([]byte, error)) (map[string][]byte, error) {
		return nil, errNoChange
	})
	if err != nil {
		t.Fatal(err)
	}
	if fake.Writes() != 0 || fake.Reads() != 1 {
		t.Fatalf("reads %d writes %d; want 1 ref read on a missing branch and no write", fake.Reads(), fake.Writes())
	}
}
