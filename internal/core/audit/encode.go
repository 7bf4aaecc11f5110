package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// A trail line: its encoding with the hash over the rest, the hash read
// back and checked, the clipping of fields to their bounds, and the
// tool (program and version) that wrote it.

var hashSep = []byte(`,"hash":"`)

// Encode returns e's line (without the newline), its hash computed.
func Encode(e Entry) ([]byte, error) {
	e.Hash = ""
	body := e.appendJSON(nil)
	// The members are in field order, as json.Marshal writes them: hash
	// is last.
	i := bytes.LastIndex(body, hashSep)
	if i < 0 {
		return nil, fmt.Errorf("encode audit entry: no hash member")
	}
	prefix := body[:i]
	h := contenthash.Of(prefix)
	out := make([]byte, 0, len(prefix)+len(hashSep)+len(h)+2)
	out = append(out, prefix...)
	out = append(out, hashSep...)
	out = append(out, h...)
	return append(out, '"', '}'), nil
}

// appendJSON appends e as json.Marshal writes it (TestEncodeIsMarshal),
// without the reflection Marshal pays on a type's first use: every
// command that writes appends one line.
func (e *Entry) appendJSON(b []byte) []byte {
	str := jsonfile.AppendMarshalString
	b = append(b, `{"time":`...)
	b = str(b, e.Time)
	b = append(b, `,"actor":`...)
	b = str(b, e.Actor)
	b = append(b, `,"op":`...)
	b = str(b, e.Op)
	if e.Issue != 0 {
		b = append(b, `,"issue":`...)
		b = strconv.AppendInt(b, int64(e.Issue), 10)
	}
	if len(e.IDs) > 0 {
		b = append(b, `,"ids":[`...)
		for i, id := range e.IDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = str(b, id)
		}
		b = append(b, ']')
	}
	if e.MoreIDs != 0 {
		b = append(b, `,"moreIds":`...)
		b = strconv.AppendInt(b, int64(e.MoreIDs), 10)
	}
	b = appendHashes(b, `,"before":`, e.Before)
	b = appendHashes(b, `,"after":`, e.After)
	if e.Detail != "" {
		b = append(b, `,"detail":`...)
		b = str(b, e.Detail)
	}
	b = append(b, `,"tool":`...)
	b = str(b, e.Tool)
	b = append(b, `,"version":`...)
	b = str(b, e.Version)
	b = append(b, `,"prev":`...)
	b = str(b, e.Prev)
	b = append(b, `,"hash":`...)
	b = str(b, e.Hash)
	return append(b, '}')
}

// appendHashes appends a map member (omitted when empty), its keys sorted
// as json.Marshal sorts them.
func appendHashes(b []byte, member string, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, member...)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonfile.AppendMarshalString(b, k)
		b = append(b, ':')
		b = jsonfile.AppendMarshalString(b, m[k])
	}
	return append(b, '}')
}

// hashField returns the hash a line states for itself, when it ends the
// way Encode ends lines.
func hashField(line []byte) (string, bool) {
	line = bytes.TrimRight(line, "\r")
	n := len(hashSep) + len(contenthash.Prefix) + 64 + 2
	if len(line) < n || !bytes.HasSuffix(line, []byte(`"}`)) || !bytes.Equal(line[len(line)-n:len(line)-n+len(hashSep)], hashSep) {
		return "", false
	}
	h := string(line[len(line)-n+len(hashSep) : len(line)-2])
	return h, contenthash.Valid(h)
}

// LineHash recomputes the hash of a line from its bytes (ok false when the
// line does not end the way Encode ends lines).
func LineHash(line []byte) (computed, stated string, ok bool) {
	stated, ok = hashField(line)
	if !ok {
		return "", "", false
	}
	line = bytes.TrimRight(line, "\r")
	prefix := line[:len(line)-(len(hashSep)+len(stated)+2)]
	return contenthash.Of(prefix), stated, true
}

// Decode parses one line.
func Decode(line []byte) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		return Entry{}, err
	}
	return e, nil
}

func clip(e *Entry) {
	// The one egress sanitiser on what a caller wrote as free text: an
	// actor may be a name given on the command line (--as), a detail a
	// reason or a checkpoint's message.
	e.Actor = sanitize.Clean(e.Actor)
	e.Detail = sanitize.Clean(e.Detail)
	if len(e.IDs) > MaxIDs {
		e.MoreIDs += len(e.IDs) - MaxIDs
		e.IDs = e.IDs[:MaxIDs:MaxIDs]
	}
	e.Before = clipMap(e.Before)
	e.After = clipMap(e.After)
	if len(e.Detail) > MaxDetail {
		cut := MaxDetail
		for cut > 0 && (e.Detail[cut]&0xC0) == 0x80 {
			cut--
		}
		e.Detail = e.Detail[:cut] + "…"
	}
}

func clipMap(m map[string]string) map[string]string {
	if len(m) <= MaxIDs {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(map[string]string, MaxIDs)
	for _, k := range keys[:MaxIDs] {
		out[k] = m[k]
	}
	return out
}

var (
	buildOnce            sync.Once
	buildTool, buildVers string
)

// fillTool names the program and its version when the caller did not.
func fillTool(e *Entry) {
	if e.Tool != "" && e.Version != "" {
		return // the caller's own (agentx-hook names its build): nothing to parse
	}
	buildOnce.Do(func() {
		buildTool = filepath.Base(os.Args[0])
		buildVers = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			buildVers = bi.Main.Version
		}
	})
	if e.Tool == "" {
		e.Tool = buildTool
	}
	if e.Version == "" {
		e.Version = buildVers
	}
}
