package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/process"
)

// leaveMarker writes the pending marker of a write of issue's file (step
// 1 of a write; finish removes it after step 2): its time, its writer
// ("pid host") and, when line is set, the audit line the write owes, for
// the repair of a writer that dies before appending it (settleIntent).
// markerIssue is the issue a marker's file name (issue-N-XXXX) names.
func markerIssue(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "issue-")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, "-")
	n, err := strconv.Atoi(num)
	return n, err == nil && n >= 0
}

// markerFields splits what leaveMarker wrote: the time, the writer ("pid
// host") and the audit line the write owes ("" when none).
func markerFields(data []byte) (stamp, owner, line string) {
	stamp, rest, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	owner, line, _ = strings.Cut(rest, "\n")
	return stamp, owner, strings.TrimSpace(line)
}

func (s *Store) leaveMarker(issue int, line *audit.Entry) (string, error) {
	dir := s.pendingDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	var intent []byte
	if line != nil {
		var err error
		if intent, err = json.Marshal(line); err != nil {
			return "", fmt.Errorf("encode the pending marker's audit line: %w", err)
		}
		intent = append(intent, '\n')
	}
	f, err := os.CreateTemp(dir, "issue-"+strconv.Itoa(issue)+"-*")
	if err != nil {
		return "", fmt.Errorf("create pending marker: %w", err)
	}
	host, _ := os.Hostname()
	// One write: a marker is whole or empty (an empty one, its writer
	// dead, is repaired as one without a line).
	_, werr := f.Write(append([]byte(fmt.Sprintf("%s\n%d %s\n", clock.Format(s.now()), os.Getpid(), host)), intent...))
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write pending marker: %w", err)
	}
	return f.Name(), nil
}

// writerDead reports a marker whose writer ("pid host") was a process of
// this host that no longer exists: its write will never finish, so the
// repair need not wait for the marker to age. A reused pid only delays the
// repair to the age rule.
func writerDead(owner string) bool {
	pidText, host, ok := strings.Cut(owner, " ")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if h, _ := os.Hostname(); h == "" || h != host {
		return false
	}
	return !process.Alive(pid)
}

// finish is steps 2 and 3.
func (s *Store) finish(ctx context.Context, issue int, marker string) error {
	if marker == "" {
		return nil
	}
	if s.batch != nil {
		s.batch.issues[issue] = true
		s.batch.markers = append(s.batch.markers, marker)
		return nil
	}
	if s.afterIssueWrite != nil {
		if err := s.afterIssueWrite(); err != nil {
			return err
		}
	}
	if err := s.syncIssues(ctx, []int{issue}); err != nil {
		return err
	}
	_ = os.Remove(marker)
	return nil
}

// repairPending finds markers left by writers that did not finish (a
// crash between the issue write and the manifest write) and redoes their
// step 2. It is cheap when there are none: one failed directory open.
func (s *Store) repairPending(ctx context.Context) error {
	issues, markers := s.stalePending()
	if len(issues) == 0 {
		return nil
	}
	s.warn("repairing the manifest for %d issue(s) left unfinished by an interrupted write: %v", len(issues), issues)
	// A marker is written under the issue lock, in the same hold as the
	// issue file; taking that lock once (and letting go before the
	// manifest's) guarantees a slow but live writer has finished its
	// issue write before we read the file.
	for _, n := range issues {
		if err := s.withLock(ctx, s.IssuePath(n), func(*lock.Lock) error { return nil }); err != nil {
			return err
		}
	}
	if err := s.syncIssues(ctx, issues); err != nil {
		return err
	}
	for _, m := range markers {
		if s.settleIntent(ctx, m) {
			_ = os.Remove(m)
		}
	}
	return nil
}

// pendingNames lists the pending directory (sorted; nil when it is
// missing or empty): a search reads it once, for the markers of writers
// that will not finish (staleOf) and those between their steps
// (markedOf), where it read it once for each (issue 35).
func (s *Store) pendingNames() []string {
	names, err := listNames(s.pendingDir())
	if err != nil {
		return nil
	}
	slices.Sort(names)
	return names
}

// stalePending lists the markers of writers that will not finish step 2
// themselves (dead, or older than markerStale) and their issues.
func (s *Store) stalePending() (issues []int, markers []string) {
	return s.staleOf(s.pendingNames())
}

// staleOf is stalePending of the pending directory's names.
func (s *Store) staleOf(names []string) (issues []int, markers []string) {
	if len(names) == 0 {
		return nil, nil
	}
	now := s.now()
	seen := map[int]bool{}
	for _, name := range names {
		n, ok := markerIssue(name)
		if !ok {
			continue
		}
		path := filepath.Join(s.pendingDir(), name)
		data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
		if err != nil {
			continue
		}
		stamp, owner, _ := markerFields(data)
		t, perr := clock.Parse(stamp)
		if perr != nil {
			if info, err := os.Lstat(path); err == nil {
				t = info.ModTime()
			}
		}
		if now.Sub(t) < markerStale && !writerDead(owner) {
			continue
		}
		markers = append(markers, path)
		if !seen[n] {
			seen[n] = true
			issues = append(issues, n)
		}
	}
	return issues, markers
}
