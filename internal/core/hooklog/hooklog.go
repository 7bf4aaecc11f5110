// Package hooklog keeps the last hook runs of a workspace and their
// warnings: `.agentx/hook-log.jsonl`, one JSON line per run, the newest
// last, at most MaxEntries. A host hides a successful hook's stderr, so
// this log is where `agentx-hook doctor` finds what the last sessions'
// hooks said. The file is local only (workspace.LocalOnly): it never
// leaves the machine.
package hooklog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Bounds of the log: entries kept, warnings per entry, runes per text.
const (
	MaxEntries  = 50
	MaxWarnings = 20
	MaxText     = 500
	// maxFile bounds what is read back: MaxEntries full entries fit.
	maxFile = 2 << 20
)

// Outcomes of a run.
const (
	OK      = "ok"      // ran, no warning
	Warned  = "warned"  // ran, with warnings
	Skipped = "skipped" // did nothing (no workspace, an unknown agent, AGENTX=0)
)

// Entry is one hook run.
type Entry struct {
	Time time.Time `json:"time"`
	// Command is what ran: "hook start", "hook finish", "git-hook post-commit".
	Command string `json:"command"`
	// Host is the payload's format (claude, codex, copilot), if known.
	Host  string `json:"host,omitempty"`
	Agent string `json:"agent,omitempty"`
	Issue int    `json:"issue,omitempty"`
	// DurationMS is how long the run took.
	DurationMS int64  `json:"durationMs"`
	Outcome    string `json:"outcome"`
	// Warnings are the warning lines the run printed, without "warning: ".
	Warnings []string `json:"warnings,omitempty"`
}

// bound trims e to the log's bounds.
func bound(e Entry) Entry {
	e.Command = shorten.Runes(e.Command, MaxText)
	e.Host = shorten.Runes(e.Host, MaxText)
	e.Agent = shorten.Runes(sanitize.Clean(e.Agent), MaxText)
	if len(e.Warnings) > MaxWarnings {
		n := len(e.Warnings) - MaxWarnings + 1
		e.Warnings = append(e.Warnings[:MaxWarnings-1:MaxWarnings-1], fmt.Sprintf("(%d more warnings)", n))
	}
	ws := make([]string, len(e.Warnings))
	for i, w := range e.Warnings {
		// A warning may quote what a host or agent passed (an agent name,
		// a path, an error): redacted before it is cut and kept.
		ws[i] = shorten.Runes(sanitize.Clean(w), MaxText)
	}
	if len(ws) > 0 {
		e.Warnings = ws
	}
	if e.Outcome == "" {
		e.Outcome = OK
		if len(e.Warnings) > 0 {
			e.Outcome = Warned
		}
	}
	return e
}

// lockWait bounds how long a hook waits for another's append: the log is
// a diagnostic, never a reason to hold a session up.
const lockWait = 500 * time.Millisecond

// Append adds e to the workspace's hook log under its lock, keeping the
// last MaxEntries, and replaces the file atomically. It writes nothing
// outside a workspace (no `.agentx/`) and nothing through a `.agentx/`
// symlinked outside it (workspace.CheckContained). A log that cannot be
// read back (a torn or foreign line) loses those lines, never the new
// entry.
func Append(ws workspace.Workspace, e Entry) error {
	if fi, err := os.Stat(ws.AgentxDir()); err != nil || !fi.IsDir() {
		return nil
	}
	if err := ws.CheckContained(); err != nil {
		return err
	}
	line, err := json.Marshal(bound(e))
	if err != nil {
		return err
	}
	path := ws.HookLogFile()
	locks := lock.New(lock.Options{Wait: lockWait})
	return atomicfile.WithLock(context.Background(), locks, path, func(lk *lock.Lock) error {
		old, err := readFile(path)
		if err != nil {
			return err
		}
		lines := validLines(old)
		if len(lines) >= MaxEntries {
			lines = lines[len(lines)-MaxEntries+1:]
		}
		var b bytes.Buffer
		for _, l := range lines {
			b.Write(l)
			b.WriteByte('\n')
		}
		b.Write(line)
		b.WriteByte('\n')
		// No fsync: a diagnostic log, written on the hook's path.
		return atomicfile.Write(path, b.Bytes(), atomicfile.Options{Commit: lk.Commit, NoSync: true})
	})
}

// Read returns the log's entries, oldest first; none when there is no log.
// Lines that do not decode are skipped.
func Read(ws workspace.Workspace) ([]Entry, error) {
	data, err := readFile(ws.HookLogFile())
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, l := range validLines(data) {
		var e Entry
		if json.Unmarshal(l, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

func readFile(path string) ([]byte, error) {
	data, err := atomicfile.ReadRegular(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, atomicfile.ErrTooLarge) {
		return nil, nil // start over: the log is bounded, this one is not ours
	}
	return data, err
}

// validLines are the lines of data that are JSON objects.
func validLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] == '{' && json.Valid(l) {
			out = append(out, l)
		}
	}
	return out
}
