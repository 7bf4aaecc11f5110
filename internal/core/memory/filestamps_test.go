package memory

import (
	"context"
	"os"
	"strings"
	"testing"
)

// storeRedisAndExport stores a decision on issue 7 (redis) and a key fact
// on issue 8 (the nightly export) in s, and returns found: how many rows
// s's search for word finds.
func storeRedisAndExport(t *testing.T, s *Store) func(word string) int {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("engineer", 8, KeyFact, "The export runs nightly at two"),
	}); err != nil {
		t.Fatal(err)
	}
	return func(word string) int {
		t.Helper()
		rows, err := s.Search(ctx, Query{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
}

// An issue file changed behind the manifest (a hand edit, another tool, a
// git checkout or merge of memory files) is searched as it is now: by a
// reader at once, and after a later `memory add` to that issue too, which
// used to append to the index's stale rows (issue 22 item 5).
func TestSearchFollowsAnIssueFileEditedByHand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	found := storeRedisAndExport(t, s)
	if found("redis") != 1 || found("memcached") != 0 {
		t.Fatal("before the edit")
	}
	// The hand edit: valid JSON, one word changed, same length.
	path := s.IssuePath(7)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), "redis with a sliding", "memcached, sliding")
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if found("memcached") != 1 || found("redis") != 0 {
		t.Fatalf("after the edit: memcached %d, redis %d", found("memcached"), found("redis"))
	}
	// A later write to that issue keeps the edit indexed, on disk.
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, Error, "The login page timed out under load")}); err != nil {
		t.Fatal(err)
	}
	fresh := New(s.Dir, s.Locks, s.Clock)
	if rows, _ := fresh.Search(ctx, Query{Text: "memcached"}); len(rows) != 1 {
		t.Fatalf("after memory add: %+v", rows)
	}
	if v := fresh.openFast(); v == nil {
		t.Fatal("the index the write left is not used as is")
	} else {
		v.close()
	}
	// A checkout that writes the same bytes again (new time, same content)
	// keeps the fast path.
	data, _ = os.ReadFile(path)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if v := fresh.openFast(); v == nil {
		t.Fatal("a touched but unchanged file dropped the index")
	} else {
		v.close()
	}
}

// Many issue files changed at once (a checkout, a merge) are indexed in
// one reconcile, and every change is found.
func TestSearchFollowsManyChangedIssueFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	var batch []Observation
	for n := 1; n <= 6; n++ {
		batch = append(batch, obs("engineer", n, Decision, "Sessions are kept in redis for now"))
	}
	if _, err := s.Store(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 6; n++ {
		data, err := os.ReadFile(s.IssuePath(n))
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.ReplaceAll(string(data), "in redis for", "in valkey for")
		if err := os.WriteFile(s.IssuePath(n), []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rows, err := s.Search(ctx, Query{Text: "valkey", Limit: -1}); err != nil || len(rows) != 6 {
		t.Fatalf("reader: %d rows, %v", len(rows), err)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 1, KeyFact, "one more write")}); err != nil {
		t.Fatal(err)
	}
	fresh := New(s.Dir, s.Locks, s.Clock)
	if rows, _ := fresh.Search(ctx, Query{Text: "valkey", Limit: -1}); len(rows) != 6 {
		t.Fatalf("after a write: %d rows", len(rows))
	}
	if rows, _ := fresh.Search(ctx, Query{Text: "redis", Limit: -1}); len(rows) != 0 {
		t.Fatalf("the old text is still found: %d rows", len(rows))
	}
}
