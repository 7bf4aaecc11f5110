package sync

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Key names one thread entry: the record and the entry's index in the
// record's thread. Threads are append-only, so the index is stable; the
// round and type are carried in the marker for people reading the source.
type Key struct {
	ID  string
	Seq int
}

func (k Key) String() string { return k.ID + "#" + strconv.Itoa(k.Seq) }

// Marker is the hidden line at the end of every mirrored comment.
type Marker struct {
	Key
	Round int
	Type  ledger.EntryType
	Hash  string
}

const (
	markerOpen  = "<!-- agentx:entry "
	markerClose = " -->"
	// replyMarker tags the replies ingest posts, so sync never takes them
	// for mirrored entries and ingest never answers itself.
	replyMarker = "<!-- agentx:reply "
)

// String renders the marker.
func (m Marker) String() string {
	return fmt.Sprintf("%sv=1 id=%s seq=%d round=%d type=%s hash=%s%s", markerOpen, m.ID, m.Seq, m.Round, m.Type, m.Hash, markerClose)
}

// ParseMarker finds the last entry marker in a comment body. Only the last
// one counts: a quoted or pasted marker earlier in the text is not ours.
func ParseMarker(body string) (Marker, bool) {
	i := strings.LastIndex(body, markerOpen)
	if i < 0 {
		return Marker{}, false
	}
	rest := body[i+len(markerOpen):]
	j := strings.Index(rest, markerClose)
	if j < 0 || strings.TrimSpace(rest[j+len(markerClose):]) != "" {
		return Marker{}, false
	}
	var m Marker
	seen := map[string]bool{}
	for _, field := range strings.Fields(rest[:j]) {
		k, v, ok := strings.Cut(field, "=")
		if !ok || seen[k] {
			return Marker{}, false
		}
		seen[k] = true
		var err error
		switch k {
		case "v":
			if v != "1" {
				return Marker{}, false
			}
		case "id":
			if _, err = validate.ClarificationID(v); err == nil {
				m.ID = v
			}
		case "seq":
			m.Seq, err = smallInt(v, 0)
		case "round":
			m.Round, err = smallInt(v, 1)
		case "type":
			m.Type = ledger.EntryType(v)
			switch m.Type {
			case ledger.Question, ledger.Answer, ledger.Resolution, ledger.Escalation:
			default:
				return Marker{}, false
			}
		case "hash":
			if len(v) < 8 || len(v) > 64 || strings.Trim(v, "0123456789abcdef") != "" {
				return Marker{}, false
			}
			m.Hash = v
		default:
			return Marker{}, false
		}
		if err != nil {
			return Marker{}, false
		}
	}
	if m.ID == "" || m.Round == 0 || m.Type == "" || m.Hash == "" || !seen["seq"] {
		return Marker{}, false
	}
	return m, true
}

func smallInt(s string, least int) (int, error) {
	if len(s) == 0 || len(s) > 6 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("bad number %q", s)
	}
	n, _ := strconv.Atoi(s)
	if n < least {
		return 0, fmt.Errorf("number %d below %d", n, least)
	}
	return n, nil
}
