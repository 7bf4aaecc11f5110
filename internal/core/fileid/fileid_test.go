package fileid

import (
	"testing"
	"time"
)

// A file changed within the racy window of the scan is not trusted.
func TestRacyFree(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	old := start.Add(-3 * time.Second).UnixNano()
	fresh := start.Add(-time.Second).UnixNano()
	for _, c := range []struct {
		id   ID
		want bool
	}{
		{ID{Ino: 1, Mtime: old, Ctime: old}, true},
		{ID{Ino: 1, Mtime: old, Ctime: fresh}, false},
		{ID{Ino: 1, Mtime: fresh, Ctime: old}, false},
		{ID{}, false},
	} {
		if got := c.id.RacyFree(start); got != c.want {
			t.Errorf("%+v: %v", c.id, got)
		}
	}
}
