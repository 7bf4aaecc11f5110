// Package jsonfile owns how state files reach and leave the disk: atomic
// replacement (temporary file in the same directory, fsync, rename, fsync of
// the directory), the reference layout (2-space indent, trailing newline, no
// HTML escaping, as JSON.stringify writes), corrupt-file detection that
// names the file and byte offset, and the ordered object split that lets
// every type keep keys written by other tools.
package jsonfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// Marshal renders v as the reference implementation lays files out.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes data into v and turns any syntax or type error into
// CORRUPT_STATE naming the file and the byte offset. A file that does not
// parse is never treated as empty: the reference implementation did that and
// lost whole ledgers on the next write.
func Unmarshal(path string, data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return Corrupt(path, 0, errors.New("file is empty"))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return Corrupt(path, OffsetOf(err), err)
	}
	return nil
}

// Corrupt returns the CORRUPT_STATE error for path.
func Corrupt(path string, offset int64, cause error) *errcode.Error {
	e := errcode.Wrap(errcode.CorruptState, cause, "%s is not valid (at byte %d)", path, offset)
	e.Hint = "the file was left untouched; repair or move it aside, then retry"
	return e
}

// OffsetOf extracts a byte offset from a decoding error, or -1.
func OffsetOf(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Offset
	}
	var oe *ObjectError
	if errors.As(err, &oe) {
		return oe.Offset
	}
	return -1
}

// WriteOptions tunes WriteAtomic.
type WriteOptions struct {
	// Perm is the mode of a new file (default 0o644).
	Perm fs.FileMode
	// Commit, when set, performs the final step: it is called with the
	// rename that replaces the file, after the new content is durable. The
	// lock package's Lock.Commit checks that the lock is still ours and
	// renames while holding the directory's guard, so a holder that was
	// paused past the stale threshold can neither overwrite the work of the
	// process that took over nor be taken over between check and rename.
	Commit func(rename func() error) error
	// NoSync skips the fsyncs (tests and throwaway files only).
	NoSync bool
}

// WriteAtomic replaces path with data so that a reader sees either the old
// or the new content in full, and a crash at any instant leaves one of them.
func WriteAtomic(path string, data []byte, opt WriteOptions) (err error) {
	dir := filepath.Dir(path)
	if opt.Perm == 0 {
		opt.Perm = 0o644
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
				return fmt.Errorf("create directory %s: %w", dir, mkErr)
			}
			tmp, err = os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
		}
		if err != nil {
			return fmt.Errorf("create temporary file for %s: %w", path, err)
		}
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmpName, err)
	}
	if err = tmp.Chmod(opt.Perm); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod %s: %w", tmpName, err)
	}
	if !opt.NoSync {
		if err = tmp.Sync(); err != nil {
			tmp.Close()
			return fmt.Errorf("fsync %s: %w", tmpName, err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmpName, err)
	}
	rename := func() error {
		if err := os.Rename(tmpName, path); err != nil {
			return fmt.Errorf("replace %s: %w", path, err)
		}
		return nil
	}
	if opt.Commit != nil {
		err = opt.Commit(rename)
	} else {
		err = rename()
	}
	if err != nil {
		return err
	}
	if !opt.NoSync {
		syncDir(dir)
	}
	return nil
}

// lostRetries is how many times WithLock runs a read-modify-write again
// after its lock was taken over mid-way.
const lostRetries = 3

// WithLock runs fn while holding path's lock: the one way a state file is
// read, changed and written (fn passes lk.Commit as WriteOptions.Commit).
// When the lock was won from a holder that died or stalled, the temporary
// files it left beside path are removed first; nothing else ever would.
// When the lock was taken over while fn held it, Commit refused the write
// and fn runs again on the fresh file, so no update is lost; after
// lostRetries more losses it fails with LOCK_TIMEOUT.
func WithLock(ctx context.Context, locks *lock.Locker, path string, fn func(lk *lock.Lock) error) error {
	for attempt := 0; ; attempt++ {
		err := locks.With(ctx, path, func(lk *lock.Lock) error {
			if lk.TookOver() {
				RemoveTemps(path)
			}
			return fn(lk)
		})
		if !errors.Is(err, lock.ErrLost) {
			return err
		}
		if attempt == lostRetries {
			return errcode.Wrap(errcode.LockTimeout, err, "update %s", path)
		}
	}
}

// RemoveTemps deletes the temporary files WriteAtomic leaves for path when
// a writer dies between creating and renaming one. Call it only while
// holding path's lock, after a takeover: live writers only create
// temporaries under the lock, so any found then are a dead writer's.
func RemoveTemps(path string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// syncDir makes the rename durable. Errors are ignored: some filesystems
// refuse fsync on directories, and the rename itself has already happened.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Field is one key of a JSON object with its raw value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// ObjectError reports where an object failed to split.
type ObjectError struct {
	Offset int64
	Msg    string
}

func (e *ObjectError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

// SplitObject splits the JSON object in data into its fields, in order,
// without decoding the values. It is the first half of decoding a type that
// must keep unknown keys: known keys are decoded from their raw values, the
// rest are kept verbatim for the rewrite. Raw values alias data.
func SplitObject(data []byte) ([]Field, error) {
	s := scanner{data: data}
	s.ws()
	if !s.eat('{') {
		return nil, s.errf("expected '{'")
	}
	fields := make([]Field, 0, 16)
	s.ws()
	if s.eat('}') {
		return fields, s.end()
	}
	for {
		s.ws()
		kstart := s.pos
		if err := s.str(); err != nil {
			return nil, err
		}
		key, err := unquote(data[kstart:s.pos])
		if err != nil {
			return nil, &ObjectError{Offset: int64(kstart), Msg: "invalid key"}
		}
		s.ws()
		if !s.eat(':') {
			return nil, s.errf("expected ':'")
		}
		s.ws()
		vstart := s.pos
		if err := s.value(0); err != nil {
			return nil, err
		}
		fields = append(fields, Field{Key: key, Value: data[vstart:s.pos]})
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			return fields, s.end()
		}
		return nil, s.errf("expected ',' or '}'")
	}
}

// JoinObject renders fields as a compact JSON object (the encoder re-indents).
func JoinObject(fields []Field) []byte {
	n := 2
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 4
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '{')
	for i, f := range fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendKey(buf, f.Key)
		buf = append(buf, ':')
		buf = append(buf, f.Value...)
	}
	return append(buf, '}')
}

// Known reports whether key is in keys.
func Known(key string, keys []string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

func unquote(q []byte) (string, error) {
	if plainASCII(q[1 : len(q)-1]) {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// plainASCII reports whether b needs no unescaping: printable ASCII and no
// backslash. Anything else goes through encoding/json, which also turns
// invalid UTF-8 into U+FFFD the same way every time.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

func appendKey(buf []byte, key string) []byte {
	if plainASCII([]byte(key)) && !strings.ContainsRune(key, '"') {
		buf = append(buf, '"')
		buf = append(buf, key...)
		return append(buf, '"')
	}
	k, _ := json.Marshal(key)
	return append(buf, k...)
}

type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) errf(msg string) error {
	if s.pos >= len(s.data) {
		return &ObjectError{Offset: int64(s.pos), Msg: "unexpected end of JSON input"}
	}
	return &ObjectError{Offset: int64(s.pos), Msg: msg}
}

func (s *scanner) end() error {
	s.ws()
	if s.pos != len(s.data) {
		return s.errf("trailing data after object")
	}
	return nil
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 512

func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.errf("nesting too deep")
	}
	if s.pos >= len(s.data) {
		return s.errf("expected value")
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		return s.str()
	case c == '{':
		s.pos++
		s.ws()
		if s.eat('}') {
			return nil
		}
		for {
			s.ws()
			if err := s.str(); err != nil {
				return err
			}
			s.ws()
			if !s.eat(':') {
				return s.errf("expected ':'")
			}
			s.ws()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				return nil
			}
			return s.errf("expected ',' or '}'")
		}
	case c == '[':
		s.pos++
		s.ws()
		if s.eat(']') {
			return nil
		}
		for {
			s.ws()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat(']') {
				return nil
			}
			return s.errf("expected ',' or ']'")
		}
	default:
		start := s.pos
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				goto done
			}
			s.pos++
		}
	done:
		lit := s.data[start:s.pos]
		if len(lit) == 0 || !json.Valid(lit) {
			s.pos = start
			return s.errf("invalid literal")
		}
		return nil
	}
}

func (s *scanner) str() error {
	if !s.eat('"') {
		return s.errf("expected string")
	}
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return nil
		case c == '\\':
			if s.pos+1 >= len(s.data) {
				s.pos = len(s.data)
				return s.errf("unterminated string")
			}
			switch s.data[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.data) {
					s.pos = len(s.data)
					return s.errf("unterminated string")
				}
				for _, h := range s.data[s.pos+2 : s.pos+6] {
					if !isHex(h) {
						return s.errf("invalid \\u escape")
					}
				}
				s.pos += 6
			default:
				return s.errf("invalid escape")
			}
		case c < 0x20:
			return s.errf("control character in string")
		default:
			s.pos++
		}
	}
	return s.errf("unterminated string")
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
