package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchWorkspace writes n ledgers and n memory issue files of about 4 KB
// and 40 KB, aged past the stat cache's racy window.
func benchWorkspace(b *testing.B, n int) (string, *Store) {
	root, s := newRepo(b)
	old := time.Now().Add(-time.Hour)
	for i := 1; i <= n; i++ {
		for _, p := range []string{fmt.Sprintf(".agentx/state/clarifications/issue-%d.json", i), fmt.Sprintf(".agentx/memory/issue-%d.json", i)} {
			size := 4 << 10
			if strings.Contains(p, "memory") {
				size = 40 << 10
			}
			write(b, root, p, fmt.Sprintf(`{"issueNumber":%d,"pad":%q}`, i, strings.Repeat("x", size)))
			_ = os.Chtimes(filepath.Join(root, p), old, old)
		}
	}
	return root, s
}

// BenchmarkCreateFirst is a first checkpoint of 1,000 ledgers and 1,000
// memory files (about 44 MB).
func BenchmarkCreateFirst(b *testing.B) {
	ctx := context.Background()
	root, s := benchWorkspace(b, 1000)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := os.RemoveAll(filepath.Join(root, ".git", "agentx")); err != nil {
			b.Fatal(err)
		}
		_ = s.repo.RemoveRef(s.ref)
		git(b, root, "prune", "--expire=now") // drop the loose objects of the last round
		b.StartTimer()
		if _, err := s.Create(ctx, "first", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateOneChange is a checkpoint after one memory file changed.
func BenchmarkCreateOneChange(b *testing.B) {
	ctx := context.Background()
	root, s := benchWorkspace(b, 1000)
	if _, err := s.Create(ctx, "first", 0); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(root, ".agentx/memory/issue-7.json")
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		write(b, root, ".agentx/memory/issue-7.json", fmt.Sprintf(`{"issueNumber":7,"n":%d}`, i))
		old := time.Now().Add(-time.Hour).Add(time.Duration(i) * time.Millisecond)
		_ = os.Chtimes(p, old, old)
		b.StartTimer()
		r, err := s.Create(ctx, "one change", 0)
		if err != nil || !r.Created {
			b.Fatal(r, err)
		}
	}
}
