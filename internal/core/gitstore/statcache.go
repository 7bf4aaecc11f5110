package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/go-git/go-git/v5/plumbing"
)

// StatCache remembers the blob hash of each state file by its stat data
// (size, modification and change time, inode), like git's index does, so
// that a sync with nothing changed reads no file: with 1,000 issues and
// 50,000 observations hashing every file costs 100-250 ms, the stats 5.
// Every writer of state files replaces them by rename (a new inode) and
// the change time moves on any write, so a changed file never matches.
type StatCache struct {
	path    string
	entries map[string]statEntry
}

type statEntry struct {
	stat FileStat
	hash Hash
}

// FileStat is what identifies one version of a file on disk.
type FileStat struct {
	Size, Mtime, Ctime int64
	Ino                uint64
}

// CachedFile is one file's version and blob hash, as the cache keeps it.
type CachedFile struct {
	Hash Hash
	Stat FileStat
}

const statCacheHeader = "agentx-statcache 1"

// racyWindow: files modified this recently when the cache is written are
// not remembered, so a change landing within the timestamp granularity of
// the file system right after we hashed a file is never mistaken for the
// hashed version.
const racyWindow = 2 * time.Second

// StatOf is the version fi describes.
func StatOf(fi fs.FileInfo) FileStat {
	st := FileStat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	st.Ctime, st.Ino = sysStat(fi)
	return st
}

// LoadStatCache reads the cache at path; a missing or unreadable one is
// empty (everything is hashed again).
func LoadStatCache(path string) *StatCache {
	c := &StatCache{path: path, entries: map[string]statEntry{}}
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
			return &StatCache{path: path, entries: map[string]statEntry{}}
		}
		var e statEntry
		var errs [4]error
		e.hash = plumbing.NewHash(f[0])
		e.stat.Size, errs[0] = strconv.ParseInt(f[1], 10, 64)
		e.stat.Mtime, errs[1] = strconv.ParseInt(f[2], 10, 64)
		e.stat.Ctime, errs[2] = strconv.ParseInt(f[3], 10, 64)
		e.stat.Ino, errs[3] = strconv.ParseUint(f[4], 10, 64)
		if errors.Join(errs[:]...) != nil {
			return &StatCache{path: path, entries: map[string]statEntry{}}
		}
		c.entries[f[5]] = e
	}
	return c
}

// Len is the number of files remembered.
func (c *StatCache) Len() int { return len(c.entries) }

// Lookup returns the remembered hash of rel when its stat still matches.
func (c *StatCache) Lookup(rel string, st FileStat) (Hash, bool) {
	e, ok := c.entries[rel]
	if !ok || e.stat != st {
		return ZeroHash, false
	}
	return e.hash, true
}

// Save writes the entries of files that are older than the racy window,
// when they differ from what the cache held.
func (c *StatCache) Save(files map[string]CachedFile, now time.Time) error {
	limit := now.Add(-racyWindow).UnixNano()
	next := make(map[string]statEntry, len(files))
	for rel, f := range files {
		if f.Stat.Mtime < limit && f.Stat.Ctime < limit && !strings.ContainsAny(rel, "\n") {
			next[rel] = statEntry{stat: f.Stat, hash: f.Hash}
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
		fmt.Fprintf(&buf, "%s %d %d %d %d %s\n", e.hash, e.stat.Size, e.stat.Mtime, e.stat.Ctime, e.stat.Ino, rel)
	}
	c.entries = next
	// A cache: a crash may lose it, never corrupt what it stands for.
	return atomicfile.Write(c.path, buf.Bytes(), atomicfile.Options{NoSync: true})
}

// StatCachePath is the cache named name of the workspace's .agentx/
// directory, kept in the repository's (or linked worktree's) git
// directory: never in .agentx/, never pushed.
func StatCachePath(gitDir, name, agentxDir string) string {
	sum := BlobHash([]byte(agentxDir)).String()[:12]
	return filepath.Join(gitDir, "agentx", name+"-"+sum)
}

// ReadFile reads the regular file at p and the stat data of the version
// read; ok is false when it is gone.
func ReadFile(p string) (data []byte, st FileStat, ok bool, err error) {
	f, err := atomicfile.OpenRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, FileStat{}, false, nil
	}
	if err != nil {
		return nil, FileStat{}, false, err
	}
	defer func() { _ = f.Close() }() // opened read-only: a close error loses nothing
	// Stat the open file: the hash is then that of the version whose stat
	// data is remembered, even if a writer replaces the path meanwhile.
	fi, err := f.Stat()
	if err != nil {
		return nil, FileStat{}, false, err
	}
	if fi.Size() > atomicfile.LimitOf(p) {
		return nil, FileStat{}, false, fmt.Errorf("%s: %w (%d bytes, limit %d)", p, atomicfile.ErrTooLarge, fi.Size(), atomicfile.LimitOf(p))
	}
	// Read into a buffer of the file's size: growing one as io.ReadAll
	// does touches (and faults in) twice the memory of a 35 MB manifest.
	// One byte more tells a file that grew since the stat.
	data = make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, FileStat{}, false, err
	}
	if int64(n) > fi.Size() {
		// Written to in place meanwhile: read it whole, the slow way.
		rest, err := atomicfile.ReadAllLimited(f, atomicfile.LimitOf(p)-int64(n))
		if err != nil {
			return nil, FileStat{}, false, err
		}
		data = append(data[:n], rest...)
		return data, FileStat{}, true, nil // no stat: never cached
	}
	return data[:n], StatOf(fi), true, nil
}
