package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// IssueFile is `.agentx/memory/issue-N.json`.
type IssueFile struct {
	Version      int
	IssueNumber  int
	UpdatedAt    string
	Observations []Observation
	Extra        []jsonfile.Field
}

// Manifest is `.agentx/memory/manifest.json`.
type Manifest struct {
	Version   int
	UpdatedAt string
	Entries   []Entry
	Extra     []jsonfile.Field
}

// stampKey is the one key we add to the manifest: the fingerprint of the
// rest of the file, which the derived search index must match. It is the
// last key, so a reader checks it with one small read at the end of the
// file. The old implementation ignores it and drops it when it rewrites the
// manifest, which is exactly how we notice that it did. Another tool that
// keeps the key (a later TypeScript store preserves unknown keys) is caught
// by the head checksum in the stamp: the head holds updatedAt, which every
// writer changes, so the stamp no longer describes the file.
const stampKey = "agentxIndex"

// headLen is how much of the manifest's start the stamp's head checksum
// covers: version and updatedAt, and the first row's start.
const headLen = 128

// ParseIssueFile decodes an issue file; path names it in errors.
func ParseIssueFile(path string, data []byte) (*IssueFile, error) {
	f := &IssueFile{}
	if err := decodeDoc(data, &issueFileFields, f); err != nil {
		return nil, jsonfile.Corrupt(path, jsonfile.CorruptOffset(data, err), err)
	}
	return f, nil
}

// Marshal renders the issue file in the reference layout
// (JSON.stringify(f, null, 2)); written directly rather than through the
// encoder's re-indent, as captures rewrite the file on every store.
func (f *IssueFile) Marshal() ([]byte, error) {
	b := make([]byte, 0, 128+len(f.Observations)*700)
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(max(f.Version, 1)), 10)
	b = append(b, ",\n  \"issueNumber\": "...)
	b = strconv.AppendInt(b, int64(f.IssueNumber), 10)
	b = append(b, ",\n  \"updatedAt\": "...)
	b = jsonfile.AppendString(b, f.UpdatedAt)
	b = append(b, ",\n  \"observations\": ["...)
	for i := range f.Observations {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = f.Observations[i].appendIndented(b)
	}
	if len(f.Observations) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, ']')
	b = appendExtras(b, f.Extra, "  ")
	return append(b, "\n}\n"...), nil
}

// ParseManifest decodes a manifest; path names it in errors.
func ParseManifest(path string, data []byte) (*Manifest, error) {
	m := &Manifest{}
	if err := decodeDoc(data, &manifestFields, m); err != nil {
		return nil, jsonfile.Corrupt(path, jsonfile.CorruptOffset(data, err), err)
	}
	return m, nil
}

// decodeDoc decodes a whole file's object; an empty file is no object.
func decodeDoc[T any](data []byte, fields *jsonfile.Lazy[T], dst *T) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("file is empty")
	}
	return fields.Decode(data, dst)
}

// renderManifest lays the manifest out exactly as JSON.stringify(m, null, 2)
// would (or its entries one a line, in the compact layout l), followed by
// our stamp, and returns where each entry's object sits
// in the file so the index can point at rows.
func renderManifest(m *Manifest, gen uint64, l rowLayout) (data []byte, refs []memindex.Ref, st memindex.Stamp) {
	b := make([]byte, 0, 64+len(m.Entries)*300)
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(max(m.Version, 1)), 10)
	b = append(b, ",\n  \"updatedAt\": "...)
	b = jsonfile.AppendString(b, m.UpdatedAt)
	b = append(b, ",\n  \"entries\": ["...)
	refs = make([]memindex.Ref, len(m.Entries))
	for i := range m.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.sep()...)
		start := len(b)
		b = l.appendEntry(b, &m.Entries[i])
		refs[i] = memindex.Ref{Off: uint32(start), Len: uint32(len(b) - start)}
	}
	if len(m.Entries) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, ']')
	b = appendExtras(b, m.Extra, "  ")
	data, st = seal(b, gen)
	return data, refs, st
}

// seal appends the stamp that fingerprints prefix; it takes prefix over, so
// the caller uses only what it returns.
func seal(prefix []byte, gen uint64) ([]byte, memindex.Stamp) {
	crc := memindex.Checksum(prefix)
	b := prefix
	b = append(b, ",\n  \""+stampKey+"\": \""...)
	b = append(b, 'g')
	b = strconv.AppendUint(b, gen, 10)
	b = append(b, "-c"...)
	b = append(b, fmt.Sprintf("%08x", crc)...)
	b = append(b, "-h"...)
	b = append(b, fmt.Sprintf("%08x", memindex.Checksum(prefix[:min(len(prefix), headLen)]))...)
	b = append(b, "\"\n}\n"...)
	return b, memindex.Stamp{Generation: gen, CRC: crc, Size: int64(len(b))}
}

// readStamp finds and checks the stamp at the end of a manifest. With
// verify the checksum of the prefix is recomputed; without, only the tail
// is parsed (size and generation still have to match the index).
func readStamp(data []byte, size int64, verify bool) (st memindex.Stamp, prefixLen int, ok bool) {
	marker := []byte(",\n  \"" + stampKey + "\": \"g")
	i := bytes.LastIndex(data, marker)
	if i < 0 {
		return st, 0, false
	}
	rest := data[i+len(marker):]
	end := bytes.Index(rest, []byte("\"\n}\n"))
	if end < 0 || end+4 != len(rest) {
		return st, 0, false
	}
	var gen uint64
	var crc uint32
	val := string(rest[:end])
	val, _, _ = strings.Cut(val, "-h") // the head checksum: headMatches
	dash := strings.IndexByte(val, '-')
	if dash < 0 || len(val) < dash+2 || val[dash+1] != 'c' {
		return st, 0, false
	}
	g, err1 := strconv.ParseUint(val[:dash], 10, 64)
	c, err2 := strconv.ParseUint(val[dash+2:], 16, 32)
	if err1 != nil || err2 != nil {
		return st, 0, false
	}
	gen, crc = g, uint32(c)
	prefixLen = int(size) - (len(data) - i)
	st = memindex.Stamp{Generation: gen, CRC: crc, Size: size}
	if verify && (prefixLen != i || memindex.Checksum(data[:i]) != crc) {
		return st, 0, false
	}
	return st, prefixLen, true
}

// headMatches reports whether the stamp at the end of tail carries the
// checksum of head, the manifest's first min(headLen, prefixLen) bytes. A
// stamp without one (written before it existed) does not match: the index
// is then not trusted until the next write.
func headMatches(head, tail []byte) bool {
	i := bytes.LastIndex(tail, []byte("-h"))
	if i < 0 || !bytes.HasSuffix(tail, []byte("\"\n}\n")) {
		return false
	}
	h, err := strconv.ParseUint(string(tail[i+2:len(tail)-4]), 16, 32)
	return err == nil && h == uint64(memindex.Checksum(head))
}

func appendEntry(b []byte, e *Entry) []byte {
	b = append(b, "{\n      \"id\": "...)
	b = jsonfile.AppendString(b, e.ID)
	b = append(b, ",\n      \"agent\": "...)
	b = jsonfile.AppendString(b, e.Agent)
	b = append(b, ",\n      \"issueNumber\": "...)
	b = strconv.AppendInt(b, int64(e.IssueNumber), 10)
	b = append(b, ",\n      \"category\": "...)
	b = jsonfile.AppendString(b, string(e.Category))
	b = append(b, ",\n      \"summary\": "...)
	b = jsonfile.AppendString(b, e.Summary)
	b = append(b, ",\n      \"tokens\": "...)
	b = strconv.AppendInt(b, int64(e.Tokens), 10)
	b = append(b, ",\n      \"timestamp\": "...)
	b = jsonfile.AppendString(b, e.Timestamp)
	b = appendExtras(b, e.Extra, "      ")
	return append(b, "\n    }"...)
}

// appendExtras renders keys other tools wrote, as members of an object
// whose members are indented by indent.
func appendExtras(b []byte, extra []jsonfile.Field, indent string) []byte {
	for _, x := range extra {
		b = append(b, ",\n"+indent...)
		b = jsonfile.AppendString(b, x.Key)
		b = append(b, ": "...)
		b = appendIndented(b, x.Value, indent)
	}
	return b
}

func appendIndented(b []byte, raw []byte, prefix string) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, prefix, "  "); err != nil {
		return append(b, raw...)
	}
	return append(b, buf.Bytes()...)
}

// ParseObservations reads observations given by a user or a script: a
// JSON array of observation objects, or a whole issue file.
func ParseObservations(path string, data []byte) ([]Observation, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		f, err := ParseIssueFile(path, data)
		if err != nil {
			return nil, err
		}
		return f.Observations, nil
	}
	var out []Observation
	lead := int64(len(data) - len(bytes.TrimLeftFunc(data, unicode.IsSpace)))
	var recOffset int64 = -1
	err := jsonfile.EachElement(trimmed, func(raw []byte) error {
		o, err := decodeObservation(raw)
		if err != nil {
			// raw is a slice of trimmed: where it starts is where the
			// record is, the place to look in the file.
			recOffset = lead + int64(cap(trimmed)-cap(raw))
			return fmt.Errorf("record [%d]: %w", len(out), err)
		}
		out = append(out, o)
		return nil
	})
	if err != nil {
		off := recOffset
		if off < 0 {
			off = jsonfile.CorruptOffset(data, err)
		}
		return nil, jsonfile.Corrupt(path, off, err)
	}
	return out, nil
}

// EachManifestEntry reads a manifest from r one entry at a time, calling fn
// with each and the offset of its object in the file, so a check of a
// manifest of a million entries (350 MB) holds one entry, not the file
// and its parse. Any departure from the manifest's shape is an error; the
// caller then reads the file whole for ParseManifest's account of it. The
// offset is that of the entry's "id" member (of the object when it has
// none), as verify reports rows.
func EachManifestEntry(r io.Reader, fn func(e *Entry, off int64)) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 256<<10))
	if t, err := dec.Token(); err != nil {
		return fmt.Errorf("manifest: %w", err)
	} else if t != json.Delim('{') {
		return errors.New("manifest: not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if key != "entries" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if t, err := dec.Token(); err != nil {
			return fmt.Errorf("manifest: %w", err)
		} else if t != json.Delim('[') {
			return errors.New("manifest: entries is not an array")
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			var e Entry
			if err := decodeEntryInto(raw, &e); err != nil {
				return err
			}
			off := dec.InputOffset() - int64(len(raw))
			if i := bytes.Index(raw, []byte(`"id"`)); i >= 0 {
				off += int64(i)
			}
			fn(&e, off)
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("manifest: data after the object")
	}
	return nil
}
