// The rules that tell a git temporary a killed writer left from a write in
// progress (gitTemps), on a clock that stands still: a script's steps on a
// loaded machine take seconds, and the 2 s rule (GitTempQuiet) is only
// testable where time does not move.

package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestGitTempRules(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	const host = "verify-test-host"
	type rule struct {
		name     string
		age      time.Duration
		liveLock bool // a live process of this host holds one of agentx's git locks
		held     bool // this process holds the temporary open
		want     Severity
		repair   bool
		message  string
	}
	rules := []rule{
		{"fresh, no writer", time.Second, false, false, Info, false, "1s old: a write in progress"},
		{"past the close-to-rename gap, no writer", GitTempQuiet + time.Second, false, false, Warning, true, "no live process holds agentx's git locks: left by a killed writer"},
		{"a live writer: fresh for five minutes", GitTempAge - time.Second, true, false, Info, false, "a write in progress"},
		{"old, whatever the locks", GitTempAge + time.Second, true, false, Warning, true, "5m1s old that no process holds: left by a killed writer"},
	}
	if runtime.GOOS == "linux" { // open files are read from /proc
		rules = append(rules, rule{"held open, however old", GitTempAge + time.Hour, false, true, Info, false, "a running process holds open"})
	}
	for _, tt := range rules {
		t.Run(tt.name, func(t *testing.T) {
			gitDir := t.TempDir()
			objs := filepath.Join(gitDir, "objects", "ab")
			if err := os.MkdirAll(objs, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(gitDir, "agentx"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.liveLock {
				lockContent := fmt.Sprintf(`{"pid": %d, "host": %q}`, os.Getpid(), host)
				if err := os.WriteFile(filepath.Join(gitDir, "agentx", "checkpoints.lock"), []byte(lockContent), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tmp := filepath.Join(objs, "tmp_obj_x1")
			if err := os.WriteFile(tmp, []byte("half an object"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, now.Add(-tt.age), now.Add(-tt.age)); err != nil {
				t.Fatal(err)
			}
			if tt.held {
				f, err := os.Open(tmp)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
			}
			opt := alone()
			opt.Now, opt.GitDirs, opt.Host = func() time.Time { return now }, []string{gitDir}, host
			rep, err := Run(ws, opt)
			if err != nil {
				t.Fatal(err)
			}
			var found []Problem
			for _, p := range rep.Problems {
				if p.Code == CodeGitTemp {
					found = append(found, p)
				}
			}
			if len(found) != 1 {
				t.Fatalf("%s problems: %+v", CodeGitTemp, found)
			}
			p := found[0]
			if p.Severity != tt.want || (p.Repair != "") != tt.repair || !strings.Contains(p.Message, tt.message) {
				t.Fatalf("got %s %q (repair %q), want %s, repair %v, a message with %q", p.Severity, p.Message, p.Repair, tt.want, tt.repair, tt.message)
			}
		})
	}
}
