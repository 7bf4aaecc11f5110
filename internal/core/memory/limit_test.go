package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// A manifest past its read limit (one another tool grew with keys of its
// own) is moved aside by a rebuild, not replaced unseen: before, the
// rebuild took it for missing and dropped every key the other tool kept.
func TestRebuildKeepsAManifestPastItsLimitAside(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Use Redis for sessions and caching"),
		obs("engineer", 8, KeyFact, "Tokens expire after fifteen minutes"),
	}); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	pad := `"note": "` + strings.Repeat("x", 4000) + `",` + "\n      \"id\""
	foreign := bytes.ReplaceAll(m, []byte(`"id"`), []byte(pad))
	writeFiles(t, s.Dir, map[string]string{"manifest.json": string(foreign)})
	oldState, oldStore := atomicfile.StateLimit, atomicfile.StoreLimit
	atomicfile.StateLimit, atomicfile.StoreLimit = 4<<10, int64(len(foreign)-1)
	t.Cleanup(func() { atomicfile.StateLimit, atomicfile.StoreLimit = oldState, oldStore })

	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(s.ManifestPath() + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("the manifest past its limit was not kept aside: %v", aside)
	}
	if kept, err := os.ReadFile(aside[0]); err != nil || !bytes.Equal(kept, foreign) {
		t.Fatalf("kept aside: %d bytes, %v; want the %d the other tool wrote", len(kept), err, len(foreign))
	}
	if rows, err := s.Search(ctx, Query{Text: "redis"}); err != nil || len(rows) != 1 {
		t.Fatalf("search after the rebuild: %+v %v", rows, err)
	}
}
