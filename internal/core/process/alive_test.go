//go:build unix

package process

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	for _, pid := range []int{0, -1} {
		if Alive(pid) {
			t.Fatalf("Alive(%d) = true; process groups are not processes", pid)
		}
	}
	// A child that has exited and been reaped no longer exists.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Fatalf("reaped child %d reported alive", cmd.Process.Pid)
	}
}

// A process that has exited but whose parent has not reaped it yet (a
// zombie: a killed lock holder or responder child whose parent is slow, or
// an init that reaps late) runs nothing and holds nothing: not alive.
func TestZombieIsNotAlive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("zombies are recognised through /proc")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	// Not reaped until Wait: once /proc says it exited, it is a zombie.
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		data, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.LastIndexByte(data, ')'); i > 0 && len(data) > i+2 && data[i+2] == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never exited")
		}
	}
	if Alive(cmd.Process.Pid) {
		t.Fatalf("zombie %d reported alive", cmd.Process.Pid)
	}
}
