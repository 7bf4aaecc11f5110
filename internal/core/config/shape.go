package config

import "github.com/agentx-dev/agentx/internal/core/errcode"

// MaxFileBytes bounds agentx.toml and each workflow file; MaxNesting bounds
// how deeply arrays and inline tables nest. The TOML decoder's cost grows
// steeply with nesting (a 56 KB file of nested inline tables took 7 s and
// 2.7 GB), and a hook must start in milliseconds, so both are checked on
// the raw bytes before the decoder sees them. Real files are a few KB deep
// two or three levels.
const (
	MaxFileBytes = 1 << 20
	MaxNesting   = 16
	// MaxKeyParts bounds the parts of one dotted key or table header
	// (a.b.c has 3): the decoder's cost grows with them too (a 40 KB
	// `k.k.k...= 1` took 12-16 s and 5.3 GB in every command and hook).
	MaxKeyParts = 32
)

// checkShape refuses a configuration file that is too large or nests too
// deeply, as CORRUPT_STATE naming the file and the limit. It scans strings
// and comments so brackets inside them do not count.
func checkShape(path string, data []byte) error {
	if len(data) > MaxFileBytes {
		return errcode.New(errcode.CorruptState, "%s is %d bytes, over the limit of %d for a configuration file", path, len(data), MaxFileBytes)
	}
	depth, dots, line := 0, 0, 1
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			dots = 0
		case '.':
			// A dot between digits is a number's or a time's (1.5,
			// 12:30:00.5); any other outside strings joins key parts.
			if i > 0 && i+1 < len(data) && isDigit(data[i-1]) && isDigit(data[i+1]) {
				break
			}
			if dots++; dots >= MaxKeyParts {
				return errcode.New(errcode.CorruptState, "%s line %d: a dotted key or table name of more than %d parts", path, line, MaxKeyParts)
			}
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			line++
			dots = 0
		case '"', '\'':
			start := i
			i = skipString(data, i)
			line += countNewlines(data[start:min(i+1, len(data))])
		case '[', '{':
			depth++
			if depth > MaxNesting {
				return errcode.New(errcode.CorruptState, "%s nests arrays or tables more than %d deep (at byte %d)", path, MaxNesting, i)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string starting at
// i (basic or literal, single- or multi-line). An unterminated string runs
// to the end; the decoder reports it.
func skipString(data []byte, i int) int {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	if multi {
		i += 3
	} else {
		i++
	}
	for ; i < len(data); i++ {
		c := data[i]
		if c == '\\' && q == '"' {
			i++
			continue
		}
		if c != q {
			if c == '\n' && !multi {
				return i
			}
			continue
		}
		if !multi {
			return i
		}
		if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
			return i + 2
		}
	}
	return len(data) - 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func countNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
