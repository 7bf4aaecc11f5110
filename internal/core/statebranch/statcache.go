package statebranch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/go-git/go-git/v5/plumbing"
)

// statCache remembers the blob hash of each state file by its stat data
// (size, modification and change time, inode), like git's index does, so
// that a sync with nothing changed reads no file: with 1,000 issues and
// 50,000 observations hashing every file costs 100-250 ms, the stats 5.
// Every writer of state files replaces them by rename (a new inode) and
// the change time moves on any write, so a changed file never matches.
type statCache struct {
	path    string
	entries map[string]statEntry
}

type statEntry struct {
	stat fileStat
	hash plumbing.Hash
}

// fileStat is what identifies one version of a file on disk.
type fileStat struct {
	size, mtime, ctime int64
	ino                uint64
}

const statCacheHeader = "agentx-statcache 1"

// racyWindow: files modified this recently when the cache is written are
// not remembered, so a change landing within the timestamp granularity of
// the file system right after we hashed a file is never mistaken for the
// hashed version.
const racyWindow = 2 * time.Second

func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	st.ctime, st.ino = sysStat(fi)
	return st
}

// loadStatCache reads the cache; a missing or unreadable one is empty
// (everything is hashed again).
func loadStatCache(path string) *statCache {
	c := &statCache{path: path, entries: map[string]statEntry{}}
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() || sc.Text() != statCacheHeader {
		return c
	}
	for sc.Scan() {
		// HASH SIZE MTIME CTIME INO PATH
		f := strings.SplitN(sc.Text(), " ", 6)
		if len(f) != 6 || len(f[0]) != 40 || !plumbing.IsHash(f[0]) {
			return &statCache{path: path, entries: map[string]statEntry{}}
		}
		var e statEntry
		var errs [4]error
		e.hash = plumbing.NewHash(f[0])
		e.stat.size, errs[0] = strconv.ParseInt(f[1], 10, 64)
		e.stat.mtime, errs[1] = strconv.ParseInt(f[2], 10, 64)
		e.stat.ctime, errs[2] = strconv.ParseInt(f[3], 10, 64)
		e.stat.ino, errs[3] = strconv.ParseUint(f[4], 10, 64)
		if errors.Join(errs[:]...) != nil {
			return &statCache{path: path, entries: map[string]statEntry{}}
		}
		c.entries[f[5]] = e
	}
	return c
}

// lookup returns the remembered hash of rel when its stat still matches.
func (c *statCache) lookup(rel string, st fileStat) (plumbing.Hash, bool) {
	e, ok := c.entries[rel]
	if !ok || e.stat != st {
		return plumbing.ZeroHash, false
	}
	return e.hash, true
}

// save writes the entries of local that are older than the racy window,
// when they differ from what the cache held.
func (c *statCache) save(local map[string]localFile, now time.Time) error {
	limit := now.Add(-racyWindow).UnixNano()
	next := make(map[string]statEntry, len(local))
	for rel, f := range local {
		if f.stat.mtime < limit && f.stat.ctime < limit && !strings.ContainsAny(rel, "\n") {
			next[rel] = statEntry{stat: f.stat, hash: f.hash}
		}
	}
	if len(next) == len(c.entries) {
		same := true
		for rel, e := range next {
			if c.entries[rel] != e {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	var buf bytes.Buffer
	buf.WriteString(statCacheHeader + "\n")
	for rel, e := range next {
		fmt.Fprintf(&buf, "%s %d %d %d %d %s\n", e.hash, e.stat.size, e.stat.mtime, e.stat.ctime, e.stat.ino, rel)
	}
	c.entries = next
	// A cache: a crash may lose it, never corrupt what it stands for.
	return atomicfile.Write(c.path, buf.Bytes(), atomicfile.Options{NoSync: true})
}

// statCachePath is the cache of the workspace's .agentx/ directory, kept
// in the repository's git directory: never in .agentx/, never pushed.
func statCachePath(gitDir, agentxDir string) string {
	sum := blobHash([]byte(agentxDir)).String()[:12]
	return filepath.Join(gitDir, "agentx", "statcache-"+sum)
}
