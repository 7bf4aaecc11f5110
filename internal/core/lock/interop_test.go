package lock

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The PowerShell implementation deletes any lock file it cannot parse, even
// a live one. A lock that exists before its content is written can be
// deleted under its holder that way, and PowerShell then takes it too: two
// holders. So a lock file must appear with its content in place. An
// observer process (reading like PowerShell does) polls the lock while this
// process takes and releases it; it must never find it without content.
func TestLockFileAppearsWithItsContent(t *testing.T) {
	t.Parallel()
	if path := os.Getenv("AGENTX_LOCK_OBSERVE"); path != "" {
		observeLock(path)
		return
	}
	target := filepath.Join(t.TempDir(), "issue-1.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockFileAppearsWithItsContent$")
	cmd.Env = append(os.Environ(), "AGENTX_LOCK_OBSERVE="+PathFor(target))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewScanner(stdout)
	if !out.Scan() || out.Text() != "observing" {
		t.Fatalf("observer did not start: %q", out.Text())
	}
	l := New(Options{Wait: 5 * time.Second})
	for i := 0; i < 1000; i++ {
		lk, err := l.Acquire(context.Background(), target)
		if err != nil {
			t.Fatal(err)
		}
		if err := lk.Release(); err != nil {
			t.Fatal(err)
		}
	}
	stdin.Close() // tells the observer to report
	var report string
	for out.Scan() {
		if line := out.Text(); report == "" && line != "observing" {
			report = line
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("observer: %v", err)
	}
	seen, bad, ok := strings.Cut(report, " ")
	if !ok {
		t.Fatalf("observer report %q", report)
	}
	if bad != "0" {
		t.Fatalf("the observer found the lock without its content %s times (in %s reads)", bad, seen)
	}
}

// observeLock reads path until stdin closes, then prints how many reads
// found it and how many of those found no parsable content.
func observeLock(path string) {
	stop := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadByte()
		close(stop)
	}()
	os.Stdout.WriteString("observing\n")
	seen, bad := 0, 0
	for {
		select {
		case <-stop:
			os.Stdout.WriteString(strconv.Itoa(seen) + " " + strconv.Itoa(bad) + "\n")
			return
		default:
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		seen++
		var c Content
		if err != nil || json.Unmarshal(data, &c) != nil || c.Created == "" {
			bad++
		}
	}
}
