package memory

import (
	"os"

	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// IndexStale says why the derived search index does not describe the
// manifest ("" when it does): missing, of another generation, or left
// behind by a writer that did not finish. Readers then fall back to the
// issue files, so a stale index is slower, never wrong; `verify` reports
// it and `verify --repair` rebuilds the manifest and index together.
func (s *Store) IndexStale() string {
	if s.unfinishedWrites() {
		return "a write did not finish (a crash marker is pending)"
	}
	v := s.openFast()
	if v == nil {
		return "it is missing, or does not match manifest.json or its record of the issue files (search.files)"
	}
	v.close()
	return ""
}

// ManifestBase reports whether the store's base is a manifest base: the
// search index on disk has its rows in manifest.json, or there is no index
// and there is a manifest.json (the old tools' store, or one whose index
// was deleted), which agentx then keeps in line with the issue files;
// false for a file base (filebase.go), which needs no manifest.
func (s *Store) ManifestBase() bool {
	ix, unmap, err := memindex.Open(s.IndexPath(), false)
	if err != nil {
		_, err := os.Lstat(s.ManifestPath())
		return err == nil
	}
	defer unmap()
	return !isFileBase(ix.Stamp())
}
