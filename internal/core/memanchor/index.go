package memanchor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Index applies the rule to the issues a read path shows, cheaply: it
// keeps two derived, local-only files in the memory directory.
//
//   - workspace.AnchorsBaseName: every observation's anchor as of some
//     point of the trail, in one section per issue behind a table, so one
//     issue's anchors cost one read;
//   - workspace.AnchorsStateName: how far the trail was read (each file's
//     size, the last line's hash), the anchors of the lines read since
//     the base (the tail, merged into the base past TailLimit), the last
//     line that changed each issue's anchors, and the verdict of each
//     issue file checked (its size, times and inode; the anchors it was
//     judged against).
//
// Each call reads the state, checks that the trail still holds the line
// it read last where it read it (else both files are made again from the
// whole trail: the cache is never believed over the trail), folds the
// lines appended since, and judges again only the issue files that
// changed or whose anchors did. At 100K observations that is one small
// file, one stat of the trail and one of each issue shown.
type Index struct {
	// StateDir is `.agentx/state/` (the trail), MemDir `.agentx/memory/`.
	StateDir, MemDir string
	// TailLimit is how many bytes of trail lines are kept in the state
	// before they are merged into the base (0: DefaultTailLimit).
	TailLimit int64
	// Write lets Check save what it brought up to date. Only commands
	// that write anyway set it (`hook start`, a recall that counts, the
	// clarify commands, `memory rebuild`): readers (issue 14) work from
	// the files as they are, in memory, and write only when no usable
	// index exists and the trail has lines: then the index made from the
	// whole trail is saved, once, rather than made again by every call.
	Write bool
	// Known, when set, are issue files' stat data a caller took as it
	// read them (memory.Store.SearchFiles): a file's verdict is matched
	// against them instead of an lstat of the file. Taken moments before,
	// they describe the content the caller showed.
	Known memory.FileStats
}

// DefaultTailLimit keeps the state small (a read path decodes it every
// time) while a merge, which rewrites the base, stays rare.
const DefaultTailLimit = 64 << 10

// For is the index of a workspace.
func For(ws workspace.Workspace) *Index {
	return &Index{StateDir: ws.StateDir(), MemDir: ws.MemoryDir()}
}

// Verdict is what the trail and the content hashes make of one issue's
// file: the observations not to be believed, and those the trail stored
// that the file lacks.
type Verdict struct {
	Bad     []Finding
	Deleted []Finding
}

// Report holds the verdicts of the issues asked about.
type Report struct {
	bad     map[string]Finding
	Deleted []Finding
	// BaselineID and BaselineTree name the checkpoint verify compares the
	// ledgers with (View.Baseline; "" for none).
	BaselineID, BaselineTree string
}

// Of is the finding against observation id, if any.
func (r *Report) Of(id string) (Finding, bool) {
	if r == nil {
		return Finding{}, false
	}
	f, ok := r.bad[id]
	return f, ok
}

// Mark is the mark of observation id for a read path (nil: none).
func (r *Report) Mark(id string) *memory.Mark {
	f, ok := r.Of(id)
	if !ok {
		return nil
	}
	return &memory.Mark{Code: f.Code, Reason: f.Message}
}

// Bad counts the observations found wanting.
func (r *Report) Bad() int {
	if r == nil {
		return 0
	}
	return len(r.bad)
}

// dir holds the two files: the store's local-only pending directory, not
// the memory directory itself. A read path (`hook start`) writes them, and
// a rename into the memory directory would change the stat the search's
// freshness gate keys on (memory/fresh.go), so that the next search and
// hook start swept every issue file again (20,000 stats at 1M
// observations).
func (x *Index) dir() string       { return filepath.Join(x.MemDir, workspace.MemoryPendingName) }
func (x *Index) statePath() string { return filepath.Join(x.dir(), workspace.AnchorsStateName) }
func (x *Index) basePath() string  { return filepath.Join(x.dir(), workspace.AnchorsBaseName) }

// mkdir makes dir for a write and removes the files of the old layout
// (in the memory directory itself): derived, they are made again here.
func (x *Index) mkdir() error {
	if err := os.MkdirAll(x.dir(), 0o755); err != nil {
		return err
	}
	for _, name := range []string{workspace.AnchorsBaseName, workspace.AnchorsStateName} {
		_ = os.Remove(filepath.Join(x.MemDir, name)) // absent but once
	}
	return nil
}

func (x *Index) tailLimit() int64 {
	if x.TailLimit > 0 {
		return x.TailLimit
	}
	return DefaultTailLimit
}

// Check judges the issue files of issues against the trail.
func (x *Index) Check(ctx context.Context, issues []int) (*Report, error) {
	issues = slices.Compact(slices.Sorted(slices.Values(issues)))
	var st *state
	if x.Write {
		st = x.loadState()
	} else {
		// A reader saves nothing (unless it made the base, from a new
		// state): the issues it asks about are all it needs of the saved
		// ones.
		st = x.loadStateOf(issues)
	}
	dirty, err := x.catchUp(st)
	if err != nil {
		return nil, err
	}
	rep := &Report{bad: map[string]Finding{}}
	if id, tree, ok := st.view.Baseline(); ok {
		rep.BaselineID, rep.BaselineTree = id, tree
	}
	var base *baseReader
	defer func() { base.close() }()
	recheck := true
	// The issues asked about are judged whatever the context says (a
	// read path shows them; a hook's deadline must not let them through
	// unjudged): they are the few a call shows.
	for _, n := range issues {
		sv, changed, err := x.verdict(st, n, &base)
		if err != nil {
			return nil, err
		}
		if len(sv.v.Bad) > 0 && changed && recheck {
			// A writer appends its line just after its file: read the
			// trail's tail once more before believing a finding.
			recheck = false
			if more, err := x.catchUp(st); err == nil && more {
				dirty = true
				base.close()
				base = nil
				if sv, _, err = x.verdict(st, n, &base); err != nil {
					return nil, err
				}
			}
		}
		dirty = dirty || changed
		for _, f := range sv.v.Bad {
			rep.bad[f.ID] = f
		}
		rep.Deleted = append(rep.Deleted, sv.v.Deleted...)
	}
	if st.built {
		// Made from the whole trail (a first run, an upgrade): every issue
		// file judged now, once, so the readers that follow (which save
		// nothing) find each verdict made.
		if err := x.judgeAll(ctx, st); err != nil {
			return nil, err
		}
	}
	if dirty && (x.Write || st.built) {
		// Derived and local: a read-only workspace only loses the saving.
		_ = x.saveState(st)
	}
	return rep, nil
}

// Refresh judges every issue file of the store and saves the verdicts (a
// writer after a rebuild, or a bulk import): the readers that follow
// find them current and read no issue file.
func (x *Index) Refresh(ctx context.Context) error {
	issues, err := x.issueFiles()
	if err != nil {
		return err
	}
	w := *x
	w.Write = true
	_, err = w.Check(ctx, issues)
	return err
}

// issueFiles are the issues of the store's issue files.
func (x *Index) issueFiles() ([]int, error) {
	ents, err := os.ReadDir(x.MemDir)
	if err != nil {
		return nil, err
	}
	var issues []int
	for _, e := range ents {
		if n, ok := memory.IssueFileNumber(e.Name()); ok {
			issues = append(issues, n)
		}
	}
	return issues, nil
}

// judgeAll makes the verdict of every issue file st has none for, until
// ctx ends (a hook's deadline: the others are judged when shown).
func (x *Index) judgeAll(ctx context.Context, st *state) error {
	issues, err := x.issueFiles()
	if err != nil {
		return nil //nolint:nilerr // no directory: nothing to judge
	}
	var base *baseReader
	defer func() { base.close() }()
	for _, n := range issues {
		if ctx.Err() != nil {
			return nil // the rest another time: what was asked is judged
		}
		if _, _, err := x.verdict(st, n, &base); err != nil {
			return err
		}
	}
	return nil
}

// catchUp brings st in line with the trail: the lines appended since
// folded in, or everything made again when the trail is not the one st
// read; more says st changed.
func (x *Index) catchUp(st *state) (more bool, err error) {
	before := st.pos.seq
	summary := st.view.summary()
	read, err := readOn(x.StateDir, &st.pos, st.view, func(issue int, seq int64) { st.issueSeq[issue] = seq })
	if errors.Is(err, errRewritten) {
		return true, x.rebuild(st)
	}
	if err != nil {
		return false, fmt.Errorf("read the audit trail: %w", err)
	}
	if read == 0 && st.pos.seq == before {
		return false, nil
	}
	st.tailBytes += read
	if st.view.summary() != summary {
		st.dropVerdicts() // a restore or a cut line: every verdict may change
	}
	if st.tailBytes > x.tailLimit() && x.Write {
		if err := x.merge(st); err != nil {
			return true, err
		}
	}
	return true, nil
}

// rebuild reads the whole trail into a new base.
func (x *Index) rebuild(st *state) error {
	*st = *newState()
	all := NewView()
	if _, err := readOn(x.StateDir, &st.pos, all, func(issue int, seq int64) { st.issueSeq[issue] = seq }); err != nil {
		return fmt.Errorf("read the audit trail: %w", err)
	}
	st.view = all
	if !x.Write && all.Lines == 0 {
		// Nothing to keep: a reader of a workspace without a trail (the
		// old tools') writes nothing.
		st.baseGen, st.inMemory = 0, true
		return nil
	}
	// The one write a reader makes: the index made from the whole trail
	// (none was usable), which would otherwise cost every later call the
	// same reading (0.5 s at 100K observations).
	gen, err := x.writeBase(all.Obs)
	if err != nil {
		// A read-only workspace: kept in memory for this call.
		st.baseGen, st.inMemory = 0, true
		return nil //nolint:nilerr // derived: the call goes on without it
	}
	st.baseGen, st.built = gen, true
	st.view.Obs = map[string]Anchor{}
	return nil
}

// merge writes the base again with the tail's anchors in it.
func (x *Index) merge(st *state) error {
	b, err := x.openBase(st)
	if err != nil {
		return x.rebuild(st)
	}
	defer b.close()
	// Only the sections the tail touches are decoded and made again; the
	// others are copied as they are (at 100K observations, decoding and
	// encoding every anchor cost 1.4 s).
	touched := map[int]map[string]Anchor{}
	for id, a := range st.view.Obs {
		m := touched[a.Issue]
		if m == nil {
			m = map[string]Anchor{}
			if err := b.section(a.Issue, m); err != nil {
				return x.rebuild(st)
			}
			touched[a.Issue] = m
		}
		if old, ok := m[id]; !ok || !old.At.After(a.At) {
			m[id] = a
		}
	}
	body, err := b.bodyBytes()
	if err != nil {
		return x.rebuild(st)
	}
	sections := make(map[int][]byte, len(b.table)+len(touched))
	for n, at := range b.table {
		if _, ok := touched[n]; ok {
			continue
		}
		if at[0] < 0 || at[0]+at[1] > int64(len(body)) {
			return x.rebuild(st)
		}
		sections[n] = body[at[0] : at[0]+at[1]]
	}
	for n, m := range touched {
		sections[n] = encodeSection(m)
	}
	gen, err := x.writeSections(sections)
	if err != nil {
		return err
	}
	st.baseGen, st.tailBytes = gen, 0
	st.view.Obs = map[string]Anchor{}
	return nil
}

// verdict is issue n's verdict, judged again when its file or anchors
// changed since the one kept (changed true).
func (x *Index) verdict(st *state, n int, base **baseReader) (*stored, bool, error) {
	path := filepath.Join(x.MemDir, fmt.Sprintf("issue-%d.json", n))
	stamp := x.stampOf(n, path)
	gen := st.view.summary()
	if sv := st.verdictOf(n); sv != nil && sv.stamp == stamp && sv.seq == st.seqOf(n) && sv.gen == gen {
		return sv, false, nil
	}
	var obs []memory.Observation
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return &stored{}, false, nil // unreadable: the store's reader says so
	default:
		f, err := memory.ParseIssueFile(path, data)
		if err != nil {
			return &stored{}, false, nil // corrupt: shown by no one
		}
		obs = f.Observations
	}
	if *base == nil {
		b, err := x.openBase(st)
		if err != nil {
			// Another process made a newer base since st was read: its
			// state goes with it (read again, brought up to date).
			if fresh := x.loadState(); fresh.baseGen != st.baseGen && fresh.baseGen != 0 {
				if _, cerr := x.catchUp(fresh); cerr == nil {
					if b2, oerr := x.openBase(fresh); oerr == nil {
						*st, b, err = *fresh, b2, nil
						gen = st.view.summary()
					}
				}
			}
		}
		if err != nil {
			// Gone: made again from the trail.
			if err := x.rebuild(st); err != nil {
				return nil, false, err
			}
			if b, err = x.openBase(st); err != nil {
				return nil, false, err
			}
			gen = st.view.summary()
		}
		*base = b
	}
	v, err := x.judge(st, *base, n, obs)
	if err != nil {
		return nil, false, err
	}
	sv := &stored{stamp: stamp, seq: st.seqOf(n), gen: gen, v: v}
	st.verdicts[n] = sv
	return sv, true, nil
}

// stampOf is issue n's file's stamp: from Known when the caller took it,
// else an lstat of path.
func (x *Index) stampOf(n int, path string) stamp {
	if st, ok := x.Known[n]; ok && st.OK {
		return stamp{size: st.Size, mod: st.Mod, change: st.Change, ino: st.Ino, exists: true}
	}
	return stampOf(path)
}

// openBase opens the base st describes (none when st holds every anchor).
func (x *Index) openBase(st *state) (*baseReader, error) {
	if st.inMemory {
		return &baseReader{}, nil
	}
	return openBase(x.basePath(), st.baseGen)
}
