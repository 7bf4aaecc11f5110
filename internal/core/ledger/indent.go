package ledger

import (
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// AppendIndentedJSON lays the ledger out as it is stored, straight into
// dst (jsonfile.IndentAppender): the bytes jsonfile.Marshal gave by
// indenting MarshalJSON's compact output, byte for byte
// (TestIndentedMatchesMarshalJSON), without that compact copy and the
// scan of it. Every clarify command rewrites a whole ledger: for one of
// 100 KB the copy was 25 fresh pages and the scan a tenth of the command.
func (l *Ledger) AppendIndentedJSON(dst []byte) ([]byte, error) {
	if dst == nil {
		hint := l.sizeHint()
		dst = make([]byte, 0, hint+hint/4+len(l.Clarifications)*indentPerRecord)
	}
	dst = append(dst, "{\n  \"issueNumber\": "...)
	dst = strconv.AppendInt(dst, int64(l.IssueNumber), 10)
	dst = append(dst, ",\n  \"clarifications\": ["...)
	for i := range l.Clarifications {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonfile.Newline(dst, 2)
		var err error
		if dst, err = l.Clarifications[i].appendIndented(dst, 2); err != nil {
			return nil, err
		}
	}
	if len(l.Clarifications) > 0 {
		dst = jsonfile.Newline(dst, 1)
	}
	dst = append(dst, ']')
	dst, err := appendExtraIndented(dst, l.Extra, 1)
	if err != nil {
		return nil, err
	}
	return append(dst, "\n}"...), nil
}

// indentPerRecord is about the indentation a record with a short thread
// adds to its compact JSON (sizeHint's measure).
const indentPerRecord = 256

// appendIndented writes the record as it stands at depth (its opening
// brace already placed there).
func (r *Record) appendIndented(dst []byte, depth int) ([]byte, error) {
	in := depth + 1
	dst = append(dst, '{')
	dst = key(dst, in, "id")
	dst = jsonfile.AppendString(dst, r.ID)
	dst = nextKey(dst, in, "issueNumber")
	dst = strconv.AppendInt(dst, int64(r.IssueNumber), 10)
	dst = nextKey(dst, in, "from")
	dst = jsonfile.AppendString(dst, r.From)
	dst = nextKey(dst, in, "to")
	dst = jsonfile.AppendString(dst, r.To)
	dst = nextKey(dst, in, "topic")
	dst = jsonfile.AppendString(dst, r.Topic)
	dst = nextKey(dst, in, "blocking")
	dst = strconv.AppendBool(dst, r.Blocking)
	dst = nextKey(dst, in, "status")
	dst = jsonfile.AppendString(dst, string(r.Status))
	dst = nextKey(dst, in, "round")
	dst = strconv.AppendInt(dst, int64(r.Round), 10)
	dst = nextKey(dst, in, "maxRounds")
	dst = strconv.AppendInt(dst, int64(r.MaxRounds), 10)
	dst = nextKey(dst, in, "created")
	dst = jsonfile.AppendString(dst, r.Created)
	dst = nextKey(dst, in, "staleAfter")
	dst = jsonfile.AppendString(dst, r.StaleAfter)
	dst = nextKey(dst, in, "resolvedAt")
	if r.ResolvedAt == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsonfile.AppendString(dst, *r.ResolvedAt)
	}
	dst = nextKey(dst, in, "thread")
	dst = append(dst, '[')
	var err error
	for i := range r.Thread {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonfile.Newline(dst, in+1)
		if dst, err = r.Thread[i].appendIndented(dst, in+1); err != nil {
			return nil, err
		}
	}
	if len(r.Thread) > 0 {
		dst = jsonfile.Newline(dst, in)
	}
	dst = append(dst, ']')
	if dst, err = appendExtraIndented(dst, r.Extra, in); err != nil {
		return nil, err
	}
	return append(jsonfile.Newline(dst, depth), '}'), nil
}

func (e *Entry) appendIndented(dst []byte, depth int) ([]byte, error) {
	in := depth + 1
	dst = append(dst, '{')
	dst = key(dst, in, "round")
	dst = strconv.AppendInt(dst, int64(e.Round), 10)
	dst = nextKey(dst, in, "from")
	dst = jsonfile.AppendString(dst, e.From)
	dst = nextKey(dst, in, "type")
	dst = jsonfile.AppendString(dst, string(e.Type))
	dst = nextKey(dst, in, "body")
	dst = jsonfile.AppendString(dst, e.Body)
	dst = nextKey(dst, in, "timestamp")
	dst = jsonfile.AppendString(dst, e.Timestamp)
	dst, err := appendExtraIndented(dst, e.Extra, in)
	if err != nil {
		return nil, err
	}
	return append(jsonfile.Newline(dst, depth), '}'), nil
}

// key starts the first member of an object at depth: `\n  "k": `.
func key(dst []byte, depth int, k string) []byte {
	dst = jsonfile.Newline(dst, depth)
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':', ' ')
}

// nextKey is key after a member: `,\n  "k": `.
func nextKey(dst []byte, depth int, k string) []byte {
	return key(append(dst, ','), depth, k)
}

// appendExtraIndented writes the keys other tools added, each value laid
// out at its depth (it is kept as it was read, in any layout).
func appendExtraIndented(dst []byte, extra []jsonfile.Field, depth int) ([]byte, error) {
	var err error
	for _, f := range extra {
		dst = jsonfile.Newline(append(dst, ','), depth)
		dst = jsonfile.AppendString(dst, f.Key)
		dst = append(dst, ':', ' ')
		if dst, err = jsonfile.AppendIndented(dst, f.Value, depth); err != nil {
			return nil, err
		}
	}
	return dst, nil
}
