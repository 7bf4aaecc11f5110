package metrics

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// UpdateWeeks folds the metrics lines of evs into writer's files in dir
// (`.agentx/state/metrics`) for now's ISO week and the one before (the
// last session of a week is folded by the next one), each under its lock:
// only the lines after the file's Through are added, so a fold is never
// counted twice, and a line the bounded event log dropped before it was
// folded is the one thing lost. It returns the paths written.
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
