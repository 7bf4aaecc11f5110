package atomicfile_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// within fails the test instead of hanging when fn blocks (a FIFO open
// without O_NONBLOCK never returns).
func within(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(testenv.HangGuard):
		t.Fatalf("read blocked for %s", testenv.HangGuard)
	}
}

func TestReadRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		limit      int64
		want       string
		code       errcode.Code
		sentinel   error
	}{
		{"regular", small, 0, "hello", "", nil},
		{"exactly the limit", small, 5, "hello", "", nil},
		{"over the limit", big, 1 << 20, "", errcode.CorruptState, atomicfile.ErrTooLarge},
		{"directory", dir, 0, "", errcode.CorruptState, atomicfile.ErrNotRegular},
		{"device", "/dev/zero", 1 << 20, "", errcode.CorruptState, atomicfile.ErrNotRegular},
		{"missing", filepath.Join(dir, "none"), 0, "", "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			var err error
			within(t, func() { data, err = atomicfile.ReadRegular(tt.path, tt.limit) })
			if tt.sentinel == nil {
				if err != nil || string(data) != tt.want {
					t.Fatalf("got %q, %v", data, err)
				}
				return
			}
			if !errors.Is(err, tt.sentinel) || errcode.CodeOf(err) != tt.code {
				t.Fatalf("err = %v (code %q), want %v with code %q", err, errcode.CodeOf(err), tt.sentinel, tt.code)
			}
		})
	}
}

func TestReadInputNamesTheLimit(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := atomicfile.ReadInput("memory add --file", p, 10)
	if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "limit of 10 bytes") {
		t.Fatalf("err = %v", err)
	}
	if _, err := atomicfile.ReadAllLimited(strings.NewReader("abc"), 3); err != nil {
		t.Fatal(err)
	}
}
