//go:build unix

package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/testenv"
)

func TestLoadRefusesFIFOConfig(t *testing.T) {
	t.Parallel()
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
	case <-time.After(testenv.HangGuard):
		t.Fatal("Load blocked on a FIFO agentx.toml")
	}
	_ = os.Remove(cfg)
}
