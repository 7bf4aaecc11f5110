package audit

import (
	"bytes"
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
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, p := range files {
		data, err := readFile(p)
		if err != nil {
			return nil, err
		}
		for _, raw := range bytes.Split(data, []byte{'\n'}) {
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
	slices.SortStableFunc(out, func(a, b Entry) int {
		ta, _ := clock.Parse(a.Time)
		tb, _ := clock.Parse(b.Time)
		return ta.Compare(tb)
	})
	return out, nil
}
