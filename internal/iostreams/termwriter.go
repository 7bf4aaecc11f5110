// Package iostreams owns what a command prints through: whether stdout and
// stderr are terminals, whether they take colour (NO_COLOR, TERM=dumb),
// and the filter that keeps escape sequences written by agents and
// commenters from reaching a terminal. The commands' printers write
// through it; --json documents go around the filter (Raw).
package iostreams

import (
	"io"
	"os"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/render"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// TermWriter is what every human-readable printer writes through: agents
// and commenters wrote the bodies, memory content and names we print, and
// a terminal obeys the escape sequences it is sent (a window title, a
// cleared screen, OSC 52 setting the clipboard). It removes them whole
// (sanitize.Terminal), keeping only our own styling when styling is on.
// A sequence or character split between two writes is held back until it
// is whole. --json documents bypass it (Raw): JSON escapes control
// characters itself, and a document must keep its data as stored.
type TermWriter struct {
	raw   io.Writer
	keep  []string // the styling sequences passed through (none without colour)
	carry []byte
}

// maxCarry bounds what is held back: an escape sequence longer than this
// is not one a terminal would take anyway.
const maxCarry = 4 << 10

func NewTermWriter(w io.Writer, color bool) *TermWriter {
	t := &TermWriter{raw: w}
	if color {
		t.keep = render.Sequences()
	}
	return t
}

func (t *TermWriter) Write(p []byte) (int, error) {
	data := string(t.carry) + string(p)
	t.carry = t.carry[:0]
	if n := sanitize.IncompleteTail(data); n > 0 && n <= maxCarry {
		t.carry = append(t.carry, data[len(data)-n:]...)
		data = data[:len(data)-n]
	}
	if _, err := io.WriteString(t.raw, t.clean(data)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back (sanitised as it is: an unfinished
// sequence at the very end is dropped, as Terminal drops it).
func (t *TermWriter) Flush() error {
	if len(t.carry) == 0 {
		return nil
	}
	s := t.clean(string(t.carry))
	t.carry = t.carry[:0]
	_, err := io.WriteString(t.raw, s)
	return err
}

// clean is sanitize.Terminal on s, but for our own styling sequences.
func (t *TermWriter) clean(s string) string {
	if len(t.keep) == 0 || !strings.Contains(s, "\x1b[") {
		return sanitize.Terminal(s)
	}
	var b strings.Builder
	for {
		i, seq := t.nextKept(s)
		if i < 0 {
			b.WriteString(sanitize.Terminal(s))
			return b.String()
		}
		b.WriteString(sanitize.Terminal(s[:i]))
		b.WriteString(seq)
		s = s[i+len(seq):]
	}
}

// nextKept finds the first of our styling sequences in s.
func (t *TermWriter) nextKept(s string) (int, string) {
	for off := 0; ; {
		i := strings.Index(s[off:], "\x1b[")
		if i < 0 {
			return -1, ""
		}
		i += off
		for _, seq := range t.keep {
			if strings.HasPrefix(s[i:], seq) {
				return i, seq
			}
		}
		off = i + 2
	}
}

// Raw is w without the terminal filter, for JSON documents.
func Raw(w io.Writer) io.Writer {
	if t, ok := w.(*TermWriter); ok {
		_ = t.Flush()
		return t.raw
	}
	return w
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Color reports whether output to a terminal (tty) takes colour: never
// when NO_COLOR is set or TERM is dumb.
func Color(tty bool, getenv func(string) string) bool {
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}
