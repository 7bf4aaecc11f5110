package statebranch_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
	"github.com/agentx-dev/agentx/internal/testenv"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv("STATEBRANCH_APPENDER"); dir != "" {
		n, _ := strconv.Atoi(os.Getenv("STATEBRANCH_LINES"))
		tr := &audit.Trail{Dir: dir}
		for i := 0; i < n; i++ {
			if err := tr.Append(context.Background(), audit.Entry{Actor: "engineer", Op: "memory.add", Issue: i}); err != nil {
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	// Most tests here wait on the git processes a sync starts.
	testenv.RaiseParallel(4)
	os.Exit(testenv.Main(m))
}

// Another process appends to the trail while syncs push it: every commit
// pushed holds lines whose chain verifies, and once the appender is done
// the branch holds the local trail exactly. (A line half written when the
// sync reads is rare here, one write(2) each; TestTrailRotationAndTornLine
// makes one.)
func TestTrailPushedWhileAnotherProcessAppends(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.appendTrail("memory.add", 1)
	a.sync()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STATEBRANCH_APPENDER="+a.path("state"), "STATEBRANCH_LINES=2000")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	check := func(commit string) int {
		t.Helper()
		tree, err := statebranch.OpenTree(a.dir, commit)
		if err != nil {
			t.Fatal(err)
		}
		findings, lines, err := audit.CheckFS(tree, statebranch.TrailDir(a.writerID()))
		if err != nil || len(findings) != 0 {
			t.Fatalf("commit %s: %v %+v", commit, err, findings)
		}
		return lines
	}
	commits := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("appender: %v", err)
			}
			running = false
		default:
		}
		if res := a.sync(); res.Commit != "" {
			commits++
			check(res.Commit)
		}
	}
	res := a.sync()
	local, err := os.ReadFile(a.path("state/audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(remoteFile(t, remote, statebranch.TrailDir(a.writerID())+"/audit.jsonl")); got != string(local) {
		t.Fatalf("branch trail is not the local one (%d against %d bytes)", len(got), len(local))
	}
	if n := check(sbt.Git(t, remote, "rev-parse", "agentx/state")); n != 2001 {
		t.Errorf("%d lines on the branch, want 2001", n)
	}
	t.Logf("%d commits while appending, last %+v", commits, res.Commit)
}
