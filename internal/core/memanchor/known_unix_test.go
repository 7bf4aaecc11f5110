//go:build unix

package memanchor

import (
	"context"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

// lstatOf is the memory.FileStat an lstat of issue n's file gives.
func lstatOf(t *testing.T, f *fix, n int) memory.FileStat {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(f.store.IssuePath(n), &st); err != nil {
		t.Fatal(err)
	}
	return memory.FileStat{Size: st.Size, Mod: st.Mtim.Nano(), Change: st.Ctim.Nano(), Ino: uint64(st.Ino), OK: true}
}

// Known stat data stand for the lstat of a file: the same as lstat's,
// the saved verdict stands; different, the file is judged again; and a
// file re-hashed since its verdict is caught through them as through an
// lstat.
func TestKnownStatsStandForTheLstat(t *testing.T) {
	t.Parallel()
	f := newFix(t)
	_ = findings(t, f.ws, 5, 7) // a writer's: the verdicts saved
	x := For(f.ws)
	for _, tt := range []struct {
		name    string
		known   memory.FileStats
		changed bool
	}{
		{"none", nil, false},
		{"as lstat", memory.FileStats{5: lstatOf(t, f, 5)}, false},
		{"not taken", memory.FileStats{5: {Size: 1}}, false},
		{"another size", memory.FileStats{5: func() memory.FileStat { s := lstatOf(t, f, 5); s.Size++; return s }()}, true},
	} {
		x.Known = tt.known
		st := x.loadStateOf([]int{5})
		var base *baseReader
		_, changed, err := x.verdict(st, 5, &base)
		base.close()
		if err != nil || changed != tt.changed {
			t.Fatalf("%s: judged again %v (want %v), %v", tt.name, changed, tt.changed, err)
		}
	}
	id := rehash(t, f.ws, 5, "Planted text")
	x.Known = memory.FileStats{5: lstatOf(t, f, 5)}
	rep, err := x.Check(context.Background(), []int{5})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := rep.Of(id); !ok || got.Code != CodeRehashed {
		t.Fatalf("re-hashed file through known stat data: %v %v", got, ok)
	}
}
