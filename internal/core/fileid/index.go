package fileid

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// An index file is a header line, then one line per file, sorted by name:
// `name ino size mtime ctime kept`, where kept is what the reader keeps of
// the file's content (one line, no newline; the artifact ledgers'
// summaries, the monitor's open records). Each index says what its kept
// bytes are; the line format is shared.

// ParseIndex reads an index written under header. entry turns each line
// into the caller's entry, or refuses it; any line that does not parse
// refuses the whole index (the caller then reads every file: a derived
// index is never trusted in part).
func ParseIndex[E any](data []byte, header string, entry func(name string, id ID, kept []byte) (E, error)) (map[string]E, error) {
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(line) != header {
		return nil, errors.New("no index header")
	}
	out := make(map[string]E, bytes.Count(rest, []byte("\n")))
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		// `name ino size mtime ctime kept`, cut in place: a split would
		// allocate a slice per line, 10,000 of them at 10,000 ledgers.
		nameB, tail, ok := bytes.Cut(line, []byte(" "))
		var n [4]int64
		for i := range n {
			var num []byte
			if ok {
				num, tail, ok = bytes.Cut(tail, []byte(" "))
			}
			if !ok {
				return nil, fmt.Errorf("bad index line %q", line)
			}
			v, vok := atoi64(num)
			if !vok {
				return nil, fmt.Errorf("bad index number %q", num)
			}
			n[i] = v
		}
		name := string(nameB)
		e, err := entry(name, ID{Ino: n[0], Size: n[1], Mtime: n[2], Ctime: n[3]}, tail)
		if err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, nil
}

// FormatIndex writes idx under header, line gives each entry's identity
// and kept bytes.
func FormatIndex[E any](header string, idx map[string]E, line func(E) (ID, []byte)) []byte {
	names := make([]string, 0, len(idx))
	for n := range idx {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteString(header + "\n")
	var num []byte
	for _, n := range names {
		id, kept := line(idx[n])
		b.WriteString(n)
		for _, v := range [4]int64{id.Ino, id.Size, id.Mtime, id.Ctime} {
			b.WriteByte(' ')
			num = strconv.AppendInt(num[:0], v, 10)
			b.Write(num)
		}
		b.WriteByte(' ')
		b.Write(kept)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// SameIndex reports whether a and b hold the same files with the same
// identities and kept bytes (an index unchanged is not written again).
func SameIndex[E any](a, b map[string]E, line func(E) (ID, []byte)) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			return false
		}
		idv, kv := line(v)
		idw, kw := line(w)
		if idv != idw || !bytes.Equal(kv, kw) {
			return false
		}
	}
	return true
}

// atoi64 parses a decimal int64 without allocating (an index has tens of
// thousands of them and is read on every hook).
func atoi64(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n < 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
