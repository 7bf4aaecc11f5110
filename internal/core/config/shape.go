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
)

// checkShape refuses a configuration file that is too large or nests too
// deeply, as CORRUPT_STATE naming the file and the limit. It scans strings
// and comments so brackets inside them do not count.
func checkShape(path string, data []byte) error {
	if len(data) > MaxFileBytes {
		return errcode.New(errcode.CorruptState, "%s is %d bytes, over the limit of %d for a configuration file", path, len(data), MaxFileBytes)
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(data, i)
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
