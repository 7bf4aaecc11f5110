package memanchor

import (
	"bytes"
	"errors"
	"hash/fnv"
	"maps"
	"math"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

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
	// partial: seqSaved and raw hold only the issues a reader asked about
	// (loadStateOf); such a state is never saved.
	partial bool
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

// errPartial refuses to save a state read for a few issues.
var errPartial = errors.New("memanchor: a state read for some issues is not saved")

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
func (x *Index) loadState() *state { return x.loadStateOf(nil) }

// loadStateOf is loadState for a reader that asks about the issues only
// (sorted; nil: all): of the per-issue entries (each issue's last line,
// its saved verdict: two of each of the store's issues, 2,000 at 100K
// observations) only theirs are kept, the others are stepped over
// undecoded. A search asks about its hits' issues, twenty at most (issue
// 35: the whole decode was a fifth of the anchors' check).
func (x *Index) loadStateOf(only []int) *state {
	var data []byte
	var err error
	if only != nil {
		// Mapped: what is kept is copied out (the strings by the decoder,
		// the few verdicts here) before the mapping is released.
		var release func()
		if data, release, err = readMapped(x.statePath()); err == nil {
			defer release()
		}
	} else {
		data, err = atomicfile.ReadRegular(x.statePath(), atomicfile.StateLimit)
	}
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
	st.partial = only != nil
	st.decodeIssues(d, only)
	if d.err != nil {
		return newState()
	}
	return st
}

// decodeIssues decodes the per-issue entries of the state (each issue's
// last line, its saved verdict) into st, only those of the issues in
// only when it is not nil; a verdict kept is copied out of d when only is
// set (its reading is mapped).
func (st *state) decodeIssues(d *dec, only []int) {
	n := d.count()
	keep := newIssueFilter(only)
	st.seqSaved = make([]issueAt, 0, keep.capOf(n))
	for ; n > 0 && d.err == nil; n-- {
		a := issueAt{issue: int(d.i()), seq: d.i()}
		if keep.has(a.issue) {
			st.seqSaved = append(st.seqSaved, a)
		}
	}
	n = d.count()
	keep = newIssueFilter(only)
	st.raw = make([]rawVerdict, 0, keep.capOf(n))
	for ; n > 0 && d.err == nil; n-- {
		issue := int(d.i())
		size := d.count()
		if d.err != nil {
			return
		}
		if keep.has(issue) {
			raw := d.b[:size]
			if only != nil {
				raw = bytes.Clone(raw) // the mapping goes
			}
			st.raw = append(st.raw, rawVerdict{issue: issue, data: raw})
		}
		d.b = d.b[size:]
	}
}

// issueFilter tells the issues of a sorted list (nil: every issue) in a
// run of entries sorted by issue, as saveState writes them: a walk, with
// a search for an entry out of order (a state not of its making).
type issueFilter struct {
	only    []int
	j, prev int
}

func newIssueFilter(only []int) *issueFilter { return &issueFilter{only: only, prev: math.MinInt} }

func (f *issueFilter) has(issue int) bool {
	if f.only == nil {
		return true
	}
	if issue < f.prev {
		_, ok := slices.BinarySearch(f.only, issue)
		return ok
	}
	f.prev = issue
	for f.j < len(f.only) && f.only[f.j] < issue {
		f.j++
	}
	return f.j < len(f.only) && f.only[f.j] == issue
}

// capOf is the room n entries need once filtered.
func (f *issueFilter) capOf(n int) int {
	if f.only != nil {
		return min(n, len(f.only))
	}
	return n
}

func (x *Index) saveState(st *state) error {
	if st.partial {
		// A reader's reading: the other issues' entries were not kept.
		return errPartial
	}
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
	if err := x.mkdir(); err != nil {
		return err
	}
	return atomicfile.Write(x.statePath(), e.b, atomicfile.Options{NoSync: true})
}

func encodeFindings(e *enc, list []Finding) {
	e.u(uint64(len(list)))
	for _, f := range list {
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
