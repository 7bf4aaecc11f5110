//go:build unix

package memory

import (
	"context"
	"reflect"
	"testing"

	"golang.org/x/sys/unix"
)

// A search of a file base gives, with its rows, the stat data of the
// issue files it read them from: what an lstat of each gives (the
// anchors' check takes them instead of stat'ing the files again), and the
// same rows as Search.
func TestSearchFilesTakesTheIssueFilesStat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := fileBaseStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 3, Decision, "token refresh rotates the key"), obs("tester", 4, Error, "token cache warmed twice")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	q := Query{Text: "token", Limit: -1}
	rows, stats, err := s.SearchFiles(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(stats) != 2 {
		t.Fatalf("%d rows, stats of %d files; want 2 and 2", len(rows), len(stats))
	}
	for _, n := range []int{3, 4} {
		var st unix.Stat_t
		if err := unix.Lstat(s.IssuePath(n), &st); err != nil {
			t.Fatal(err)
		}
		want := FileStat{Size: st.Size, Mod: st.Mtim.Nano(), Change: st.Ctim.Nano(), Ino: uint64(st.Ino), OK: true}
		if stats[n] != want {
			t.Fatalf("issue %d: %+v, want lstat's %+v", n, stats[n], want)
		}
	}
	plain, err := s.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows, plain) {
		t.Fatalf("SearchFiles's rows differ from Search's:\n%v\n%v", rows, plain)
	}
}
