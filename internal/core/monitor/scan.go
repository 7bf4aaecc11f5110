package monitor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// IndexName is the scanner's derived index inside the clarifications
// directory. It lists ledgers known to hold no open record, each with the
// file identity it had when it was read; everything else is read. Deleting
// it loses nothing: the next scan reads every ledger and writes it again.
const IndexName = ".monitor-index"

// indexHeader starts the index; a file without it is ignored.
const indexHeader = "agentx-monitor-index 1"

// racyWindow is how recently a file may have changed and still be trusted
// by its identity alone. File times are coarse (a kernel tick), so two
// writes inside one tick can leave the same identity; a file younger than
// this is read again on every scan until it is older (git's "racy clean").
const racyWindow = 2 * time.Second

// Scanner finds the open records (pending, answered, stale) of a workspace
// without decoding closed history. The monitor runs on every hook and every
// clarify command, so its cost must follow the open records, not the years
// of resolved ones:
//   - a ledger listed in the index is skipped when its identity (inode,
//     size, modification and change times) is unchanged and it was already
//     old when read, so no write can hide behind an equal identity;
//   - any other ledger is read, and decoded only when its bytes could hold
//     an open status (the JSON strings "pending", "answered", "stale" or an
//     escape); an open ledger is therefore always judged by its content.
type Scanner struct {
	// Dir is the clarifications directory.
	Dir string
	// Now is the wall clock for the racy check (file times are wall
	// times, whatever clock the protocol runs on). Default time.Now.
	Now func() time.Time
	// NoIndex reads every ledger and writes no index (tests, benchmarks).
	NoIndex bool
}

// NewScanner returns the scanner of a workspace.
func NewScanner(ws workspace.Workspace) *Scanner {
	return &Scanner{Dir: ws.ClarificationsDir()}
}

// Scan is what one scan found.
type Scan struct {
	// Issues are the issues with a ledger file, ascending.
	Issues []int
	// Open are the open records, by issue.
	Open []ledger.Record
	// Warnings are ledgers that could not be read (corrupt, unreadable);
	// they are skipped, never treated as empty.
	Warnings []error
	// Read and Decoded count the ledger files read and decoded this time.
	Read, Decoded int
}

// identity is what a file's metadata says about its content.
type identity struct {
	ino, size, mtime, ctime int64
}

type indexEntry struct {
	id identity
}

// Scan reads what it must and returns the open records.
func (s *Scanner) Scan() (*Scan, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	start := now()
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Scan{}, nil
		}
		return nil, fmt.Errorf("list ledgers: %w", err)
	}
	var old map[string]indexEntry
	if !s.NoIndex {
		old = readIndex(filepath.Join(s.Dir, IndexName))
	}
	type job struct {
		name  string
		issue int
	}
	out := &Scan{}
	next := map[string]indexEntry{}
	var jobs []job
	for _, e := range entries {
		name := e.Name()
		issue, ok := workspace.LedgerIssue(name)
		if !ok || e.IsDir() {
			continue
		}
		out.Issues = append(out.Issues, issue)
		if ie, ok := old[name]; ok {
			if id, ok := statIdentity(filepath.Join(s.Dir, name)); ok && id == ie.id {
				next[name] = ie
				continue
			}
		}
		jobs = append(jobs, job{name, issue})
	}
	sort.Ints(out.Issues)

	type result struct {
		name    string
		open    []ledger.Record
		err     error
		decoded bool
		trusted bool
		id      identity
	}
	results := make([]result, len(jobs))
	work := func(i int) {
		j := jobs[i]
		path := filepath.Join(s.Dir, j.name)
		r := result{name: j.name}
		// Identity before content: a write after the stat changes the
		// identity, so the next scan reads the file again.
		id, idOK := statIdentity(path)
		data, err := os.ReadFile(path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				r.err = fmt.Errorf("read ledger %s: %w", path, err)
			}
			results[i] = r
			return
		}
		if !mayBeOpen(data) && !json.Valid(data) {
			// Closed by its bytes but not JSON at all: report it rather
			// than take a torn or hand-broken ledger for a closed one.
			_, perr := ledger.Parse(path, data, j.issue)
			if perr == nil {
				perr = fmt.Errorf("ledger %s is not valid JSON", path)
			}
			r.err = perr
			results[i] = r
			return
		}
		if mayBeOpen(data) {
			r.decoded = true
			l, err := ledger.Parse(path, data, j.issue)
			if err != nil {
				r.err = err
				results[i] = r
				return
			}
			for _, rec := range l.Clarifications {
				if rec.Status.Open() {
					r.open = append(r.open, rec)
				}
			}
		}
		r.id = id
		r.trusted = idOK && len(r.open) == 0 && time.Unix(0, id.ctime).Before(start.Add(-racyWindow)) &&
			time.Unix(0, id.mtime).Before(start.Add(-racyWindow))
		results[i] = r
	}
	parallel(len(jobs), work)
	for _, r := range results {
		out.Read++
		if r.decoded {
			out.Decoded++
		}
		if r.err != nil {
			out.Warnings = append(out.Warnings, r.err)
			continue
		}
		out.Open = append(out.Open, r.open...)
		if r.trusted {
			next[r.name] = indexEntry{r.id}
		}
	}
	sort.SliceStable(out.Open, func(i, j int) bool { return less(&out.Open[i], &out.Open[j]) })
	if !s.NoIndex && !sameIndex(old, next) {
		// Derived data: a failed write only costs the next scan some reads.
		_ = writeIndex(filepath.Join(s.Dir, IndexName), next)
	}
	return out, nil
}

// parallel runs work(0..n-1) on a few goroutines when n is large enough to
// pay for them.
func parallel(n int, work func(int)) {
	workers := 4
	if n < 32 {
		workers = 1
	}
	if workers == 1 {
		for i := 0; i < n; i++ {
			work(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	nextJob := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := nextJob
				nextJob++
				mu.Unlock()
				if i >= n {
					return
				}
				work(i)
			}
		}()
	}
	wg.Wait()
}

var openMarkers = [][]byte{[]byte(`"pending"`), []byte(`"answered"`), []byte(`"stale"`), []byte(`\u`)}

// mayBeOpen reports whether a ledger's bytes could hold an open record. A
// status is a JSON string, so an open one appears literally as "pending",
// "answered" or "stale" unless written with escapes; false positives (a
// question mentioning "pending" in quotes) only cost a decode.
func mayBeOpen(data []byte) bool {
	for _, m := range openMarkers {
		if bytes.Contains(data, m) {
			return true
		}
	}
	return false
}

// readIndex parses the index; anything unexpected gives an empty index
// (every ledger is read, nothing is lost).
func readIndex(path string) map[string]indexEntry {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	idx, err := parseIndex(data)
	if err != nil {
		return nil
	}
	return idx
}

func parseIndex(data []byte) (map[string]indexEntry, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	if !sc.Scan() || sc.Text() != indexHeader {
		return nil, errors.New("no index header")
	}
	out := map[string]indexEntry{}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 {
			return nil, fmt.Errorf("bad index line %q", sc.Text())
		}
		if _, ok := workspace.LedgerIssue(f[0]); !ok {
			return nil, fmt.Errorf("bad index name %q", f[0])
		}
		var n [4]int64
		for i := range n {
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return nil, err
			}
			n[i] = v
		}
		out[f[0]] = indexEntry{identity{n[0], n[1], n[2], n[3]}}
	}
	return out, sc.Err()
}

func formatIndex(idx map[string]indexEntry) []byte {
	names := make([]string, 0, len(idx))
	for n := range idx {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString(indexHeader + "\n")
	for _, n := range names {
		id := idx[n].id
		fmt.Fprintf(&b, "%s %d %d %d %d\n", n, id.ino, id.size, id.mtime, id.ctime)
	}
	return b.Bytes()
}

func writeIndex(path string, idx map[string]indexEntry) error {
	// No fsync: a torn or lost index after a crash is only a slower scan.
	return jsonfile.WriteAtomic(path, formatIndex(idx), jsonfile.WriteOptions{NoSync: true})
}

func sameIndex(a, b map[string]indexEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
