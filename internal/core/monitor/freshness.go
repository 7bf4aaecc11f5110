package monitor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/fileid"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// IndexStale says why the index in the clarifications directory dir no
// longer describes the ledgers there ("" when it does, or when there is
// none): a ledger written, added or removed since the last scan. A stale
// index is never wrong on disk (the next scan reads what changed and
// rewrites it); `verify` reports it, and `verify --repair` may delete it.
func IndexStale(dir string) string {
	path := filepath.Join(dir, IndexName)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	idx := readIndex(path)
	if idx == nil {
		return "it does not parse"
	}
	d, err := os.Open(dir)
	if err != nil {
		return "the clarifications directory cannot be read"
	}
	defer func() { _ = d.Close() }() // read-only: a close error loses nothing
	names, err := d.Readdirnames(-1)
	if err != nil {
		return "the clarifications directory cannot be read"
	}
	seen := 0
	for _, name := range names {
		ie, known := idx[name]
		if _, ok := ledger.FileIssue(name); !ok {
			continue
		}
		if !known {
			return name + " was added since the last scan"
		}
		seen++
		if id, ok := fileid.StatAt(d, name); !ok || id != ie.id {
			return name + " changed since the last scan"
		}
	}
	if seen != len(idx) {
		return "a ledger it lists was removed"
	}
	return ""
}
