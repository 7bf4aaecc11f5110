package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// Filter selects entries for History. Zero fields select everything.
type Filter struct {
	// ID selects entries that touched a record or observation.
	ID string
	// Issue selects entries of an issue.
	Issue int
	// Since selects entries at or after a time.
	Since time.Time
}

func (f Filter) match(e *Entry) bool {
	if f.Issue != 0 && e.Issue != f.Issue {
		return false
	}
	if f.ID != "" && !slices.Contains(e.IDs, f.ID) {
		if _, ok := e.Before[f.ID]; !ok {
			if _, ok := e.After[f.ID]; !ok {
				return false
			}
		}
	}
	if !f.Since.IsZero() {
		t, err := clock.Parse(e.Time)
		if err != nil || t.Before(f.Since) {
			return false
		}
	}
	return true
}

// History returns the entries of the trail in dir that f selects, oldest
// first (by time; lines of one time keep their file order). Lines that do
// not parse are skipped: Check reports them.
func History(dir string, f Filter) ([]Entry, error) {
	out, _, err := CheckedHistory(dir, f)
	return out, err
}

// CheckedHistory is History and, from the same reading of the files,
// what Check finds wrong with the trail (no anchors): a history is read
// to be believed, and the chain says whether it can be.
func CheckedHistory(dir string, f Filter) ([]Entry, []Finding, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, nil, err
	}
	ld := load(files, readFile)
	out, err := history(ld, f)
	findings, _ := checkLoaded(ld, nil)
	sortByTime(out, func(e *Entry) string { return e.Time })
	return out, findings, err
}

// Each hands fn each entry of the trail in dir that History would return
// (every line that decodes), in the chain's order rather than by time,
// one file held at a time: for a reader that needs the whole trail but
// not all of it decoded at once (verify's second reading, issue 35). e is
// fn's to keep. A file that cannot be read is the error, as for History.
func Each(dir string, fn func(e *Entry)) error {
	files, err := Files(dir)
	if err != nil {
		return err
	}
	for _, p := range files {
		data, err := readFile(p)
		if err != nil {
			return err
		}
		for _, raw := range bytes.Split(data, []byte{'\n'}) {
			if len(raw) == 0 {
				continue
			}
			if e, err := Decode(raw); err == nil {
				fn(&e)
			}
		}
	}
	return nil
}

// HistoryFS is History of the trail in directory dir of fsys (a commit of
// the state branch).
func HistoryFS(fsys fs.FS, dir string, f Filter) ([]Entry, error) {
	files, err := filesFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	out, err := history(load(files, readerFS(fsys)), f)
	sortByTime(out, func(e *Entry) string { return e.Time })
	return out, err
}

// ActionTrail names the Action's trail (state/audit*.jsonl of the state
// branch) in a TrailEntry; a clone's trail is named by its writer id.
const ActionTrail = "action"

// TrailEntry is an entry of the state branch and the trail it is in.
type TrailEntry struct {
	// Trail is ActionTrail or the writer id of the clone that wrote it.
	Trail string `json:"trail,omitempty"`
	Entry
}

// BranchTrail is one trail of the state branch: its name (ActionTrail or
// a writer id) and the directory its files are in.
type BranchTrail struct{ Name, Dir string }

// BranchTrails lists the trails of fsys (a commit of the state branch):
// the Action's in state/, then each clone's in WritersDir/ID/ by id.
func BranchTrails(fsys fs.FS) ([]BranchTrail, error) {
	trails := []BranchTrail{{Name: ActionTrail, Dir: path.Dir(WritersDir)}}
	writers, err := fs.ReadDir(fsys, WritersDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list %s: %w", WritersDir, err)
	}
	for _, w := range writers {
		if w.IsDir() {
			trails = append(trails, BranchTrail{Name: w.Name(), Dir: path.Join(WritersDir, w.Name())})
		}
	}
	return trails, nil
}

// BranchHistory is the history of every trail in fsys (a commit of the
// state branch: the Action's in state/, each clone's in WritersDir/ID/),
// merged oldest first by time (lines of one time: the Action's first,
// then the writers' by id, each in its file order).
func BranchHistory(fsys fs.FS, f Filter) ([]TrailEntry, error) {
	out, _, err := CheckedBranchHistory(fsys, f)
	return out, err
}

// CheckedBranchHistory is BranchHistory and what checking each trail's
// chain on its own finds, from the same reading of the files.
func CheckedBranchHistory(fsys fs.FS, f Filter) ([]TrailEntry, []Finding, error) {
	trails, err := BranchTrails(fsys)
	if err != nil {
		return nil, nil, err
	}
	var out []TrailEntry
	var findings []Finding
	for _, t := range trails {
		files, err := filesFS(fsys, t.Dir)
		if err != nil {
			return nil, nil, err
		}
		ld := load(files, readerFS(fsys))
		entries, err := history(ld, f)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range entries {
			out = append(out, TrailEntry{Trail: t.Name, Entry: e})
		}
		found, _ := checkLoaded(ld, nil)
		findings = append(findings, found...)
	}
	sortByTime(out, func(e *TrailEntry) string { return e.Time })
	return out, findings, nil
}

// history returns the entries f selects of files (read, in the chain's
// order), in file order; a file that could not be read is the error.
func history(files []loaded, f Filter) ([]Entry, error) {
	var out []Entry
	for _, lf := range files {
		if lf.err != nil {
			return nil, lf.err
		}
		for _, raw := range bytes.Split(lf.data, []byte{'\n'}) {
			if len(raw) == 0 || (f.ID != "" && !bytes.Contains(raw, []byte(strconv.Quote(f.ID)))) {
				continue
			}
			e, err := Decode(raw)
			if err != nil || !f.match(&e) {
				continue
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// sortByTime sorts s oldest first by the time at returns, keeping the
// order of entries of one time.
func sortByTime[E any](s []E, at func(*E) string) {
	slices.SortStableFunc(s, func(a, b E) int {
		ta, _ := clock.Parse(at(&a))
		tb, _ := clock.Parse(at(&b))
		return ta.Compare(tb)
	})
}
