package statebranch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// cleanMargin stands in for the 2 s racy margin, so the tests wait tens
// of milliseconds instead of seconds; it is far above the coarse clock's
// tick (1-10 ms) that file times are taken from, which is what the margin
// is for.
const cleanMargin = 40 * time.Millisecond

// settle waits until every file time taken so far is older than the
// margin (the clean record of the next sync is then not racy).
func settle() { time.Sleep(cleanMargin + 20*time.Millisecond) }

// timedAgent is an agent whose syncs take cleanMargin as the racy margin
// and age as the full-scan age. The timing is the agent's own, not the
// package's, so the tests that shorten it run in parallel with the rest.
func timedAgent(t *testing.T, remote string, age time.Duration) *agent {
	t.Helper()
	a := newAgent(t, remote)
	statebranch.SetCleanTiming(&a.opts, cleanMargin, age)
	return a
}

// cleanAgent is an agent (timedAgent) whose state is on the branch and
// whose last sync wrote a clean record: its next sync, with nothing
// changed, scans nothing. It starts from a copy of its remote and clone
// as its first syncs left them (cleanTemplate): the first pushes 43 files,
// and 16 tests start from it (issue 37). The copy's files are new to the
// next sync, so it scans them all and records them clean.
func cleanAgent(t *testing.T, age time.Duration) (remote string, a *agent) {
	t.Helper()
	sbt.Env(t)
	tm := cleanTemplate(t)
	dir := t.TempDir()
	remote = filepath.Join(dir, "remote.git")
	for _, d := range []string{"remote.git", "clone"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join(tm, d))); err != nil {
			t.Fatalf("copy the clean agent: %v", err)
		}
	}
	pointOrigin(t, filepath.Join(dir, "clone"), filepath.Join(tm, "remote.git"), remote)
	a = agentAt(t, filepath.Join(dir, "clone"))
	statebranch.SetCleanTiming(&a.opts, cleanMargin, age)
	settle()
	if res := a.sync(); res.Unchanged || res.Scanned == 0 {
		t.Fatalf("a sync after the files were copied took the fast path: %+v", res)
	}
	if res := a.sync(); !res.Unchanged || res.Scanned != 0 || res.Fetches != 1 || res.Commit != "" {
		t.Fatalf("nothing changed: want no file scanned and one fetch, got %+v", res)
	}
	return remote, a
}

var cleanOnce = &template{what: "the clean agent's template"}

// cleanTemplate makes, once per test binary, the remote and clone
// cleanAgent starts from: the clone's state written and synced.
func cleanTemplate(t *testing.T) string {
	return cleanOnce.dir(t, func(base string) {
		remote := filepath.Join(base, "remote.git")
		if err := os.CopyFS(remote, os.DirFS(sbt.Remote(t))); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(base, "clone"), os.DirFS(sbt.Clone(t, remote))); err != nil {
			t.Fatal(err)
		}
		a := agentAt(t, filepath.Join(base, "clone"))
		statebranch.SetCleanTiming(&a.opts, cleanMargin, time.Hour)
		a.write(ledger1, `{"records":[{"id":"CLR-1-001","v":"a"}]}`+"\n")
		a.write("memory/issue-1.json", sbt.Records("obs-1"))
		a.write("memory/archive/issue-1-archived.json", sbt.Records("obs-0"))
		for i := 2; i <= 40; i++ {
			a.write(fmt.Sprintf("state/clarifications/issue-%d.json", i), sbt.Records(fmt.Sprintf("CLR-%d-001", i)))
		}
		a.appendTrail("request", 2)
		a.sync()
		// The first sync's files changed within the margin: it left no
		// record the next one takes (checked here once; each copy's next
		// sync scans anyway, its files being new).
		settle()
		if res := a.sync(); res.Unchanged || res.Scanned == 0 {
			t.Fatalf("a sync after files changed within the margin took the fast path: %+v", res)
		}
	})
}

// replace writes content to rel the way agentx writers do: a new file
// renamed over the old one.
func (a *agent) replace(rel, content string) {
	a.t.Helper()
	p := a.path(rel)
	if err := os.WriteFile(p+".new", []byte(content), 0o644); err != nil {
		a.t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		a.t.Fatal(err)
	}
}

// TestUnchangedSyncMissesNoChange: once a sync has recorded the state as
// clean, every kind of change made after it is seen by the next sync,
// including a same-size rewrite within the same second (the directory's
// times, not the file's size, tell) and one made right after the record.
func TestUnchangedSyncMissesNoChange(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, a *agent, remote string)
		check  func(t *testing.T, a *agent, remote string, res *statebranch.Result)
	}{
		{"ledger replaced, same size, same second", func(t *testing.T, a *agent, _ string) {
			a.replace(ledger1, `{"records":[{"id":"CLR-1-001","v":"b"}]}`+"\n")
		}, pushed(ledger1)},
		{"ledger replaced at once, no settling", func(t *testing.T, a *agent, _ string) {
			// Another write right after the record: same second, same size.
			a.replace(ledger1, `{"records":[{"id":"CLR-1-001","v":"c"}]}`+"\n")
		}, pushed(ledger1)},
		{"ledger rewritten in place under its lock file (the reference tools' way)", func(t *testing.T, a *agent, _ string) {
			p := a.path(ledger1)
			if err := os.WriteFile(p+".lock", []byte(`{"pid":1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(`{"records":[{"id":"CLR-1-001","v":"t"}]}` + "\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p + ".lock"); err != nil {
				t.Fatal(err)
			}
		}, pushed(ledger1)},
		{"new ledger", func(t *testing.T, a *agent, _ string) {
			a.write("state/clarifications/issue-77.json", sbt.Records("CLR-77-001"))
		}, pushed("state/clarifications/issue-77.json")},
		{"ledger deleted", func(t *testing.T, a *agent, _ string) {
			if err := os.Remove(a.path(ledger1)); err != nil {
				t.Fatal(err)
			}
		}, restored(ledger1)},
		{"git clean of the ledgers' directory", func(t *testing.T, a *agent, _ string) {
			if err := os.RemoveAll(a.path("state/clarifications")); err != nil {
				t.Fatal(err)
			}
		}, restored("state/clarifications/issue-7.json")},
		{"memory file added", func(t *testing.T, a *agent, _ string) {
			a.write("memory/issue-9.json", sbt.Records("obs-9"))
		}, pushed("memory/issue-9.json")},
		{"archive file replaced", func(t *testing.T, a *agent, _ string) {
			a.replace("memory/archive/issue-1-archived.json", sbt.Records("obs-0", "obs-00"))
		}, pushed("memory/archive/issue-1-archived.json")},
		{"metrics directory created", func(t *testing.T, a *agent, _ string) {
			a.write("state/metrics/0123456789abcdef-2026-W01.json", "{}\n")
		}, func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
			if res.Unchanged || res.Scanned == 0 {
				t.Errorf("not scanned: %+v", res)
			}
		}},
		{"trail appended in place", func(t *testing.T, a *agent, _ string) {
			a.appendTrail("answer", 1)
		}, func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
			_, _, lines := branchTrail(t, remote, res.Trail)
			if lines != 3 || !res.Pushed {
				t.Errorf("trail on the branch: %d lines, want 3 (%+v)", lines, res)
			}
		}},
		{"remote changed by another clone", func(t *testing.T, a *agent, remote string) {
			b := timedAgent(t, remote, time.Hour)
			b.sync()
			b.replace("state/clarifications/issue-5.json", sbt.Records("CLR-5-001", "CLR-5-002"))
			b.sync()
		}, func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
			if got := sbt.IDs(t, a.read("state/clarifications/issue-5.json")); !slices.Equal(got, []string{"CLR-5-001", "CLR-5-002"}) {
				t.Errorf("pulled ledger: %v", got)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case waits out the margin twice: beside the others.
			t.Parallel()
			remote, a := cleanAgent(t, time.Hour)
			if tc.name != "ledger replaced at once, no settling" {
				settle()
			}
			tc.change(t, a, remote)
			res := a.sync()
			if res.Unchanged {
				t.Fatalf("the change was missed: %+v", res)
			}
			tc.check(t, a, remote, res)
		})
	}
}

// pushed checks that the branch holds the local copy of rel.
func pushed(rel string) func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
	return func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
		if got, want := string(remoteFile(t, remote, rel)), string(a.read(rel)); got != want {
			t.Errorf("branch has %s = %q, local %q", rel, got, want)
		}
	}
}

// restored checks that rel is back from the branch.
func restored(rel string) func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
	return func(t *testing.T, a *agent, remote string, res *statebranch.Result) {
		if !slices.Contains(res.Restored, rel) {
			t.Errorf("%s not restored: %+v", rel, res)
		}
		if _, err := os.Stat(filepath.Join(a.dir, ".agentx", filepath.FromSlash(rel))); err != nil {
			t.Error(err)
		}
	}
}

// TestUnchangedSyncRewriteInPlace: a rewrite in place (truncate and
// write, same size) changes no directory; it is pushed by the first sync
// once the clean record is older than the full-scan age.
func TestUnchangedSyncRewriteInPlace(t *testing.T) {
	t.Parallel()
	// The record's age is checked against a short full-scan age only
	// once it has been outlived for sure: cleanAgent's own check that a
	// sync right after the record takes the fast path must not depend on
	// how quickly a loaded machine gets to it.
	remote, a := cleanAgent(t, time.Hour)
	statebranch.SetCleanTiming(&a.opts, cleanMargin, 200*time.Millisecond)
	settle()
	f, err := os.OpenFile(a.path(ledger1), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"records":[{"id":"CLR-1-001","v":"z"}]}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if res := a.sync(); res.Unchanged || !res.Pushed {
		t.Fatalf("a record past its age stood in for a scan: %+v", res)
	}
	pushed(ledger1)(t, a, remote, nil)
}

// TestUnchangedSyncIsConstant: with nothing changed, a sync of 40 or 400
// ledgers looks at no state file (the scan's stat of every file was 6.8x
// git's fetch and push at 10,000 ledgers).
func TestUnchangedSyncIsConstant(t *testing.T) {
	t.Parallel()
	_, a := cleanAgent(t, time.Hour)
	for i := 41; i <= 400; i++ {
		a.write(fmt.Sprintf("state/clarifications/issue-%d.json", i), sbt.Records(fmt.Sprintf("CLR-%d-001", i)))
	}
	a.sync()
	settle()
	if res := a.sync(); res.Scanned < 400 {
		t.Fatalf("full scan: %+v", res)
	}
	if res := a.sync(); !res.Unchanged || res.Scanned != 0 {
		t.Fatalf("400 ledgers, nothing changed: %+v", res)
	}
}

// TestUnchangedPullKeepsTheSyncRecord: a hook's pull (no trail) and a
// whole sync keep records of their own, so alternating them stays on the
// fast path, and a pull that brings a change still invalidates the
// other's record (the synced ref moved).
func TestUnchangedPullKeepsTheSyncRecord(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote, a := cleanAgent(t, time.Hour)
	pull := func(o *statebranch.Options) { o.PullOnly = true }
	a.sync(pull)
	settle()
	a.sync(pull)
	if res := a.sync(pull); !res.Unchanged {
		t.Fatalf("pull, nothing changed: %+v", res)
	}
	if res := a.sync(); !res.Unchanged {
		t.Fatalf("sync after a pull, nothing changed: %+v", res)
	}
	b := timedAgent(t, remote, time.Hour)
	b.sync()
	b.replace("state/clarifications/issue-5.json", sbt.Records("CLR-5-001", "CLR-5-009"))
	b.sync()
	if res := a.sync(pull); res.Unchanged || len(res.Written) != 1 {
		t.Fatalf("pull of a change: %+v", res)
	}
	if res := a.sync(); res.Unchanged {
		t.Fatalf("the sync's record outlived the pull that moved the base: %+v", res)
	}
}
