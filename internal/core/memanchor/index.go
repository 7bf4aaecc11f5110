package memanchor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
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

// state is the small file's content.
type state struct {
	baseGen uint64
	pos     position
	// view holds the tail's anchors and the whole trail's summary
	// (restore, cut, lines, first and last times).
	view      *View
	tailBytes int64
	// issueSeq is the last line that changed each issue's anchors: the
	// saved ones (sorted, decoded once, no map) and those set since.
	seqSaved []issueAt
	issueSeq map[int]int64
	// verdicts are the verdicts decoded or made by this call; the others
	// stay as saved (raw, sorted by issue) until asked for.
	raw      []rawVerdict
	verdicts map[int]*stored
	// inMemory: the view holds every anchor and no base is read (a
	// reader's rebuild, never saved).
	inMemory bool
	// built: this call made the base from the whole trail; its state is
	// saved, by a reader too.
	built bool
}

type issueAt struct {
	issue int
	seq   int64
}

type rawVerdict struct {
	issue int
	data  []byte
}

// seqOf is the last line that changed issue's anchors.
func (st *state) seqOf(issue int) int64 {
	if seq, ok := st.issueSeq[issue]; ok {
		return seq
	}
	i, ok := slices.BinarySearchFunc(st.seqSaved, issue, func(a issueAt, n int) int { return a.issue - n })
	if ok {
		return st.seqSaved[i].seq
	}
	return 0
}

// verdictOf is issue's verdict as saved or made (nil: none).
func (st *state) verdictOf(issue int) *stored {
	if sv, ok := st.verdicts[issue]; ok {
		return sv
	}
	i, ok := slices.BinarySearchFunc(st.raw, issue, func(r rawVerdict, n int) int { return r.issue - n })
	if !ok {
		return nil
	}
	d := &dec{b: st.raw[i].data}
	sv := &stored{}
	sv.stamp.decode(d)
	sv.seq, sv.gen = d.i(), d.u()
	sv.v.Bad = decodeFindings(d)
	sv.v.Deleted = decodeFindings(d)
	if d.err != nil {
		return nil
	}
	st.verdicts[issue] = sv
	return sv
}

// dropVerdicts forgets every verdict (a restore or a cut line changed
// what softens the rule, or the base was made again).
func (st *state) dropVerdicts() {
	st.raw, st.verdicts = nil, map[int]*stored{}
}

// stored is one issue file's verdict as the state keeps it.
type stored struct {
	stamp stamp
	seq   int64  // issueSeq when judged
	gen   uint64 // the view's summary when judged
	v     Verdict
}

// The magics name the format and the rule: a state judged under an older
// rule is not believed (its verdicts are made again).
const (
	stateMagic = "AXANS003"
	baseMagic  = "AXANB001"
)

func (x *Index) statePath() string { return filepath.Join(x.MemDir, workspace.AnchorsStateName) }
func (x *Index) basePath() string  { return filepath.Join(x.MemDir, workspace.AnchorsBaseName) }

func (x *Index) tailLimit() int64 {
	if x.TailLimit > 0 {
		return x.TailLimit
	}
	return DefaultTailLimit
}

// Check judges the issue files of issues against the trail.
func (x *Index) Check(ctx context.Context, issues []int) (*Report, error) {
	st := x.loadState()
	dirty, err := x.catchUp(st)
	if err != nil {
		return nil, err
	}
	rep := &Report{bad: map[string]Finding{}}
	if id, tree, ok := st.view.Baseline(); ok {
		rep.BaselineID, rep.BaselineTree = id, tree
	}
	slices.Sort(issues)
	issues = slices.Compact(issues)
	var base *baseReader
	defer func() { base.close() }()
	recheck := true
	for _, n := range issues {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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

// judgeAll makes the verdict of every issue file st has none for.
func (x *Index) judgeAll(ctx context.Context, st *state) error {
	issues, err := x.issueFiles()
	if err != nil {
		return nil //nolint:nilerr // no directory: nothing to judge
	}
	var base *baseReader
	defer func() { base.close() }()
	for _, n := range issues {
		if err := ctx.Err(); err != nil {
			return err
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
	all, err := b.all()
	b.close()
	if err != nil {
		return x.rebuild(st)
	}
	for id, a := range st.view.Obs {
		if old, ok := all[id]; !ok || !old.At.After(a.At) {
			all[id] = a
		}
	}
	gen, err := x.writeBase(all)
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
	stamp := stampOf(path)
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
			// Gone or not ours (another process made a newer one): made
			// again from the trail.
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

// openBase opens the base st describes (none when st holds every anchor).
func (x *Index) openBase(st *state) (*baseReader, error) {
	if st.inMemory {
		return &baseReader{}, nil
	}
	return openBase(x.basePath(), st.baseGen)
}

// judge applies the rule to the observations of issue n's file.
func (x *Index) judge(st *state, base *baseReader, n int, obs []memory.Observation) (Verdict, error) {
	view := *st.view
	view.Obs = map[string]Anchor{}
	sections := map[int]bool{}
	load := func(issue int) error {
		if sections[issue] {
			return nil
		}
		sections[issue] = true
		if err := base.section(issue, view.Obs); err != nil {
			return err
		}
		for id, a := range st.view.Obs {
			if a.Issue != issue {
				continue
			}
			if old, ok := view.Obs[id]; !ok || !old.At.After(a.At) {
				view.Obs[id] = a
			}
		}
		return nil
	}
	if err := load(n); err != nil {
		return Verdict{}, err
	}
	var v Verdict
	present := make(map[string]bool, len(obs))
	var archive map[string]bool
	archived := func(id string) bool {
		if archive == nil {
			archive = x.archived(n)
		}
		return archive[id]
	}
	for i := range obs {
		o := &obs[i]
		present[o.ID] = true
		if k := IssueKey(o.ID, n); k != n {
			if err := load(k); err != nil {
				return Verdict{}, err
			}
		}
		if o.Integrity() == contenthash.Tampered {
			v.Bad = append(v.Bad, Finding{ID: o.ID, Code: CodeHash,
				Message: "its text changed since it was stored (the content hash no longer matches)"})
			continue
		}
		f, ok := view.Judge(o, false)
		if a, known := view.Obs[o.ID]; ok && known && a.Hash == "" && archived(o.ID) {
			continue // archived and still live: a move cut short (ARCHIVE_STILL_LIVE)
		}
		if ok && !f.Soft {
			v.Bad = append(v.Bad, f)
		}
	}
	ids := make([]string, 0, len(view.Obs))
	for id, a := range view.Obs {
		if a.Issue == n && a.Hash != "" && !present[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if archived(id) {
			continue
		}
		if f, ok := view.Deleted(id, view.Obs[id]); ok && !f.Soft {
			v.Deleted = append(v.Deleted, f)
		}
	}
	return v, nil
}

// archived are the ids of issue n's archive file.
func (x *Index) archived(n int) map[string]bool {
	out := map[string]bool{}
	path := filepath.Join(x.MemDir, "archive", fmt.Sprintf("issue-%d-archived.json", n))
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		return out
	}
	f, err := memory.ParseIssueFile(path, data)
	if err != nil {
		return out
	}
	for _, o := range f.Observations {
		out[o.ID] = true
	}
	return out
}

// summary is a fingerprint of what softens the rule and of the trail's
// start: when it changes, every verdict may.
func (v *View) summary() uint64 {
	h := fnv.New64a()
	var e enc
	e.bool(v.HasRestore)
	e.key(v.Restore)
	e.bool(v.Cut)
	e.s(v.First)
	e.bool(v.Lines == 0)
	_, _ = h.Write(e.b)
	return h.Sum64()
}

func newState() *state {
	return &state{view: NewView(), issueSeq: map[int]int64{}, verdicts: map[int]*stored{}}
}

// loadState reads the state; a missing or malformed one is empty (the
// base is then made again).
func (x *Index) loadState() *state {
	data, err := atomicfile.ReadRegular(x.statePath(), atomicfile.StateLimit)
	if err != nil || len(data) < len(stateMagic) || string(data[:len(stateMagic)]) != stateMagic {
		return newState()
	}
	d := &dec{b: data[len(stateMagic):]}
	st := newState()
	st.baseGen = d.u()
	st.pos.decode(d)
	v := st.view
	v.HasRestore, v.Restore, v.Cut = d.bool(), d.key(), d.bool()
	v.Lines, v.First, v.Last = d.i(), d.s(), d.s()
	v.LastCreate, v.LastCreateID, v.RestoreTarget = d.key(), d.s(), d.s()
	for n := d.count(); n > 0 && d.err == nil; n-- {
		id := d.s()
		v.Checkpoints[id] = d.s()
	}
	st.tailBytes = d.i()
	for n := d.count(); n > 0 && d.err == nil; n-- {
		id := d.s()
		v.Obs[id] = Anchor{Hash: d.s(), At: d.key(), Issue: int(d.i())}
	}
	n := d.count()
	st.seqSaved = make([]issueAt, 0, n)
	for ; n > 0 && d.err == nil; n-- {
		st.seqSaved = append(st.seqSaved, issueAt{issue: int(d.i()), seq: d.i()})
	}
	n = d.count()
	st.raw = make([]rawVerdict, 0, n)
	for ; n > 0 && d.err == nil; n-- {
		issue := int(d.i())
		size := d.count()
		if d.err != nil {
			break
		}
		st.raw = append(st.raw, rawVerdict{issue: issue, data: d.b[:size]})
		d.b = d.b[size:]
	}
	if d.err != nil {
		return newState()
	}
	return st
}

func (x *Index) saveState(st *state) error {
	e := &enc{b: append(make([]byte, 0, 4096), stateMagic...)}
	e.u(st.baseGen)
	st.pos.encode(e)
	v := st.view
	e.bool(v.HasRestore)
	e.key(v.Restore)
	e.bool(v.Cut)
	e.i(v.Lines)
	e.s(v.First)
	e.s(v.Last)
	e.key(v.LastCreate)
	e.s(v.LastCreateID)
	e.s(v.RestoreTarget)
	e.u(uint64(len(v.Checkpoints)))
	for _, id := range slices.Sorted(maps.Keys(v.Checkpoints)) {
		e.s(id)
		e.s(v.Checkpoints[id])
	}
	e.i(st.tailBytes)
	e.u(uint64(len(v.Obs)))
	for id, a := range v.Obs {
		e.s(id)
		e.s(a.Hash)
		e.key(a.At)
		e.i(int64(a.Issue))
	}
	seqs := map[int]int64{}
	for _, a := range st.seqSaved {
		seqs[a.issue] = a.seq
	}
	maps.Copy(seqs, st.issueSeq)
	issues := slices.Sorted(maps.Keys(seqs))
	e.u(uint64(len(issues)))
	for _, n := range issues {
		e.i(int64(n))
		e.i(seqs[n])
	}
	raws := map[int][]byte{}
	for _, r := range st.raw {
		raws[r.issue] = r.data
	}
	for n, sv := range st.verdicts {
		var one enc
		sv.stamp.encode(&one)
		one.i(sv.seq)
		one.u(sv.gen)
		encodeFindings(&one, sv.v.Bad)
		encodeFindings(&one, sv.v.Deleted)
		raws[n] = one.b
	}
	issues = slices.Sorted(maps.Keys(raws))
	e.u(uint64(len(issues)))
	for _, n := range issues {
		e.i(int64(n))
		e.u(uint64(len(raws[n])))
		e.b = append(e.b, raws[n]...)
	}
	return atomicfile.Write(x.statePath(), e.b, atomicfile.Options{NoSync: true})
}

func encodeFindings(e *enc, fs []Finding) {
	e.u(uint64(len(fs)))
	for _, f := range fs {
		e.s(f.ID)
		e.s(f.Code)
		e.s(f.Message)
	}
}

func decodeFindings(d *dec) []Finding {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]Finding, 0, n)
	for range n {
		out = append(out, Finding{ID: d.s(), Code: d.s(), Message: d.s()})
	}
	return out
}

// writeBase writes anchors as the base, under a new generation.
func (x *Index) writeBase(anchors map[string]Anchor) (uint64, error) {
	byIssue := map[int][]string{}
	for id, a := range anchors {
		byIssue[a.Issue] = append(byIssue[a.Issue], id)
	}
	issues := make([]int, 0, len(byIssue))
	for n := range byIssue {
		issues = append(issues, n)
	}
	sort.Ints(issues)
	var body enc
	var table enc
	table.u(uint64(len(issues)))
	for _, n := range issues {
		off := len(body.b)
		ids := byIssue[n]
		body.u(uint64(len(ids)))
		for _, id := range ids {
			a := anchors[id]
			body.s(id)
			body.s(a.Hash)
			body.key(a.At)
		}
		table.i(int64(n))
		table.u(uint64(off))
		table.u(uint64(len(body.b) - off))
	}
	var genb [8]byte
	if _, err := randRead(genb[:]); err != nil {
		return 0, err
	}
	gen := binary.LittleEndian.Uint64(genb[:])
	out := make([]byte, 0, 20+len(table.b)+len(body.b))
	out = append(out, baseMagic...)
	out = binary.LittleEndian.AppendUint64(out, gen)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(table.b)))
	out = append(out, table.b...)
	out = append(out, body.b...)
	if err := os.MkdirAll(x.MemDir, 0o755); err != nil {
		return 0, err
	}
	if err := atomicfile.Write(x.basePath(), out, atomicfile.Options{NoSync: true}); err != nil {
		return 0, err
	}
	return gen, nil
}
