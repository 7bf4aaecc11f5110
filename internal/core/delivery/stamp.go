// Package delivery brings what arrived for an agent (answers, resolutions
// and escalations of its own questions) into its running session, once,
// through the hooks a host fires mid-session (issue 34), and keeps the
// receipt in the ledger (ledger.DeliveredKey on the entry).
//
// The hooks fire on every prompt and every tool call, so the common case
// (nothing new) must cost next to nothing: two small files are read and
// compared, no ledger is opened. Every write of news bumps the inbox
// generation (`.agentx/state/inbox/generation`, a token rewritten whole);
// each session keeps the generation it last saw
// (`.agentx/state/inbox/sessions/<session>`). Only when the two differ are
// the ledgers read; what is found is delivered under each ledger's lock,
// the receipt written in the same locked step, so two sessions of one
// agent at once deliver each entry to one of them only.
package delivery

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// generationName is the inbox generation's file inside InboxDir.
const generationName = "generation"

// sessionsName is the directory of the per-session stamps inside InboxDir.
const sessionsName = "sessions"

// maxStamp bounds what a stamp read takes: a stamp is a few dozen bytes,
// and a larger file is not one of ours.
const maxStamp = 4096

// Bump records that news arrived: a new generation token, written whole
// (temporary file and rename). It is no stored data, only a hint that
// the ledgers changed, so it is not synced: a crash that loses it delays a
// delivery until the next bump or the next session.
func Bump(ws workspace.Workspace) error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	token := strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + hex.EncodeToString(rnd[:])
	return writeStamp(filepath.Join(ws.InboxDir(), generationName), []byte(token+"\n"))
}

// Generation reads the inbox generation ("" when nothing was ever bumped).
func Generation(ws workspace.Workspace) string {
	data, err := readStamp(filepath.Join(ws.InboxDir(), generationName))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Seen is a session's stamp: the generation it last checked in full, and
// when the session began (what arrived before is shown by `hook start`,
// not delivered again).
type Seen struct {
	Generation string `json:"generation"`
	Since      string `json:"since"`
	Agent      string `json:"agent,omitempty"`
}

// SinceTime parses Since (zero when unreadable).
func (s Seen) SinceTime() time.Time { t, _ := clock.Parse(s.Since); return t }

// validSession reports whether id can name a stamp file: the hosts' ids
// are UUIDs or similar; anything else is not delivered to (it would name
// a path).
func validSession(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ErrSession is a session id that cannot be delivered to.
var ErrSession = errors.New("no usable session id in the hook's payload")

func sessionFile(ws workspace.Workspace, session string) string {
	return filepath.Join(ws.InboxDir(), sessionsName, session)
}

// ReadSeen reads a session's stamp; ok is false when it has none.
func ReadSeen(ws workspace.Workspace, session string) (Seen, bool) {
	if !validSession(session) {
		return Seen{}, false
	}
	data, err := readStamp(sessionFile(ws, session))
	if err != nil {
		return Seen{}, false
	}
	var s Seen
	if json.Unmarshal(data, &s) != nil {
		return Seen{}, false
	}
	return s, true
}

// WriteSeen writes a session's stamp.
func WriteSeen(ws workspace.Workspace, session string, s Seen) error {
	if !validSession(session) {
		return ErrSession
	}
	data, _ := json.Marshal(s) // strings only
	return writeStamp(sessionFile(ws, session), append(data, '\n'))
}

// Begin marks a session's start (`hook start`): what arrives from now on
// is delivered into it; what is there already, the start shows. A session
// started again (Claude Code's start after /clear or a compaction) keeps
// the time it first began: what arrived since and is still undelivered
// stays due, and so does what it has not checked yet.
func Begin(ws workspace.Workspace, session, agent string, now time.Time) error {
	if old, ok := ReadSeen(ws, session); ok && !old.SinceTime().IsZero() && old.Agent == agent {
		return nil
	}
	return WriteSeen(ws, session, Seen{Generation: Generation(ws), Since: clock.Format(now), Agent: agent})
}

// End removes a session's stamp (its end): the directory holds running
// sessions only, and Prune takes what a crashed session left.
func End(ws workspace.Workspace, session string) {
	if validSession(session) {
		_ = os.Remove(sessionFile(ws, session))
	}
}

// StaleAfter is how long a session stamp nobody touched is kept: a
// session that never ended (killed host) leaves one.
const StaleAfter = 7 * 24 * time.Hour

// Prune removes session stamps untouched for StaleAfter. It runs when
// news is delivered, never on the quick path.
func Prune(ws workspace.Workspace, now time.Time) {
	dir := filepath.Join(ws.InboxDir(), sessionsName)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > StaleAfter {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// News is the quick check a mid-session hook makes before anything else:
// whether the inbox generation moved since the session last looked. A
// session with no stamp has news when anything was ever bumped (its
// stamp is then written by the full check with the session's start as
// now).
func News(ws workspace.Workspace, session string) (gen string, seen Seen, hasSeen, news bool) {
	gen = Generation(ws)
	seen, hasSeen = ReadSeen(ws, session)
	if !hasSeen {
		return gen, seen, false, true
	}
	return gen, seen, true, gen != seen.Generation
}

// readStamp reads a stamp through atomicfile, which refuses anything but
// a small regular file: a FIFO planted there must not hang a hook that
// runs on every prompt and tool call.
func readStamp(path string) ([]byte, error) {
	return atomicfile.ReadRegular(path, maxStamp)
}

// writeStamp replaces a stamp whole (a reader sees one stamp or the
// other), creating its directory when missing. Not synced: a stamp is a
// hint, and a crash that loses it only delays a delivery (Bump).
func writeStamp(path string, data []byte) error {
	if err := atomicfile.Write(path, data, atomicfile.Options{NoSync: true}); err != nil {
		return fmt.Errorf("stamp: %w", err)
	}
	return nil
}
