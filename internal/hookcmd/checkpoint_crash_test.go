package hookcmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCheckpointRestoreSIGKILL kills a real `checkpoint restore` process
// at a different point each time (a test pause after each restored file
// spreads the restore over time): every durable file is then either the
// version before the restore or the restored one, never torn, and the
// checkpoint of the state before the restore exists.
func TestCheckpointRestoreSIGKILL(t *testing.T) {
	t.Parallel()
	const files = restoreFiles
	for round, killAfter := range []time.Duration{5 * time.Millisecond, 40 * time.Millisecond, 90 * time.Millisecond, 150 * time.Millisecond, 260 * time.Millisecond} {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			root := t.TempDir()
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "HOME="+root, "GIT_CONFIG_NOSYSTEM=1", "AGENTX_ROOT=")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			// The workspace of 12 files with a checkpoint "old" of them:
			// made once (restoreFixture), copied for each round.
			restoreFixture.copyTo(t, root)
			id := restoreFixtureID
			path := func(i int) string { return restoreFilePath(root, i) }
			version := restoreFileVersion
			for i := range files {
				if err := os.WriteFile(path(i), version("new", i), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("agentx-hook", "checkpoint", "restore", id)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "AGENTX_TEST_RESTORE_PAUSE_MS=20", "AGENTX_ROOT=")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(killAfter)
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			restored := 0
			for i := range files {
				data, err := os.ReadFile(path(i))
				if err != nil {
					t.Fatalf("file %d: %v", i, err)
				}
				switch {
				case bytes.Equal(data, version("old", i)):
					restored++
				case bytes.Equal(data, version("new", i)):
				default:
					t.Fatalf("file %d is neither version: %.40q", i, data)
				}
			}
			list := run("agentx-hook", "checkpoint", "list")
			if restored > 0 && !strings.Contains(list, "before checkpoint restore "+id) {
				t.Fatalf("%d files restored but no checkpoint of the state before:\n%s\n%s", restored, list, out.String())
			}
			t.Logf("killed after %v: %d of %d files restored", killAfter, restored, files)
			// The restore can be run again to the end (the dead process's
			// locks are taken over).
			if restored < files {
				cmd := exec.Command("agentx-hook", "checkpoint", "restore", id)
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "AGENTX_ROOT=", "AGENTX_LOCK_STALE_MS=1")
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("restore again: %v\n%s", err, b)
				}
				for i := range files {
					if data, _ := os.ReadFile(path(i)); !bytes.Equal(data, version("old", i)) {
						t.Fatalf("file %d not restored by the second run", i)
					}
				}
			}
		})
	}
}

// restoreFixture is a git repository with agentx initialised, twelve
// archive files in their "old" version and a checkpoint of them
// (restoreFixtureID): what each round of TestCheckpointRestoreSIGKILL
// made with git init, agentx-hook init and checkpoint create.
var (
	restoreFixtureID string
	restoreFixture   = &fixture{name: "restore", build: func(dir string) error {
		run := func(args ...string) (string, error) {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "AGENTX_ROOT=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				return "", fmt.Errorf("%v: %v\n%s", args, err, out)
			}
			return string(out), nil
		}
		if _, err := run("git", "init", "-q"); err != nil {
			return err
		}
		if _, err := run("agentx-hook", "init"); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(restoreFilePath(dir, 0)), 0o755); err != nil {
			return err
		}
		for i := range restoreFiles {
			if err := os.WriteFile(restoreFilePath(dir, i), restoreFileVersion("old", i), 0o644); err != nil {
				return err
			}
		}
		out, err := run("agentx-hook", "checkpoint", "create", "-m", "old")
		if err != nil {
			return err
		}
		restoreFixtureID = strings.Fields(out)[0]
		return nil
	}}
)

// restoreFiles is how many files the restore of TestCheckpointRestoreSIGKILL
// writes back.
const restoreFiles = 12

func restoreFilePath(root string, i int) string {
	return filepath.Join(root, ".agentx", "memory", "archive", fmt.Sprintf("issue-%d.json", i+1))
}

func restoreFileVersion(v string, i int) []byte {
	return []byte(fmt.Sprintf("[%q]\n%s", v, strings.Repeat("x", 4096*(i+1))))
}
