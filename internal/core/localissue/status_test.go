package localissue

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/lock"
)

// SetStatus replaces the status and keeps every other key where it was;
// a file without one gets it last.
func TestSetStatusKeepsTheOtherKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	locks := lock.New(lock.Options{})
	p := filepath.Join(dir, "42.json")
	if err := os.WriteFile(p, []byte(`{"title": "Login", "status": "Todo", "labels": ["feature"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetStatus(context.Background(), locks, p, "In design"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := "{\n  \"title\": \"Login\",\n  \"status\": \"In design\",\n  \"labels\": [\n    \"feature\"\n  ]\n}\n"
	if string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	q := filepath.Join(dir, "issue-7.json")
	if err := os.WriteFile(q, []byte(`{"title": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetStatus(context.Background(), locks, q, "Ready"); err != nil {
		t.Fatal(err)
	}
	if is := read(q, 7); is.Status != "Ready" || is.Title != "x" {
		t.Fatalf("read back %+v", is)
	}
	if err := os.WriteFile(q, []byte(`not json`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetStatus(context.Background(), locks, q, "Ready"); err == nil {
		t.Fatal("a file that is not JSON was rewritten")
	}
}
