package config

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/fileid"
)

// The configuration cache: what Load returned, kept in a derived file
// (`.agentx/.config-cache`, git-ignored and local) with the identity of
// every file it was read from, so that a command whose configuration did
// not change decodes it (cachecodec.go) instead of parsing the TOML files
// (0.24-0.3 ms of every command that loads them, most of it the TOML
// lexer; the cache's check and decode cost a fraction of that).
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
// that is missing, unreadable, torn or corrupt (its checksum or encoding) or
// written for other inputs is a miss: the files are parsed and the cache
// written again, atomically (a temporary renamed over it). The warnings
// parsing printed are part of what it keeps, so they are the same, in
// text and number, from the cache.

// cacheHeader opens a cache file; the schema number changes with what
// the cache keeps.
const cacheHeader = "agentx-config-cache 2"

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
	Path   string
	Absent bool
	ID     fileid.ID
}

// cacheKey is everything a cached Set depends on.
type cacheKey struct {
	Stamp  string     // the binary's version, from the caller
	Binary cacheInput // the running executable
	Config cacheInput
	// Workflows is the workflows directory and Files its *.toml files
	// (not directories), sorted by name, as Load reads them.
	Workflows cacheInput
	Files     []cacheInput
}

// cacheBody is what a cache keeps of a Set after its key.
type cacheBody struct {
	Set Set
	// What the encoding does not see of the Set (unexported): the
	// unknown keys of each [people] table and the person each warning
	// names (by its index in WarningsAt; nil when none does).
	PeopleUnknown  map[string][]string
	WarningsPerson []string
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
	return a.Stamp == b.Stamp && a.Binary == b.Binary && a.Config == b.Config && a.Workflows == b.Workflows && slices.Equal(a.Files, b.Files)
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
	raw, ok := checkCache(data)
	if !ok {
		return nil, false
	}
	d := cacheDecoder{b: raw}
	var cached cacheKey
	if err := d.value(reflect.ValueOf(&cached).Elem()); err != nil || !sameKey(cached, key) {
		return nil, false
	}
	var body cacheBody
	if err := d.value(reflect.ValueOf(&body).Elem()); err != nil || len(d.b) != 0 {
		return nil, false
	}
	set := &body.Set
	for name, unknown := range body.PeopleUnknown {
		p, ok := set.Config.People[name]
		if !ok {
			return nil, false
		}
		p.unknown = unknown
		set.Config.People[name] = p
	}
	if body.WarningsPerson != nil {
		if len(body.WarningsPerson) != len(set.Config.WarningsAt) {
			return nil, false
		}
		for i, person := range body.WarningsPerson {
			set.Config.WarningsAt[i].person = person
		}
	}
	return set, true
}

// checkCache returns the encoded body (cachecodec.go) of a cache file
// whose header and checksum hold.
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
	if !listedInGitignore(cacheFile) {
		return
	}
	data, err := encodeCache(key, set)
	if err != nil || len(data) > maxCacheBytes {
		return
	}
	_ = atomicfile.Write(cacheFile, data, atomicfile.Options{NoSync: true}) // derived: the checksum catches a torn file
}

// listedInGitignore reports whether the .gitignore beside cacheFile names
// it. A workspace made before the cache existed keeps its own .gitignore
// until `doctor`'s fix is applied, and a cache written there would show in
// every `git status` (issue 37): such a workspace parses every time. Read
// only when a cache is about to be written, which is rare.
func listedInGitignore(cacheFile string) bool {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(cacheFile), ".gitignore"))
	if err != nil {
		return false
	}
	name := filepath.Base(cacheFile)
	for line := range strings.SplitSeq(string(data), "\n") {
		if l := strings.TrimSpace(line); l == name || l == "/"+name {
			return true
		}
	}
	return false
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
	body := cacheBody{Set: *set}
	for name, p := range set.Config.People {
		if len(p.unknown) > 0 {
			if body.PeopleUnknown == nil {
				body.PeopleUnknown = map[string][]string{}
			}
			body.PeopleUnknown[name] = p.unknown
		}
	}
	for i, w := range set.Config.WarningsAt {
		if w.person != "" {
			if body.WarningsPerson == nil {
				body.WarningsPerson = make([]string, len(set.Config.WarningsAt))
			}
			body.WarningsPerson[i] = w.person
		}
	}
	var e cacheEncoder
	if err := e.value(reflect.ValueOf(key)); err != nil {
		return nil, err
	}
	if err := e.value(reflect.ValueOf(body)); err != nil {
		return nil, err
	}
	head := fmt.Sprintf("%s %016x\n", cacheHeader, checksum(e.b))
	return append([]byte(head), e.b...), nil
}
