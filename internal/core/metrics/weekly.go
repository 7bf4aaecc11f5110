package metrics

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// MinFoldGap is how long the current week's file is left alone after a
// fold: every file written is a state-branch commit at the push that
// follows, and an idle session (nothing else to push) should not make one.
// What waits stays in the event log for the next fold.
const MinFoldGap = time.Hour

// UpdateWeeks folds the metrics lines of evs into writer's files in dir
// (`.agentx/state/metrics`) for now's ISO week (unless it was folded less
// than MinFoldGap before now) and the one before (the last session of a
// week is folded by the next one), each under its lock: only the lines
// after the file's Through are added, so a fold is never counted twice,
// and a line the bounded event log dropped before it was folded is the one
// thing lost. It returns the paths written.
func UpdateWeeks(ctx context.Context, locks *lock.Locker, dir, writer string, evs []events.Event, now time.Time) ([]string, error) {
	var written []string
	this := WeekStart(now)
	for _, start := range []time.Time{this.AddDate(0, 0, -7), this} {
		week := ISOWeek(start)
		p := filepath.Join(dir, FileName(writer, week))
		err := atomicfile.WithLock(ctx, locks, p, func(lk *lock.Lock) error {
			w := &Week{Writer: writer, Week: week}
			data, err := atomicfile.ReadState(p)
			switch {
			case err == nil:
				if old, perr := ParseWeek(data); perr == nil && old.Writer == writer && old.Week == week {
					w = old
				}
			case !errors.Is(err, fs.ErrNotExist):
				return err
			}
			if t, err := clock.Parse(w.Through); err == nil && start == this && now.Sub(t) < MinFoldGap {
				return nil
			}
			if !w.Fold(evs, start) {
				return nil
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			written = append(written, p)
			return atomicfile.Write(p, w.Encode(), atomicfile.Options{Commit: lk.Commit})
		})
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// Recorder writes the metrics lines of hooks and commands to the event
// log and, at a session's end in GitHub Mode, folds the week's lines into
// this machine's weekly file, which the push that follows carries to the
// state branch. What fails is a warning: metrics never fail a command.
type Recorder struct {
	Log   *events.Log
	Locks *lock.Locker
	// Dir holds the weekly files (workspace.MetricsDir).
	Dir string
	Now func() time.Time
	// Writer is this machine's writer id on the state branch ("" when
	// there is none: Local Mode, or no sync has made one yet).
	Writer func() string
	Warn   func(format string, args ...any)
}

// Record appends l as one line; weeklyFile set (a session's end), it also
// writes the weekly file when there is a writer id.
func (r *Recorder) Record(ctx context.Context, l Line, weeklyFile bool) {
	l.Lines = 1
	if err := r.Log.Append(ctx, EventType, l); err != nil {
		r.Warn("agentx %s: metrics not logged: %v", l.Command, err)
		return
	}
	if !weeklyFile {
		return
	}
	writer := r.Writer()
	if writer == "" {
		return // no sync yet: the first one makes the id, the next session's end the file
	}
	now := r.Now()
	evs, _, err := r.Log.Read(WeekStart(now).AddDate(0, 0, -7))
	if err == nil {
		_, err = UpdateWeeks(ctx, r.Locks, r.Dir, writer, evs, now)
	}
	if err != nil {
		r.Warn("agentx %s: weekly metrics not written: %v", l.Command, err)
	}
}
