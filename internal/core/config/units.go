package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ByteSize reads TOML sizes: an integer of bytes, or a string such as
// "10MB", "512 KB", "1GiB" (K, M, G are powers of 1024).
type ByteSize int64

// UnmarshalTOML takes an integer or a size string.
func (b *ByteSize) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x <= 0 {
			return fmt.Errorf("size %d must be positive", x)
		}
		*b = ByteSize(x)
		return nil
	case string:
		n, err := parseByteSize(x)
		if err != nil {
			return err
		}
		*b = ByteSize(n)
		return nil
	}
	return fmt.Errorf("size must be an integer of bytes or a string such as \"10MB\" (got %v)", v)
}

func parseByteSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("size %q must be a positive number of bytes, KB, MB or GB (such as \"10MB\")", s)
	}
	return n * mult, nil
}

// Duration reads TOML strings like "2m".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }
