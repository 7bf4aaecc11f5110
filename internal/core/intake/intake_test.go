package intake

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/cursor"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/spool"
)

// fakeStore keeps observations in memory and gives them IDs.
type fakeStore struct{ obs []memory.Observation }

func (s *fakeStore) GetByIssue(_ context.Context, issue int) ([]memory.Observation, error) {
	var out []memory.Observation
	for _, o := range s.obs {
		if o.IssueNumber == issue {
			out = append(out, o)
		}
	}
	return out, nil
}

func (s *fakeStore) Store(_ context.Context, obs []memory.Observation) ([]memory.Observation, error) {
	for i := range obs {
		obs[i].ID = "obs-" + obs[i].Agent + "-" + string(rune('a'+len(s.obs)))
	}
	s.obs = append(s.obs, obs...)
	return obs, nil
}

func newIntake(t *testing.T) (*Intake, *fakeStore, *[]string) {
	t.Helper()
	dir := t.TempDir()
	locks := lock.New(lock.Options{})
	st := &fakeStore{}
	var warnings []string
	return &Intake{
		Spool:   spool.New(filepath.Join(dir, "spool"), locks, spool.Options{NoSync: true}),
		Cursors: cursor.New(filepath.Join(dir, "cursors"), locks, nil),
		Store:   st,
		Warn:    func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) },
	}, st, &warnings
}

const summary = "## Decisions\n- Use a sliding-window rate limiter for the login endpoint.\n\n## Key Facts\n- The lockout window is 15 minutes, read from config.\n"

func TestNew(t *testing.T) {
	t.Parallel()
	in := capture.ParseInput([]byte(`{"session_id":"s1","hook_event_name":"SessionEnd","cwd":"/repo"}`))
	c, err := New("engineer", 42, &in, "")
	if err != nil || c.Source != "claude hook payload" || c.Key == "" || string(c.Entry.Payload) != `{"session_id":"s1","hook_event_name":"SessionEnd","cwd":"/repo"}` {
		t.Fatalf("payload capture = %+v, %v", c, err)
	}
	in = capture.ParseInput([]byte("  " + summary))
	c, err = New("engineer", 42, &in, "sess")
	if err != nil || c.Source != "session summary" || c.Entry.Summary != strings.TrimSpace(summary) || c.Entry.Session != "sess" {
		t.Fatalf("summary capture = %+v, %v", c, err)
	}
	for _, bad := range []string{"", "  \n", `{"session_id": 12}`, `{"nothing":1}`} {
		in := capture.ParseInput([]byte(bad))
		if _, err := New("engineer", 42, &in, ""); err == nil {
			t.Errorf("New(%q): no error", bad)
		}
	}
}

// The spool format is what older binaries wrote and read.
func TestEntryFormat(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(Entry{Agent: "engineer", Issue: 42, Payload: json.RawMessage(`{"session_id": "s"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"agent":"engineer","issue":42,"payload":{"session_id":"s"}}`; string(data) != want {
		t.Fatalf("entry = %s, want %s", data, want)
	}
}

// A turn is captured once: stored the first time, a duplicate after.
func TestDurablyOnce(t *testing.T) {
	t.Parallel()
	x, st, _ := newIntake(t)
	ctx := context.Background()
	in := capture.ParseInput([]byte(summary))
	c, err := New("engineer", 42, &in, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := x.Durably(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Spooled || len(rep.IDs) != 2 || rep.ByCategory[memory.Decision] != 1 || rep.ByCategory[memory.KeyFact] != 1 {
		t.Fatalf("first capture = %+v", rep)
	}
	rep, err = x.Durably(ctx, c)
	if err != nil || !rep.Duplicate || len(st.obs) != 2 {
		t.Fatalf("second capture = %+v, %v (%d stored)", rep, err, len(st.obs))
	}
}

// SpoolOnly leaves the capture spooled (a host killed the hook); the next
// Leftovers finishes it exactly once, and an unreadable entry is kept
// aside with a warning.
func TestLeftovers(t *testing.T) {
	t.Parallel()
	x, st, warnings := newIntake(t)
	ctx := context.Background()
	in := capture.ParseInput([]byte(summary))
	c, _ := New("engineer", 42, &in, "")
	x.SpoolOnly = true
	rep, err := x.Durably(ctx, c)
	if err != nil || !rep.Deferred || len(st.obs) != 0 {
		t.Fatalf("spool only = %+v, %v", rep, err)
	}
	if _, err := x.Spool.Put(ctx, "junk", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	x.SpoolOnly = false
	reps := x.Leftovers(ctx)
	if len(reps) != 1 || !reps[0].Leftover || len(reps[0].IDs) != 2 || reps[0].Source != "session summary" {
		t.Fatalf("leftovers = %+v", reps)
	}
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "junk is unreadable") {
		t.Fatalf("warnings = %q", *warnings)
	}
	if reps := x.Leftovers(ctx); len(reps) != 0 || len(st.obs) != 2 {
		t.Fatalf("second pass = %+v, %d stored", reps, len(st.obs))
	}
}

// A transcript read once is not captured again: the cursor moves past it
// only once the capture is stored.
func TestPayloadCursor(t *testing.T) {
	t.Parallel()
	x, st, _ := newIntake(t)
	ctx := context.Background()
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	data, err := os.ReadFile(filepath.Join("..", "capture", "testdata", "claude_session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, data, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]string{"session_id": "s1", "transcript_path": tr, "hook_event_name": "Stop"})
	in := capture.ParseInput(raw)
	c, _ := New("engineer", 42, &in, "")
	rep, err := x.Durably(ctx, c)
	if err != nil || len(rep.IDs) == 0 || rep.SourceBytes != int64(len(data)) {
		t.Fatalf("capture = %+v, %v", rep, err)
	}
	if got := x.Cursors.Get("s1", tr); got != int64(len(data)) {
		t.Fatalf("cursor at %d, want %d", got, len(data))
	}
	for _, o := range st.obs {
		if o.SessionID != "s1" {
			t.Fatalf("session %q", o.SessionID)
		}
	}
}

type fakeGit map[string]string

func (f fakeGit) Git(_ context.Context, args ...string) (string, error) {
	return f[strings.Join(args, " ")], nil
}

func TestRecordCommit(t *testing.T) {
	t.Parallel()
	x, st, _ := newIntake(t)
	git := fakeGit{"show --no-color --no-ext-diff -m --first-parent --name-status --format=%h %s HEAD": "850dd3a Fix login redirect loop\n\nM\tauth/login.go\n"}
	if err := x.RecordCommit(context.Background(), git, "engineer", 42); err != nil {
		t.Fatal(err)
	}
	if len(st.obs) != 1 {
		t.Fatalf("stored %d", len(st.obs))
	}
	o := st.obs[0]
	if o.Category != memory.CodeChange || o.Content != "Commit 850dd3a: Fix login redirect loop. Files: M auth/login.go" ||
		len(o.Extra) != 1 || o.Extra[0].Key != "files" || string(o.Extra[0].Value) != `["auth/login.go"]` {
		t.Fatalf("observation = %+v", o)
	}
	if err := x.RecordCommit(context.Background(), fakeGit{}, "engineer", 42); err != nil || len(st.obs) != 1 {
		t.Fatalf("no commit: %v, %d stored", err, len(st.obs))
	}
}

// slowStore never answers before its caller's deadline: a capture that
// cannot finish within a hook.
type slowStore struct{ fakeStore }

func (s *slowStore) GetByIssue(ctx context.Context, _ int) ([]memory.Observation, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A spooled capture whose first attempt was killed (the host's own
// deadline) and which the next hook start cannot finish in its deadline
// either is poisoned: that start moves it aside, and it does not hang the
// second and third starts as well.
func TestPoisonedLeftoverQuarantinedAtTheFirstStart(t *testing.T) {
	t.Parallel()
	x, _, warnings := newIntake(t)
	x.Store = &slowStore{}
	ctx := context.Background()
	in := capture.ParseInput([]byte(summary))
	c, _ := New("engineer", 42, &in, "")
	x.SpoolOnly = true
	if _, err := x.Durably(ctx, c); err != nil {
		t.Fatal(err)
	}
	// The hook finish that spooled it was killed while processing it: its
	// attempt is counted and its claim released by the process's death.
	cl, err := x.Spool.Claim(ctx, c.Key)
	if err != nil {
		t.Fatal(err)
	}
	_ = cl.Release()
	x.SpoolOnly = false
	start, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if reps := x.Leftovers(start); len(reps) != 0 {
		t.Fatalf("leftovers = %+v", reps)
	}
	pending, err := x.Spool.Pending()
	if err != nil || len(pending) != 0 {
		t.Fatalf("still pending after the first start: %+v (%v); warnings %q", pending, err, *warnings)
	}
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "moved to") {
		t.Fatalf("warnings = %q", *warnings)
	}
}
