package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/fileid"
)

// The configuration cache: what Load returned, kept in a derived file
// (`.agentx/.config-cache`, git-ignored and local) with the identity of
// every file it was read from, so that a command whose configuration did
// not change decodes one small JSON document instead of parsing the TOML
// files (0.24 ms of every command that loads them, most of it the TOML
// lexer; the cache's check and decode are about 0.05 ms).
//
// It is exactly as correct as parsing. It is keyed by the identity
// (fileid.ID: inode, size, modification and change times in nanoseconds)
// of agentx.toml, of every *.toml in the workflows directory (the listing
// itself: a file added or removed is a miss) and of the running binary,
// and by the binary's version and the cache's schema. It is written only
// when every input was already older than fileid.RacyWindow when it was
// read and did not change while it was parsed (git's "racily clean"
// rule: a write within one tick of the file times could keep an
// identity), and only where the identities can be read (Linux). A cache
// that is missing, unreadable, torn or corrupt (its checksum or JSON) or
// written for other inputs is a miss: the files are parsed and the cache
// written again, atomically (a temporary renamed over it). The warnings
// parsing printed are part of what it keeps, so they are the same, in
// text and number, from the cache.

// cacheHeader opens a cache file; the schema number changes with what
// the cache keeps.
const cacheHeader = "agentx-config-cache 1"

// maxCacheBytes bounds a cache file: one larger is not written (nor read).
const maxCacheBytes = 16 << 20

// cacheNow is the clock of the racy rule, and cacheHit is told of every
// Set served from the cache (tests move the one and count the other).
var (
	cacheNow = time.Now
	cacheHit func()
)

// cacheInput is one file the configuration was read from.
type cacheInput struct {
	Path   string    `json:"path"`
	Absent bool      `json:"absent,omitempty"`
	ID     fileid.ID `json:"id"`
}

// cacheKey is everything a cached Set depends on.
type cacheKey struct {
	Stamp  string     `json:"stamp"`  // the binary's version, from the caller
	Binary cacheInput `json:"binary"` // the running executable
	Config cacheInput `json:"config"`
	// Workflows is the workflows directory and Files its *.toml files
	// (not directories), sorted by name, as Load reads them.
	Workflows cacheInput   `json:"workflows"`
	Files     []cacheInput `json:"files"`
}

// cacheDoc is a cache file's JSON body.
type cacheDoc struct {
	Key cacheKey `json:"key"`
	Set *Set     `json:"set"`
	// What JSON does not see of the Set: the unknown keys of each
	// [people] table and the person a warning names (by the warning's
	// index in WarningsAt).
	PeopleUnknown  map[string][]string `json:"peopleUnknown,omitempty"`
	WarningsPerson map[int]string      `json:"warningsPerson,omitempty"`
}

// LoadCached is Load through the cache at cacheFile (see above); stamp
// names the binary's version. A cache that cannot be used or written is
// never an error: the files are parsed.
func LoadCached(configFile, workflowsDir, cacheFile, stamp string) (*Set, error) {
	if !fileid.Supported {
		return Load(configFile, workflowsDir)
	}
	start := cacheNow()
	key, ok := currentKey(configFile, workflowsDir, stamp)
	if !ok {
		return Load(configFile, workflowsDir)
	}
	if set, ok := readCache(cacheFile, key); ok {
		if cacheHit != nil {
			cacheHit()
		}
		return set, nil
	}
	set, err := Load(configFile, workflowsDir)
	if err != nil {
		return nil, err
	}
	if after, ok := currentKey(configFile, workflowsDir, stamp); ok && sameKey(key, after) && key.racyFree(start) {
		writeCache(cacheFile, key, set)
	}
	return set, nil
}

// currentKey reads the identities of the inputs now; ok is false when one
// cannot vouch for its content (not a regular file, unreadable).
func currentKey(configFile, workflowsDir, stamp string) (cacheKey, bool) {
	k := cacheKey{Stamp: stamp}
	exe, err := os.Executable()
	if err != nil {
		return k, false
	}
	var ok bool
	if k.Binary, ok = input(exe); !ok || k.Binary.Absent {
		return k, false
	}
	if k.Config, ok = input(configFile); !ok {
		return k, false
	}
	k.Workflows.Path = workflowsDir
	entries, err := os.ReadDir(workflowsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		k.Workflows.Absent = true
	case err != nil:
		return k, false
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue // what Load skips
		}
		in, ok := input(filepath.Join(workflowsDir, e.Name()))
		if !ok || in.Absent {
			return k, false
		}
		k.Files = append(k.Files, in)
	}
	return k, true
}

// input is the identity of the file at path, or its absence.
func input(path string) (cacheInput, bool) {
	id, ok, absent := fileid.Stat(path)
	return cacheInput{Path: path, Absent: absent, ID: id}, ok || absent
}

func sameKey(a, b cacheKey) bool {
	if a.Stamp != b.Stamp || a.Binary != b.Binary || a.Config != b.Config || a.Workflows != b.Workflows || len(a.Files) != len(b.Files) {
		return false
	}
	for i := range a.Files {
		if a.Files[i] != b.Files[i] {
			return false
		}
	}
	return true
}

// racyFree reports whether every configuration file was older than the
// racy window at start, so that its identity stands for its content.
func (k cacheKey) racyFree(start time.Time) bool {
	if !k.Config.Absent && !k.Config.ID.RacyFree(start) {
		return false
	}
	for _, f := range k.Files {
		if !f.ID.RacyFree(start) {
			return false
		}
	}
	return true
}

// readCache returns the cached Set when cacheFile holds one for key.
func readCache(cacheFile string, key cacheKey) (*Set, bool) {
	data, err := atomicfile.ReadRegular(cacheFile, maxCacheBytes)
	if err != nil {
		return nil, false
	}
	body, ok := checkCache(data)
	if !ok {
		return nil, false
	}
	var doc cacheDoc
	if err := json.Unmarshal(body, &doc); err != nil || doc.Set == nil || !sameKey(doc.Key, key) {
		return nil, false
	}
	for name, unknown := range doc.PeopleUnknown {
		p, ok := doc.Set.Config.People[name]
		if !ok {
			return nil, false
		}
		p.unknown = unknown
		doc.Set.Config.People[name] = p
	}
	for i, person := range doc.WarningsPerson {
		if i < 0 || i >= len(doc.Set.Config.WarningsAt) {
			return nil, false
		}
		doc.Set.Config.WarningsAt[i].person = person
	}
	return doc.Set, true
}

// checkCache returns the JSON body of a cache file whose header and
// checksum hold.
func checkCache(data []byte) ([]byte, bool) {
	head, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, false
	}
	fields := strings.Fields(string(head))
	if len(fields) != 3 || fields[0]+" "+fields[1] != cacheHeader {
		return nil, false
	}
	sum, err := strconv.ParseUint(fields[2], 16, 64)
	if err != nil || sum != checksum(body) {
		return nil, false
	}
	return body, true
}

// writeCache replaces cacheFile with set for key; a failure leaves the
// next command to parse again. It never creates the directory: a
// workspace that has none is not made one by a read.
func writeCache(cacheFile string, key cacheKey, set *Set) {
	if fi, err := os.Stat(filepath.Dir(cacheFile)); err != nil || !fi.IsDir() {
		return
	}
	data, err := encodeCache(key, set)
	if err != nil || len(data) > maxCacheBytes {
		return
	}
	_ = atomicfile.Write(cacheFile, data, atomicfile.Options{NoSync: true}) // derived: the checksum catches a torn file
}

// checksum is the FNV-1a (64 bits) of a cache's body: it tells a torn or
// damaged file, and costs no table at start (the CRC-32C tables cost 0.17
// ms to build, as much as half of what the cache saves).
func checksum(body []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(body)
	return h.Sum64()
}

func encodeCache(key cacheKey, set *Set) ([]byte, error) {
	doc := cacheDoc{Key: key, Set: set}
	for name, p := range set.Config.People {
		if len(p.unknown) > 0 {
			if doc.PeopleUnknown == nil {
				doc.PeopleUnknown = map[string][]string{}
			}
			doc.PeopleUnknown[name] = p.unknown
		}
	}
	for i, w := range set.Config.WarningsAt {
		if w.person != "" {
			if doc.WarningsPerson == nil {
				doc.WarningsPerson = map[int]string{}
			}
			doc.WarningsPerson[i] = w.person
		}
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the configuration cache: %w", err)
	}
	head := fmt.Sprintf("%s %016x\n", cacheHeader, checksum(body))
	return append([]byte(head), body...), nil
}
