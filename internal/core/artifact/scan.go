package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/fileid"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// IndexName is the scan's derived index inside the artifacts directory:
// for each ledger read earlier, the file identity it had then and its
// summary. Deleting it loses nothing: the next scan reads every ledger
// and writes it again. It never leaves the machine (a dot file: not a
// state path; workspace.LocalOnly).
const IndexName = workspace.ArtifactIndexName

// indexHeader starts the index; a file without it is ignored.
const indexHeader = "agentx-artifact-index 1"

// Scanned is what one scan found.
type Scanned struct {
	// Summaries of every ledger that holds an artifact, by issue
	// ascending.
	Summaries []Summary
	// Warnings are ledgers that could not be read or do not parse: they
	// are skipped, never taken for empty, and read again next time.
	Warnings []error
	// Read counts the ledgers read (and decoded) this time; the others
	// came from the index.
	Read int
}

// Scan summarises every ledger for `ready` and the monitor, reading only
// the ledgers written since the last scan: a ledger whose identity
// (fileid: inode, size, modification and change times) is the one the
// index recorded, and which was older than the racy window when it was
// read, takes its summary from the index. Whatever it returns, every
// write re-reads its ledger under the lock, so the index can make a scan
// slower, never a ledger wrong.
func (s *Store) Scan() (*Scanned, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	start := now()
	dir := s.WS.ArtifactsDir()
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Scanned{}, nil
		}
		return nil, fmt.Errorf("list artifact ledgers: %w", err)
	}
	defer func() { _ = d.Close() }() // opened to list: a close error loses nothing
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list artifact ledgers: %w", err)
	}
	indexPath := filepath.Join(dir, IndexName)
	var old map[string]indexEntry
	if !s.NoIndex {
		old = readIndex(indexPath)
	}
	out := &Scanned{}
	next := make(map[string]indexEntry, len(names))
	for _, name := range names {
		issue, ok := workspace.LedgerIssue(name)
		if !ok {
			continue
		}
		if ie, ok := old[name]; ok {
			if id, ok := fileid.StatAt(d, name); ok && id == ie.id {
				if sum, err := ie.decode(issue); err == nil {
					next[name] = ie
					out.add(sum)
					continue
				}
			}
		}
		out.Read++
		sum, ie, err := s.readOne(filepath.Join(dir, name), issue, start)
		switch {
		case err != nil:
			out.Warnings = append(out.Warnings, err)
		case sum == nil: // removed since the listing
		default:
			out.add(*sum)
			if ie != nil {
				next[name] = *ie
			}
		}
	}
	slices.SortFunc(out.Summaries, func(a, b Summary) int { return a.Issue - b.Issue })
	if !s.NoIndex && !sameIndex(old, next) {
		// Derived data: a failed write only costs the next scan some reads.
		_ = atomicfile.Write(indexPath, formatIndex(next), atomicfile.Options{NoSync: true})
	}
	return out, nil
}

// readOne reads and summarises the ledger at path; the index entry is
// nil when its identity may not stand for it next time (racy, unknown,
// or no index kept). A ledger gone since the listing gives no summary.
func (s *Store) readOne(path string, issue int, start time.Time) (*Summary, *indexEntry, error) {
	data, id, idOK, err := fileid.Read(path, atomicfile.StateLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read artifact ledger %s: %w", path, err)
	}
	f, err := Parse(path, data, issue)
	if err != nil {
		return nil, nil, err
	}
	sum := f.Summarize()
	if !idOK || !id.RacyFree(start) || s.NoIndex {
		return &sum, nil, nil
	}
	raw, err := encodeSummary(&sum)
	if err != nil {
		return &sum, nil, nil
	}
	return &sum, &indexEntry{id: id, summary: raw}, nil
}

func (sc *Scanned) add(sum Summary) {
	if !sum.Empty() {
		sc.Summaries = append(sc.Summaries, sum)
	}
}

// indexEntry is one ledger in the index: its identity and summary (one
// line of JSON).
type indexEntry struct {
	id      fileid.ID
	summary []byte
}

func (ie indexEntry) decode(issue int) (Summary, error) {
	var sum Summary
	if c, ok := bytes.CutPrefix(ie.summary, []byte("=")); ok {
		sum = decodeCompact(c, issue)
	} else if err := json.Unmarshal(ie.summary, &sum); err != nil {
		return Summary{}, err
	}
	if len(sum.Marks) == 0 {
		return Summary{}, errors.New("an index line without artifacts")
	}
	sum.Issue = issue
	return sum, nil
}

// encodeSummary is the index's form of a summary: space-separated
// tokens `=workflow id:flags ... [~u] [! artifact agent path upstream
// oldBlob newBlob commit]...`, which read back without a JSON decoder
// (500 of them are read by every `ready`); a ledger of several workflows
// or with a name the tokens cannot hold (a space, a colon, non-ASCII) is
// one line of JSON instead.
func encodeSummary(sum *Summary) ([]byte, error) {
	if len(sum.Workflows) != 1 || !plain(sum.Workflows[0]) {
		return json.Marshal(sum)
	}
	b := append([]byte("="), sum.Workflows[0]...)
	for _, m := range sum.Marks {
		if !plain(m.ID) {
			return json.Marshal(sum)
		}
		b = append(b, ' ')
		b = append(b, m.ID...)
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(m.Flags), 10)
	}
	if sum.Unnotified {
		b = append(b, " ~u"...)
	}
	for _, fd := range sum.Findings {
		commit := fd.Commit
		if commit == "" {
			commit = "-"
		}
		fields := []string{fd.Artifact, fd.Agent, fd.Path, fd.Upstream, fd.OldBlob, fd.NewBlob, commit}
		b = append(b, " !"...)
		for _, f := range fields {
			if !plain(f) || f == "!" {
				return json.Marshal(sum)
			}
			b = append(b, ' ')
			b = append(b, f...)
		}
	}
	return b, nil
}

// plain reports whether s can stand in the compact form: printable ASCII
// without a space or a colon.
func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	return true
}

// decodeCompact reads encodeSummary's compact form (after the "=") of
// the ledger of issue; a malformed one gives no marks, which decode
// refuses.
func decodeCompact(c []byte, issue int) Summary {
	fields := strings.Fields(string(c))
	if len(fields) < 2 {
		return Summary{}
	}
	sum := Summary{Workflows: fields[:1:1], Marks: make([]Mark, 0, len(fields)-1)}
	for i := 1; i < len(fields); i++ {
		switch f := fields[i]; f {
		case "~u":
			sum.Unnotified = true
		case "!":
			if len(fields)-i-1 < 7 {
				return Summary{}
			}
			v := fields[i+1 : i+8]
			commit := v[6]
			if commit == "-" {
				commit = ""
			}
			sum.Findings = append(sum.Findings, Finding{Issue: issue, Artifact: v[0], Agent: v[1], Path: v[2],
				Upstream: v[3], OldBlob: v[4], NewBlob: v[5], Commit: commit, Diff: diffCommand(v[4], v[5])})
			i += 7
		default:
			id, flags, ok := strings.Cut(f, ":")
			n, err := strconv.ParseUint(flags, 10, 8)
			if !ok || id == "" || err != nil {
				return Summary{}
			}
			sum.Marks = append(sum.Marks, Mark{ID: id, Flags: MarkFlags(n)})
		}
	}
	return sum
}

// readIndex parses the index; anything unexpected gives an empty index
// (every ledger is read, nothing is lost).
func readIndex(path string) map[string]indexEntry {
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		return nil
	}
	idx, err := fileid.ParseIndex(data, indexHeader, func(name string, id fileid.ID, summary []byte) (indexEntry, error) {
		if _, ok := workspace.LedgerIssue(name); !ok || len(summary) == 0 || (summary[0] != '{' && summary[0] != '=') {
			return indexEntry{}, errBadIndex
		}
		return indexEntry{id: id, summary: summary}, nil
	})
	if err != nil {
		return nil
	}
	return idx
}

var errBadIndex = errors.New("bad artifact index line")

// indexLine is what an entry's index line holds: `name ino size mtime
// ctime summary`.
func indexLine(ie indexEntry) (fileid.ID, []byte) { return ie.id, ie.summary }

func formatIndex(idx map[string]indexEntry) []byte {
	return fileid.FormatIndex(indexHeader, idx, indexLine)
}

func sameIndex(a, b map[string]indexEntry) bool {
	return fileid.SameIndex(a, b, indexLine)
}
