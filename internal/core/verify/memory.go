package verify

import (
	"encoding/json"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

const compactedFrom = memory.FieldCompactedFrom

// compaction is a summary's list of the observations it moved.
type compaction struct {
	path, id string
	from     json.RawMessage
}

func (c *checker) memoryFiles(store *memory.Store) {
	dir := c.ws.MemoryDir()
	live := newObsSet()
	var summaries []compaction
	c.parseAll(dir, "issue-", ".json", false, func(f parsedFile) {
		c.rep.Counts.IssueFiles++
		for _, k := range c.dedupe(f, live) {
			o := &f.obs[k].obs
			if raw, ok := extra(*o, compactedFrom); ok {
				summaries = append(summaries, compaction{path: f.path, id: o.ID, from: raw})
			}
			c.judgeRead(f.path, o)
		}
	})
	archived := c.archive(filepath.Join(dir, "archive"), live)
	c.live, c.archived = live, archived
	c.archivedHits(archived)
	for _, s := range summaries {
		var ids []string
		if json.Unmarshal(s.from, &ids) != nil {
			continue
		}
		for _, id := range ids {
			if !archived.has(id) {
				c.add(Problem{Code: CodeArchiveMissing, Severity: Error, Path: c.rel(s.path), ID: s.id, Offset: -1,
					Message: fmt.Sprintf("compaction says it moved %s to the archive, which does not hold it", id)})
			}
		}
	}
	if c.fsys == nil {
		c.manifest(store, live)
	}
}

// parsedFile is one issue or archive file, read and checked on its own.
type parsedFile struct {
	path string
	obs  []obsAt
}

// obsAt is an observation and where it starts in its file.
type obsAt struct {
	obs memory.Observation
	off int64
}

// parseAll reads and checks, several at a time, the files of dir named
// prefix+N+suffix, in name order, and hands each to fn in that order; what
// each reports is merged in that order. Files are parsed a window at a
// time, so a million observations are never all held parsed at once
// (fn keeps what it needs of them).
func (c *checker) parseAll(dir, prefix, suffix string, isArchive bool, fn func(parsedFile)) {
	jobs := c.files(dir, func(name string) (int, bool) { return issueFileNumber(name, prefix, suffix) })
	const window = 256
	for lo := 0; lo < len(jobs); lo += window {
		part := jobs[lo:min(lo+window, len(jobs))]
		out := make([]parsedFile, len(part))
		subs := make([]*checker, len(part))
		parallel(len(part), func(i int) {
			sub := c.sub()
			subs[i] = sub
			if data, ok := sub.read(part[i].path); ok {
				out[i] = parsedFile{path: part[i].path, obs: sub.observations(part[i].path, part[i].issue, data, isArchive)}
			}
		})
		for i := range part {
			c.merge(subs[i])
			if out[i].path != "" {
				fn(out[i])
			}
		}
	}
}

// observations checks one issue or archive file on its own: it parses,
// its issue numbers agree, each observation matches its hash.
func (c *checker) observations(path string, issue int, data []byte, isArchive bool) []obsAt {
	rel := c.rel(path)
	f, err := memory.ParseIssueFile(path, data)
	if err != nil {
		c.add(Problem{Code: CodeMemoryCorrupt, Severity: Error, Path: rel, Offset: jsonfile.CorruptOffset(data, err), Message: err.Error()})
		return nil
	}
	if f.IssueNumber != issue {
		c.add(Problem{Code: CodeMemoryIssue, Severity: Error, Path: rel, Offset: -1,
			Message: fmt.Sprintf("issueNumber is %d in the file of issue %d", f.IssueNumber, issue)})
	}
	out := make([]obsAt, 0, len(f.Observations))
	unhashed := 0
	var from int64
	for _, o := range f.Observations {
		off := idOffset(data, o.ID, from)
		if off >= 0 {
			from = off + 1
		}
		if isArchive {
			c.rep.Counts.Archived++
		} else {
			c.rep.Counts.Observations++
		}
		p := func(code string, format string, args ...any) {
			c.add(Problem{Code: code, Severity: Error, Path: rel, ID: o.ID, Offset: off, Message: fmt.Sprintf(format, args...)})
		}
		if o.IssueNumber != issue {
			p(CodeMemoryIssue, "the observation's issueNumber is %d in the file of issue %d", o.IssueNumber, issue)
		}
		if h, ok := o.StoredHash(); !ok {
			unhashed++
		} else if want := o.ComputeHash(); h != want {
			p(CodeObsHash, "the observation changed since it was stored (stored hash %s, content hashes to %s)", shorten.Hash(h), shorten.Hash(want))
		}
		// What follows compares rows and ids, never the text: dropping it
		// keeps 100K observations from staying in memory at once.
		o.Content = ""
		out = append(out, obsAt{obs: o, off: off})
	}
	if unhashed > 0 {
		c.rep.Counts.Unhashed += unhashed
		c.add(Problem{Code: CodeUnhashed, Severity: Info, Path: rel, Offset: -1,
			Message: fmt.Sprintf("%d observations carry no content hash (stored by another tool or before hashes); they cannot be checked for changes", unhashed)})
	}
	return out
}

// dedupe records f's observations in seen, reporting an id seen before
// (in this file or an earlier one), and returns the positions in f.obs of
// those it recorded.
func (c *checker) dedupe(f parsedFile, seen *obsSet) []int {
	var out []int
	for k := range f.obs {
		a := &f.obs[k]
		if first, dup := seen.lookup(a.obs.ID); dup {
			where := "earlier in this file"
			if p := seen.path(first); p != f.path {
				where = "in " + c.rel(p)
			}
			c.add(Problem{Code: CodeObsDuplicate, Severity: Error, Path: c.rel(f.path), ID: a.obs.ID, Offset: a.off,
				Message: fmt.Sprintf("observation %s is stored twice (also %s)", a.obs.ID, where)})
			continue
		}
		seen.add(f.path, &a.obs)
		out = append(out, k)
	}
	return out
}

// archive checks the archive files and returns the observations they hold.
func (c *checker) archive(dir string, live *obsSet) *obsSet {
	held := newObsSet()
	c.parseAll(dir, "issue-", "-archived.json", true, func(f parsedFile) {
		for _, k := range c.dedupe(f, held) {
			id := f.obs[k].obs.ID
			if l, ok := live.lookup(id); ok {
				c.add(Problem{Code: CodeArchiveLive, Severity: Info, Path: c.rel(live.path(l)), ID: id, Offset: -1,
					Message: "archived and still in its issue file (a compaction cut short; the next compaction finishes it)"})
			}
		}
	})
	return held
}

// manifest checks that the manifest lists every observation once, says
// what each says, and that its counts and token sums are the files'. The
// manifest is read one entry at a time (a million entries are 350 MB);
// one that does not read so is read whole for its precise complaint.
func (c *checker) manifest(store *memory.Store, live *obsSet) {
	path := store.ManifestPath()
	rel := c.rel(path)
	const rebuild = "rebuild the manifest from the issue files"
	if !store.ManifestBase() {
		// A file base (`[memory] manifest = "index"`, the default):
		// agentx keeps no manifest in line, and one there is the old
		// tools' (agentx removes its own): they search it, and miss what
		// agentx stored since their last write.
		if c.exists(path) {
			c.add(Problem{Code: CodeManifestNotKept, Severity: Warning, Path: rel, Offset: -1,
				Message: "manifest.json is not kept by agentx ([memory] manifest = \"index\", the default): the old tools that search it miss what agentx stored since their last write; `manifest = \"reference\"` in agentx.toml keeps it current, or delete it if they are no longer used"})
		}
		return
	}
	if !c.exists(path) {
		if live.len() > 0 {
			c.add(Problem{Code: CodeManifestMissing, Severity: Error, Path: rel, Offset: -1,
				Message: fmt.Sprintf("manifest.json is missing; %d observations are unlisted", live.len()), Repair: rebuild})
		}
		return
	}
	// The issues the delta holds (written since the manifest was) are
	// listed there, not in the manifest's rows: those rows are skipped,
	// and the files' observations of those issues are not missing.
	held := store.DeltaIssues()
	var rows manifestRows
	if !c.streamManifest(path, &rows, func(e *memory.Entry, off int64) { rows.check(c, rel, e, off, held, live) }) {
		data, ok := c.read(path)
		if !ok {
			return
		}
		m, err := memory.ParseManifest(path, data)
		if err != nil {
			c.add(Problem{Code: CodeManifestCorrupt, Severity: Error, Path: rel, Offset: jsonfile.CorruptOffset(data, err), Message: err.Error(), Repair: rebuild})
			return
		}
		rows = manifestRows{}
		var from int64
		for i := range m.Entries {
			e := &m.Entries[i]
			off := idOffset(data, e.ID, from)
			if off >= 0 {
				from = off + 1
			}
			rows.check(c, rel, e, off, held, live)
		}
		for _, p := range rows.problems {
			c.add(p)
		}
	}
	fileTokens, liveRows := 0, 0
	for issue, sum := range live.sums {
		if !held[issue] {
			liveRows += sum.n
			fileTokens += sum.tokens
		}
	}
	var unlisted []int32
	for i := range int32(live.len()) {
		if !held[live.issue(i)] && (int(i) >= len(rows.listed) || !rows.listed[i]) {
			unlisted = append(unlisted, i)
		}
	}
	ids := c.idsOf(live, unlisted)
	for _, i := range unlisted {
		c.add(Problem{Code: CodeManifestMissing, Severity: Error, Path: c.rel(live.path(i)), ID: ids[i], Offset: -1,
			Message: "stored in the issue file but not listed in manifest.json", Repair: rebuild})
	}
	if rows.n != liveRows || rows.tokens != fileTokens {
		c.add(Problem{Code: CodeManifestTotals, Severity: Error, Path: rel, Offset: -1, Repair: rebuild,
			Message: fmt.Sprintf("the manifest lists %d observations of %d tokens; the issue files hold %d of %d tokens",
				rows.n, rows.tokens, liveRows, fileTokens)})
	}
}

// manifestRows is what the manifest's rows said, as they were checked.
type manifestRows struct {
	// listed marks the live rows listed (by row); other are the ids
	// listed that no issue file holds.
	listed    []bool
	other     map[string]bool
	n, tokens int
	problems  []Problem
}

// check compares one manifest row with the issue files' observation.
func (r *manifestRows) check(c *checker, rel string, e *memory.Entry, off int64, held map[int]bool, live *obsSet) {
	if held[e.IssueNumber] {
		return
	}
	r.n++
	r.tokens += e.Tokens
	p := func(code string, format string, args ...any) {
		r.problems = append(r.problems, Problem{Code: code, Severity: Error, Path: rel, ID: e.ID, Offset: off,
			Message: fmt.Sprintf(format, args...), Repair: "rebuild the manifest from the issue files"})
	}
	i, ok := live.lookup(e.ID)
	if !ok {
		if r.other[e.ID] {
			p(CodeManifestDuplicate, "%s is listed twice", e.ID)
			return
		}
		if r.other == nil {
			r.other = map[string]bool{}
		}
		r.other[e.ID] = true
		p(CodeManifestOrphan, "%s is listed but no issue file holds it", e.ID)
		return
	}
	if r.listed == nil {
		r.listed = make([]bool, live.len())
	}
	if r.listed[i] {
		p(CodeManifestDuplicate, "%s is listed twice", e.ID)
		return
	}
	r.listed[i] = true
	if e.IssueNumber != live.issue(i) || manifestFP(e.Tokens, e.Timestamp, e.Agent, e.Category, e.Summary) != live.row(i).fp {
		p(CodeManifestDiffers, "the row of %s does not say what %s says", e.ID, c.rel(live.path(i)))
	}
}

// idsOf are the ids of rows of set, read again from their files: the rows
// keep only their keys. A row whose file no longer holds it (a writer
// replaced the file since) has none.
func (c *checker) idsOf(set *obsSet, rows []int32) map[int32]string {
	ids := make(map[int32]string, len(rows))
	byFile := map[int32]bool{}
	for _, i := range rows {
		byFile[set.row(i).file] = true
	}
	want := make(map[int32]bool, len(rows))
	for _, i := range rows {
		want[i] = true
	}
	for file := range byFile {
		data, ok := c.sub().read(set.paths[file])
		if !ok {
			continue
		}
		f, err := memory.ParseIssueFile(set.paths[file], data)
		if err != nil {
			continue
		}
		for _, o := range f.Observations {
			if i, ok := set.lookup(o.ID); ok && want[i] && set.row(i).file == file {
				ids[i] = o.ID
			}
		}
	}
	return ids
}

// streamManifest reads the manifest entry by entry into fn and reports
// its rows' problems; false when it cannot (not a regular file, a shape
// ParseManifest would refuse, a tree checked through c.fsys), having
// reported nothing: the caller then reads it whole.
func (c *checker) streamManifest(path string, rows *manifestRows, fn func(e *memory.Entry, off int64)) bool {
	if c.fsys != nil {
		return false
	}
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read-only
	if err := memory.EachManifestEntry(f, fn); err != nil {
		return false
	}
	for _, p := range rows.problems {
		c.add(p)
	}
	return true
}

// issueFileNumber reads N from prefix+N+suffix (N >= 0, decimal, no
// leading zeros).
func issueFileNumber(name, prefix, suffix string) (int, bool) {
	num, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	num, ok = strings.CutSuffix(num, suffix)
	if !ok || num == "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}

func extra(o memory.Observation, key string) (json.RawMessage, bool) {
	for _, f := range o.Extra {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}
