package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestCheckShape(t *testing.T) {
	deep := "x = " + strings.Repeat("{a = ", 2000) + "1" + strings.Repeat("}", 2000) + "\n"
	tests := []struct {
		name, text string
		ok         bool
	}{
		{"plain", "[memory]\nenabled = true\nlist = [[1, 2], [3]]\n", true},
		{"brackets in strings and comments", "a = \"[[[[[[[[[[[[[[[[[[[[\"\nb = '{{{{{{{{{{{{{{{{{{{{{'\n# [[[[[[[[[[[[[[[[[[[[[[[[\nc = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[\n\"\"\"\n", true},
		{"nested inline tables", deep, false},
		{"too large", "# " + strings.Repeat("x", MaxFileBytes), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkShape("agentx.toml", []byte(tt.text))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && (!errcode.Is(err, errcode.CorruptState) || !strings.Contains(err.Error(), "agentx.toml")) {
				t.Fatalf("err = %v, want CORRUPT_STATE naming the file", err)
			}
		})
	}
}

// The 56 KB file of the report took 7 s and 2.7 GB; refused on its shape,
// it must fail at once.
func TestParseConfigRefusesDeepNestingQuickly(t *testing.T) {
	text := "x = " + strings.Repeat("{a = ", 11000) + "1" + strings.Repeat("}", 11000) + "\n"
	start := time.Now()
	if _, err := ParseConfig("agentx.toml", []byte(text)); err == nil {
		t.Fatal("deeply nested config accepted")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("refusal took %v", d)
	}
}

func TestLoadRefusesFIFOConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentx.toml")
	if err := syscall.Mkfifo(cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(cfg, filepath.Join(dir, "workflows")); done <- err }()
	select {
	case err := <-done:
		if !errcode.Is(err, errcode.CorruptState) {
			t.Fatalf("err = %v, want CORRUPT_STATE", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO agentx.toml")
	}
	_ = os.Remove(cfg)
}
