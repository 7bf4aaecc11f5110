package agentstatus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

func TestKeepsUnknownKeysAndOrder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agent-status.json")
	in := `{"reviewer":{"status":"reviewing","issue":7,"lastActivity":"2026-03-01T17:04:15.1234567Z","clarificationId":null,"waitingOn":null,"respondingTo":null,"psNote":"x"},
"engineer":{"status":"idle","issue":null,"lastActivity":""}}`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Update(context.Background(), lock.New(lock.Options{}), path, func(f *File) error {
		f.Ensure("engineer").Status = Working
		f.Ensure("architect").Status = Clarifying
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(path)
	s := string(out)
	for _, want := range []string{`"psNote": "x"`, `"status": "reviewing"`, `"status": "working"`, `"architect": {`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	if strings.Index(s, "reviewer") > strings.Index(s, "engineer") {
		t.Error("agent order not kept")
	}
}

func TestConcurrentUpdatesAreNotLost(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agent-status.json")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Separate lockers contend through the lock file like processes.
			// The verdict is whether an update is lost, not how fast twenty
			// contenders get through: the wait is one only a hang exceeds
			// (the default 5 s ran out on a machine at load 14).
			err := Update(context.Background(), lock.New(lock.Options{Wait: 2 * time.Minute}), path, func(f *File) error {
				f.Ensure(fmt.Sprintf("agent-%d", i)).Status = Working
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 20 {
		t.Fatalf("%d agents, want 20 (updates lost)", len(f.Entries))
	}
}

func TestCorruptIsReported(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agent-status.json")
	for _, bad := range []string{"", "{", `{"a":{"status":5}}`, `[]`} {
		_ = os.WriteFile(path, []byte(bad), 0o644)
		if _, err := Load(path); !errcode.Is(err, errcode.CorruptState) {
			t.Errorf("Load(%q) = %v", bad, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"engineer":{"status":"blocked-clarification","issue":42,"lastActivity":"2026-03-01T17:04:15.123Z","clarificationId":"CLR-42-001","waitingOn":"architect","respondingTo":null}}`))
	f.Add([]byte(`{"reviewer":{"status":"reviewing","x":[1,{"y":2}]}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Decode("f", data)
		if err != nil {
			if !errcode.Is(err, errcode.CorruptState) {
				t.Fatalf("error is not CORRUPT_STATE: %v", err)
			}
			return
		}
		out, err := st.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode("f", out)
		if err != nil {
			t.Fatalf("our own output does not decode: %v\n%s", err, out)
		}
		if len(again.Entries) != len(st.Entries) {
			t.Fatalf("agents %d -> %d", len(st.Entries), len(again.Entries))
		}
	})
}

// An agent the update does not touch keeps `"lastActivity": null` as the
// old tools wrote it (it was rewritten as "").
func TestUntouchedNullLastActivityStaysNull(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agent-status.json")
	in := `{"reviewer":{"status":"idle","issue":null,"lastActivity":null,"clarificationId":null,"waitingOn":null,"respondingTo":null},
"tester":{"status":"idle","issue":null,"lastActivity":""}}`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Update(context.Background(), lock.New(lock.Options{}), path, func(f *File) error {
		s := f.Ensure("engineer")
		s.Status, s.LastActivity = Working, "2026-03-01T17:04:15.123Z"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(path)
	f, err := Decode(path, out)
	if err != nil {
		t.Fatal(err)
	}
	raw := string(out)
	if !strings.Contains(raw, "\"reviewer\": {\n    \"status\": \"idle\",\n    \"issue\": null,\n    \"lastActivity\": null,") {
		t.Fatalf("null lastActivity not kept:\n%s", raw)
	}
	if !strings.Contains(raw, "\"tester\": {\n    \"status\": \"idle\",\n    \"issue\": null,\n    \"lastActivity\": \"\",") {
		t.Fatalf("empty lastActivity not kept:\n%s", raw)
	}
	if f.Get("engineer").LastActivity == "" {
		t.Fatal("touched agent lost its activity")
	}
}

// An update that records nothing creates no file: the reference extension
// seeds its agents only when the file is missing, so `{}` would leave it
// without them.
func TestUpdateWithNothingCreatesNoFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agent-status.json")
	if err := Update(context.Background(), lock.New(lock.Options{}), path, func(*File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("created: %v", err)
	}
}
