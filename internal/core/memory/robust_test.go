// The store against damaged files and crashes: a corrupt manifest or issue
// file (answered around, reported, kept aside), a crash between the issue
// and the manifest write and its marker (repaired at once when its writer
// is dead), and checkAgree, which the other tests use to check the manifest
// lists exactly what the issue files hold.

package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memindex"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// A search over a corrupt manifest answers from the issue files, reports
// it, and leaves the file as it is: readers never write (issue 14); the
// next writer or `memory rebuild` keeps it aside and rebuilds it.
func TestCorruptManifestIsRebuilt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, warns := newTestStore(t)
	copyOld(t, s)
	corrupt := []byte(`{"version":1,"entries":[{"id":`)
	if err := os.WriteFile(s.ManifestPath(), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Search(ctx, Query{Text: "json files"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "searched the issue files instead") {
		t.Fatalf("warnings: %q", *warns)
	}
	if m, _ := os.ReadFile(s.ManifestPath()); !bytes.Equal(m, corrupt) {
		t.Fatalf("a reader rewrote the corrupt manifest: %q", m)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 29, KeyFact, "A writer repairs the manifest")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(s.ManifestPath() + ".corrupt-*"); len(m) != 1 {
		t.Fatalf("corrupt manifest not kept aside: %v", m)
	}
}

// `memory rebuild` over a corrupt manifest reports it and keeps it aside
// like every other reader does, instead of overwriting it unseen.
func TestRebuildKeepsACorruptManifestAside(t *testing.T) {
	t.Parallel()
	s, _, warns := newTestStore(t)
	copyOld(t, s)
	corrupt := []byte(`{"version":1,"entries":[{"id":`)
	if err := os.WriteFile(s.ManifestPath(), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(context.Background())
	if err != nil || rep.Entries != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	aside, _ := filepath.Glob(s.ManifestPath() + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("corrupt manifest not kept aside: %v", aside)
	}
	if kept, _ := os.ReadFile(aside[0]); string(kept) != string(corrupt) {
		t.Fatalf("kept %q", kept)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "was corrupt") {
		t.Fatalf("warnings: %q", *warns)
	}
}

func TestCorruptIssueFileIsSkippedAndKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, warns := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, Decision, "Use Redis for sessions"), obs("engineer", 8, Error, "Redis timeout under load")}); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`{"version":1,"observations":[{"id": oops`)
	if err := os.WriteFile(s.IssuePath(7), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(ctx)
	if err != nil || len(rep.Skipped) != 1 || rep.Entries != 2 {
		t.Fatalf("rebuild: %+v %v", rep, err)
	}
	if len(*warns) == 0 || !strings.Contains((*warns)[0], s.IssuePath(7)) {
		t.Fatalf("warning must name the file: %q", *warns)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, KeyFact, "anything at all")}); !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("store into corrupt file: %v", err)
	}
	if data, _ := os.ReadFile(s.IssuePath(7)); !bytes.Equal(data, bad) {
		t.Fatal("corrupt issue file was rewritten")
	}
	if rows, _ := s.Search(ctx, Query{Text: "redis"}); len(rows) != 2 {
		t.Fatalf("entries of the corrupt file must stay searchable from the manifest: %+v", rows)
	}
}

// crashAfterIssueWrite stores a first decision on issue 5, then a second
// ("invalidation") whose write stops, as a crash would, after its issue
// file is written and before the manifest or index is.
func crashAfterIssueWrite(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "first decision about caching")}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	s.afterIssueWrite = func() error { return crash }
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "second decision about invalidation")}); !errors.Is(err, crash) {
		t.Fatalf("want simulated crash, got %v", err)
	}
	s.afterIssueWrite = nil
}

// A crash after the issue write and before the manifest write leaves a
// marker; the next access repairs the manifest.
func TestCrashBetweenIssueAndManifestWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, _ := newTestStore(t)
	crashAfterIssueWrite(t, s)
	if rows, _ := s.Search(ctx, Query{Text: "invalidation"}); len(rows) != 0 {
		t.Fatalf("a live writer's marker must not be repaired yet: %+v", rows)
	}
	clk.Advance(3 * time.Second)
	rows, err := s.Search(ctx, Query{Text: "invalidation"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("not found from the issue file: %+v %v", rows, err)
	}
	// Readers never write: the next writer repairs.
	if m, _ := os.ReadDir(s.pendingDir()); len(m) != 1 {
		t.Fatalf("a reader repaired: %v", m)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 6, Decision, "a later write elsewhere")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := os.ReadDir(s.pendingDir()); len(m) != 0 {
		t.Fatalf("marker left: %v", m)
	}
	checkAgree(t, s)
}

// checkAgree asserts the manifest, with the delta in place of the rows of
// the issues it holds, lists exactly the issue files' observations.
func checkAgree(t *testing.T, s *Store) int {
	t.Helper()
	data, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(s.ManifestPath(), data)
	if err != nil {
		t.Fatal(err)
	}
	var d *delta
	if gen, ok := s.baseGeneration(); ok {
		d = s.readDelta(gen)
	}
	held := func(issue int) bool {
		if d == nil {
			return false
		}
		_, ok := d.files[issue]
		return ok
	}
	inManifest := map[string]bool{}
	listed := 0
	for _, e := range m.Entries {
		if held(e.IssueNumber) {
			continue
		}
		if inManifest[e.ID] {
			t.Fatalf("duplicate manifest entry %s", e.ID)
		}
		inManifest[e.ID] = true
		listed++
	}
	inDelta := map[int][]memindex.Doc{}
	if d != nil {
		for i := 0; i < d.ix.Len(); i++ {
			doc := d.ix.Doc(i)
			inDelta[doc.Issue] = append(inDelta[doc.Issue], doc)
		}
	}
	issues, _ := s.Issues()
	n := 0
	for _, i := range issues {
		f, err := s.readIssue(i)
		if err != nil {
			t.Fatal(err)
		}
		if held(i) {
			docs := inDelta[i]
			if len(docs) != len(f.Observations) {
				t.Fatalf("the delta holds %d observations of issue %d, its file %d", len(docs), i, len(f.Observations))
			}
			for k, o := range f.Observations {
				e := o.Entry()
				if int(docs[k].Ref.Off) != k || !describes(docs[k], &e) {
					t.Fatalf("the delta's row %d of issue %d does not describe %s", k, i, o.ID)
				}
			}
			n += len(f.Observations)
			listed += len(docs)
			continue
		}
		for _, o := range f.Observations {
			n++
			if !inManifest[o.ID] {
				t.Fatalf("%s is in issue-%d.json but not in the manifest", o.ID, i)
			}
		}
	}
	if n != listed {
		t.Fatalf("manifest and delta list %d entries, issue files %d", listed, n)
	}
	return n
}

// A marker whose writer process is gone is repaired at once, without
// waiting for it to age.
func TestMarkerOfDeadWriterIsRepairedAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "first decision about caching")}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	s.afterIssueWrite = func() error { return crash }
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "second decision about invalidation")}); !errors.Is(err, crash) {
		t.Fatal(err)
	}
	s.afterIssueWrite = nil
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	markers, _ := filepath.Glob(filepath.Join(s.pendingDir(), "issue-5-*"))
	if len(markers) != 1 {
		t.Fatalf("markers: %v", markers)
	}
	host, _ := os.Hostname()
	content := fmt.Sprintf("%s\n%d %s\n", clock.Format(s.Clock.Now()), dead.Process.Pid, host)
	if err := os.WriteFile(markers[0], []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Search(ctx, Query{Text: "invalidation"}); len(rows) != 1 {
		t.Fatalf("not repaired at once: %+v", rows)
	}
}
