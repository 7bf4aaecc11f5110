package memory

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// rowLayout is how manifest.json's entries are laid out. The reference
// layout is JSON.stringify(m, null, 2), byte for byte what the old tools
// write (about 350 bytes an entry). The compact layout, the default, puts
// each entry on one line with no indentation inside it (about 65 bytes an
// entry less, a fifth of the manifest): it is still the reference format
// to any JSON reader, the old tools included, which parse it and write it
// back indented. The head (version, updatedAt), the closing bracket and
// the stamp are the same in both, so every splice below works in either.
type rowLayout struct{ compact bool }

var (
	referenceRows = rowLayout{}
	compactRows   = rowLayout{compact: true}
)

// rowLayout is the layout this store writes: the reference one when the
// manifest is rendered for the old tools at every write (DeltaLimit < 0,
// `[memory] manifest = "reference"`) or asked for (ReferenceManifest).
func (s *Store) rowLayout() rowLayout {
	if s.DeltaLimit < 0 || s.ReferenceManifest {
		return referenceRows
	}
	return compactRows
}

// sep is what precedes each entry, after the comma or the opening bracket.
func (l rowLayout) sep() string {
	if l.compact {
		return "\n"
	}
	return "\n    "
}

// appendRow appends e to the entries array's body as its next row (a
// comma first unless it is the array's first row) and returns the body
// and the row's place in it, what the search index's reference holds.
func (l rowLayout) appendRow(body []byte, e *Entry, first bool) ([]byte, memindex.Ref) {
	if !first {
		body = append(body, ',')
	}
	body = append(body, l.sep()...)
	off := len(body)
	body = l.appendEntry(body, e)
	return body, memindex.Ref{Off: uint32(off), Len: uint32(len(body) - off)}
}

// appendEntry renders e as the entries array holds it.
func (l rowLayout) appendEntry(b []byte, e *Entry) []byte {
	if !l.compact {
		return appendEntry(b, e)
	}
	b = append(b, `{"id":`...)
	b = jsonfile.AppendString(b, e.ID)
	b = append(b, `,"agent":`...)
	b = jsonfile.AppendString(b, e.Agent)
	b = append(b, `,"issueNumber":`...)
	b = strconv.AppendInt(b, int64(e.IssueNumber), 10)
	b = append(b, `,"category":`...)
	b = jsonfile.AppendString(b, string(e.Category))
	b = append(b, `,"summary":`...)
	b = jsonfile.AppendString(b, e.Summary)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(e.Tokens), 10)
	b = append(b, `,"timestamp":`...)
	b = jsonfile.AppendString(b, e.Timestamp)
	// Keys other tools wrote are kept, after ours, as in the reference
	// layout; only their whitespace goes.
	for _, x := range e.Extra {
		b = append(b, ',')
		b = jsonfile.AppendString(b, x.Key)
		b = append(b, ':')
		var buf bytes.Buffer
		if err := json.Compact(&buf, x.Value); err != nil {
			b = append(b, x.Value...)
		} else {
			b = append(b, buf.Bytes()...)
		}
	}
	return append(b, '}')
}

// laidOut reports whether the entry at off in data is preceded as l lays
// entries out (by the opening bracket or a comma, then l's separator): a
// manifest in the other layout (the old tools', or ours before a switch
// of mode) is rendered again rather than spliced into a mixture.
func (l rowLayout) laidOut(data []byte, off int) bool {
	sep := l.sep()
	if off < len(sep)+1 || off > len(data) || string(data[off-len(sep):off]) != sep {
		return false
	}
	c := data[off-len(sep)-1]
	return c == ',' || c == '['
}
