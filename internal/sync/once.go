package sync

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// A comment's command is applied once per edit. The entry a comment
// produced carries, beside CommentKey, the comment's edit time and a
// fingerprint of the command: extra keys of a thread entry, which the
// state branch's merge keeps key by key and the other readers keep as
// unknown. A re-delivered or re-run event finds its edit time recorded; an
// edited comment applies its new command once; an edit that left the
// command as it was changes nothing.
const (
	// CommentUpdatedKey is the comment's updated_at when it was applied.
	CommentUpdatedKey = "githubCommentUpdatedAt"
	// CommandKey fingerprints the command applied (verb, id, text).
	CommandKey = "githubCommand"
)

// fingerprint identifies the command's content.
func (c Command) fingerprint() string {
	h := sha256.Sum256([]byte(string(c.Verb) + "\x00" + c.ID + "\x00" + c.Text))
	return hex.EncodeToString(h[:8])
}

func editTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err == nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func extraString(e *ledger.Entry, key string) string {
	var s string
	if raw := entryExtra(e, key); raw != nil && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func entryExtra(e *ledger.Entry, key string) json.RawMessage {
	for _, f := range e.Extra {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// appliedBefore reports whether l already holds what ev's comment says
// now: an entry of this comment recorded at this edit or a later one, or
// with the same command. Entries written before edit times were recorded
// count as the comment's first version.
func appliedBefore(l *ledger.Ledger, ev Event, cmd Command) bool {
	want := strconv.FormatInt(ev.Comment.ID, 10)
	seen := false
	var latest time.Time
	latestCmd := ""
	for i := range l.Clarifications {
		for j := range l.Clarifications[i].Thread {
			e := &l.Clarifications[i].Thread[j]
			if string(entryExtra(e, CommentKey)) != want {
				continue
			}
			seen = true
			t, _ := editTime(extraString(e, CommentUpdatedKey))
			if latestCmd == "" || t.After(latest) {
				latest, latestCmd = t, extraString(e, CommandKey)
			}
		}
	}
	if !seen {
		return false
	}
	upd, known := editTime(ev.Comment.UpdatedAt)
	switch {
	case !known:
		return true // no edit time to tell versions apart: the comment is in
	case !latest.IsZero() && !upd.After(latest):
		return true // this edit, or a newer one, was applied
	case latestCmd == "":
		return ev.Action != "edited" // recorded before edit times were
	}
	return latestCmd == cmd.fingerprint()
}

// commentApplied reports whether the ledger data holds an entry produced
// by comment id (an earlier version of it was applied).
func commentApplied(data []byte, issue int, id int64) bool {
	l, err := ledger.Parse("ledger", data, issue)
	if err != nil {
		return false
	}
	want := strconv.FormatInt(id, 10)
	for i := range l.Clarifications {
		for j := range l.Clarifications[i].Thread {
			if string(entryExtra(&l.Clarifications[i].Thread[j], CommentKey)) == want {
				return true
			}
		}
	}
	return false
}
