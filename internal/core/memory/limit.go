package memory

import (
	"errors"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// ErrStoreLimit marks a manifest or search index that would pass
// atomicfile.StoreLimit, the most any reader accepts: it is not written.
var ErrStoreLimit = errors.New("memory store past its size limit")

// checkStoreLimit refuses a manifest or index no reader would accept, so
// that no file agentx writes is one it then refuses to read. The issue
// files already hold what was stored (step 1 of the write protocol); only
// the derived files are left behind.
func (s *Store) checkStoreLimit(st *state) error {
	for _, f := range []struct {
		path string
		size int
	}{{s.ManifestPath(), len(st.data)}, {s.IndexPath(), len(st.idx)}} {
		if limit := atomicfile.LimitOf(f.path); int64(f.size) > limit {
			return errcode.Wrap(errcode.IOError, ErrStoreLimit,
				"%s would be %d bytes, over the limit of %d bytes every reader keeps; not written (the observations are in the issue files)",
				f.path, f.size, limit).WithHint("`agentx-hook memory compact` archives old observations and shrinks it")
		}
	}
	return nil
}
