package statebranch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// appendTrail appends n audit lines to the agent's local trail through
// the real appender.
func (a *agent) appendTrail(op string, n int) {
	a.t.Helper()
	tr := &audit.Trail{Dir: a.path("state"), Clock: clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	for i := 0; i < n; i++ {
		if err := tr.Append(context.Background(), audit.Entry{Actor: "engineer", Op: op, Issue: 1, IDs: []string{"CLR-1-001"}}); err != nil {
			a.t.Fatal(err)
		}
	}
}

// writerID is the agent's writer id.
func (a *agent) writerID() string {
	a.t.Helper()
	data, err := os.ReadFile(a.path("state/writer-id"))
	if err != nil {
		a.t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// branchTrail extracts the trail files of dir on the remote's state branch
// into a directory and checks their chain there.
func branchTrail(t *testing.T, remote, dir string) (files map[string]string, findings []audit.Finding, lines int) {
	t.Helper()
	out := t.TempDir()
	files = map[string]string{}
	for _, p := range strings.Fields(sbt.Git(t, remote, "ls-tree", "--name-only", "refs/heads/agentx/state:"+dir)) {
		if !audit.IsFileName(p) {
			continue
		}
		content := string(remoteFile(t, remote, dir+"/"+p))
		files[p] = content
		sbt.WriteFile(t, filepath.Join(out, p), content)
	}
	findings, lines, err := audit.Check(out)
	if err != nil {
		t.Fatal(err)
	}
	return files, findings, lines
}

func TestEachClonePushesItsTrailUnderItsOwnPath(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	a.appendTrail("clarify.request", 2)
	b.appendTrail("memory.add", 3)
	ra := a.sync()
	rb := b.sync()
	idA, idB := a.writerID(), b.writerID()
	if idA == idB || len(idA) != 16 {
		t.Fatalf("writer ids %q and %q", idA, idB)
	}
	if ra.Trail != statebranch.TrailDir(idA) || !ra.Pushed || !rb.Pushed {
		t.Fatalf("a: %+v\nb: %+v", ra, rb)
	}
	// The Action appends its own trail on the branch meanwhile.
	action := sbt.Clone(t, remote)
	sbt.Git(t, action, "checkout", "--quiet", "agentx/state")
	actionTrail := `{"time":"2026-01-02T03:04:05.000Z","actor":"octo","op":"clarify.answer","prev":"","hash":"sha256:x"}` + "\n"
	sbt.WriteFile(t, filepath.Join(action, "state/audit.jsonl"), actionTrail)
	sbt.Git(t, action, "add", "state/audit.jsonl")
	sbt.Git(t, action, "commit", "--quiet", "-m", "action")
	sbt.Git(t, action, "push", "--quiet", "origin", "agentx/state")

	a.appendTrail("clarify.answer", 1)
	a.sync()
	b.sync()
	for _, ag := range []*agent{a, b} {
		dir := statebranch.TrailDir(ag.writerID())
		files, findings, lines := branchTrail(t, remote, dir)
		local, err := os.ReadFile(ag.path("state/audit.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files["audit.jsonl"] != string(local) {
			t.Errorf("%s on the branch = %q, local %q", dir, files, local)
		}
		if len(findings) != 0 || lines != 3 {
			t.Errorf("%s: %d lines, findings %+v", dir, lines, findings)
		}
	}
	// The Action's trail passed through both syncs untouched, and no
	// trail came down into a clone's own.
	if got := string(remoteFile(t, remote, "state/audit.jsonl")); got != actionTrail {
		t.Errorf("the Action's trail = %q", got)
	}
	for _, ag := range []*agent{a, b} {
		entries, _ := os.ReadDir(ag.path("state"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"audit.jsonl", "clarifications", "writer-id"}; !slices.Equal(names, want) {
			t.Errorf("%s state/ = %v, want %v", ag.dir, names, want)
		}
	}
	files := strings.Fields(sbt.Git(t, remote, "ls-tree", "-r", "--name-only", "agentx/state"))
	want := []string{"state/audit.d/" + idA + "/audit.jsonl", "state/audit.d/" + idB + "/audit.jsonl", "state/audit.jsonl", ledger1}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("branch files %v, want %v", files, want)
	}

	// Nothing new: no commit, no push.
	tip := sbt.Git(t, remote, "rev-parse", "agentx/state")
	for _, ag := range []*agent{a, b} {
		if res := ag.sync(); res.Commit != "" || res.Pushed || len(res.Conflicts) != 0 {
			t.Errorf("a re-sync with nothing new: %+v", res)
		}
	}
	if got := sbt.Git(t, remote, "rev-parse", "agentx/state"); got != tip {
		t.Errorf("the branch moved on a re-sync with nothing new")
	}
	sbt.Git(t, a.dir, "fsck", "--no-progress", "--strict")
}

func TestTrailRotationAndTornLine(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.appendTrail("memory.add", 2)
	a.sync()
	dir := statebranch.TrailDir(a.writerID())
	// A line being appended when the sync reads is left for the next one.
	f, err := os.OpenFile(a.path("state/audit.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"time":"2026-01-0`); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if res := a.sync(); res.Commit != "" {
		t.Errorf("a torn last line made a commit: %+v", res)
	}
	// The month turns: audit.jsonl becomes audit-2026-01.jsonl and a new
	// audit.jsonl continues the chain; both land.
	full, _ := os.ReadFile(a.path("state/audit.jsonl"))
	if err := os.WriteFile(a.path("state/audit.jsonl"), full[:strings.LastIndexByte(string(full), '\n')+1], 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &audit.Trail{Dir: a.path("state"), Clock: clock.NewFake(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))}
	if err := tr.Append(context.Background(), audit.Entry{Actor: "x", Op: "memory.add"}); err != nil {
		t.Fatal(err)
	}
	if res := a.sync(); res.Commit == "" {
		t.Fatalf("rotation not pushed: %+v", res)
	}
	files, findings, lines := branchTrail(t, remote, dir)
	if len(files) != 2 || files["audit-2026-01.jsonl"] == "" || lines != 3 || len(findings) != 0 {
		t.Errorf("files %v, %d lines, findings %+v", files, lines, findings)
	}
	// A local trail deleted by hand stays on the branch.
	for name := range files {
		if err := os.Remove(a.path("state/" + name)); err != nil {
			t.Fatal(err)
		}
	}
	if res := a.sync(); res.Commit != "" {
		t.Errorf("deleting the local trail changed the branch: %+v", res)
	}
	if again, _, _ := branchTrail(t, remote, dir); len(again) != 2 {
		t.Errorf("branch trail after a local deletion: %v", again)
	}
}

// The current file rotates by size too, maybe more than once between two
// syncs: the branch's copy of audit.jsonl is then the start of an older
// rotated file, and everything still lands as one chain.
func TestTrailRotatedBySizeBetweenSyncs(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.appendTrail("memory.add", 1)
	a.sync()
	tr := &audit.Trail{Dir: a.path("state"), RotateSize: 400, Clock: clock.NewFake(time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC))}
	for range 7 {
		if err := tr.Append(context.Background(), audit.Entry{Actor: "engineer", Op: "clarify.answer", Issue: 1, IDs: []string{"CLR-1-001"}}); err != nil {
			t.Fatal(err)
		}
	}
	local, _ := audit.Files(a.path("state"))
	if len(local) < 3 {
		t.Fatalf("no rotation by size: %v", local)
	}
	if res := a.sync(); res.Commit == "" || len(res.Conflicts) != 0 {
		t.Fatalf("rotated trail: %+v", res)
	}
	files, findings, lines := branchTrail(t, remote, statebranch.TrailDir(a.writerID()))
	if len(files) != len(local) || lines != 8 || len(findings) != 0 {
		t.Errorf("branch: %d files (local %d), %d lines, findings %+v", len(files), len(local), lines, findings)
	}
}

func TestCopiedWriterIDIsReportedNotOverwritten(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	a.appendTrail("memory.add", 1)
	a.sync()
	// b's .agentx/state/ was copied from a (writer id included), then
	// each went its way.
	sbt.WriteFile(t, b.path("state/writer-id"), a.writerID()+"\n")
	b.appendTrail("clarify.request", 2)
	rb := b.sync()
	if len(rb.Conflicts) != 1 || rb.Conflicts[0].Path != statebranch.TrailDir(a.writerID())+"/audit.jsonl" || !strings.Contains(rb.Conflicts[0].Reason, "writer-id") {
		t.Fatalf("b's sync with a diverging copy under a's id: %+v", rb)
	}
	// a goes on extending its own trail; b stays stopped, a's lines intact.
	a.appendTrail("memory.add", 1)
	if res := a.sync(); len(res.Conflicts) != 0 || !res.Pushed {
		t.Fatalf("a: %+v", res)
	}
	if rb := b.sync(); len(rb.Conflicts) != 1 {
		t.Errorf("b again: %+v", rb)
	}
	local, _ := os.ReadFile(a.path("state/audit.jsonl"))
	if got := string(remoteFile(t, remote, statebranch.TrailDir(a.writerID())+"/audit.jsonl")); got != string(local) {
		t.Errorf("branch copy %q, a's %q", got, local)
	}
}

func TestPullMakesNoWriterID(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.appendTrail("memory.add", 1)
	a.sync(func(o *statebranch.Options) { o.PullOnly = true })
	if _, err := os.Stat(a.path("state/writer-id")); !os.IsNotExist(err) {
		t.Errorf("a pull made a writer id (%v)", err)
	}
	sbt.WriteFile(t, a.path("state/writer-id"), "../../x\n")
	if _, err := statebranch.Sync(context.Background(), a.opts); err == nil || !strings.Contains(err.Error(), "writer id") {
		t.Errorf("a writer-id naming a path: %v", err)
	}
}

// A trail is only ever extended on the branch: a local file truncated,
// edited or restored from an older copy is reported and the branch keeps
// every line it had.
func TestTrailThatShrankOrChangedIsNotPushed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		change func(data string) string
	}{
		{"truncated", func(data string) string { return data[:strings.IndexByte(data, '\n')+1] }},
		{"a line edited", func(data string) string { return strings.Replace(data, `"op":"memory.add"`, `"op":"memory.remove"`, 1) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sbt.Env(t)
			remote := sbt.Remote(t)
			a := newAgent(t, remote)
			a.appendTrail("memory.add", 3)
			a.sync()
			trail := statebranch.TrailDir(a.writerID()) + "/audit.jsonl"
			pushed := string(remoteFile(t, remote, trail))
			sbt.WriteFile(t, a.path("state/audit.jsonl"), tt.change(pushed))
			a.appendTrail("memory.add", 1)
			for range 2 { // reported again at every sync until a person acts
				res := a.sync()
				if len(res.Conflicts) != 1 || res.Conflicts[0].Path != trail || !strings.Contains(res.Conflicts[0].Reason, "no longer holds") {
					t.Fatalf("sync: %+v", res)
				}
			}
			if got := string(remoteFile(t, remote, trail)); got != pushed {
				t.Errorf("the branch's trail changed:\n%q\nwas\n%q", got, pushed)
			}
			// A new writer id goes on under a new directory; the old one stays.
			if err := os.Remove(a.path("state/writer-id")); err != nil {
				t.Fatal(err)
			}
			if res := a.sync(); len(res.Conflicts) != 0 || !res.Pushed {
				t.Fatalf("sync under a new id: %+v", res)
			}
			if got := string(remoteFile(t, remote, trail)); got != pushed {
				t.Errorf("the old writer's trail changed")
			}
		})
	}
}
