package artifact_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/artifact/synth"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// later is a scan clock an hour ahead: every file on disk is past the
// racy window, so the index may vouch for it.
func later() time.Time { return time.Now().Add(time.Hour) }

func smallStore(t *testing.T, issues int) *artifact.Store {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	if _, err := synth.Generate(ws, issues, 4); err != nil {
		t.Fatal(err)
	}
	return &artifact.Store{WS: ws, Locks: lock.New(lock.Options{}), Now: later}
}

// summaries is what every ledger says when read whole.
func summaries(t *testing.T, s *artifact.Store) []artifact.Summary {
	t.Helper()
	files, errs, err := s.LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []artifact.Summary
	for _, f := range files {
		if sum := f.Summarize(); !sum.Empty() {
			out = append(out, sum)
		}
	}
	_ = errs // a corrupt ledger is the scan's warning; here it is left out like there
	return out
}

func scan(t *testing.T, s *artifact.Store) *artifact.Scanned {
	t.Helper()
	sc, err := s.Scan()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func sameAsLedgers(t *testing.T, s *artifact.Store, sc *artifact.Scanned) {
	t.Helper()
	if want := summaries(t, s); !reflect.DeepEqual(sc.Summaries, want) {
		t.Fatalf("scan = %+v\nledgers say %+v", sc.Summaries, want)
	}
}

// A scan says what the ledgers say, and reads again only the ledgers
// written since the last one.
func TestScanReadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	s := smallStore(t, 20)
	first := scan(t, s)
	if first.Read != 20 || len(first.Summaries) != 20 || len(first.Warnings) != 0 {
		t.Fatalf("first scan read %d, %d summaries, %v", first.Read, len(first.Summaries), first.Warnings)
	}
	sameAsLedgers(t, s, first)
	stale := 0
	for _, sum := range first.Summaries {
		stale += len(sum.Findings)
		if len(sum.Findings) > 0 != sum.Unnotified {
			t.Errorf("#%d: %d findings, unnotified %v", sum.Issue, len(sum.Findings), sum.Unnotified)
		}
	}
	if stale != 12 { // every fifth issue's PRD changed: 4 issues, 3 downstream each
		t.Fatalf("%d stale", stale)
	}
	second := scan(t, s)
	if second.Read != 0 || !reflect.DeepEqual(second.Summaries, first.Summaries) {
		t.Fatalf("second scan read %d; same summaries: %v", second.Read, reflect.DeepEqual(second.Summaries, first.Summaries))
	}

	// One ledger written: only it is read, and what changed shows.
	if _, err := s.Change(context.Background(), "ADR-7", func(_ *artifact.File, a *artifact.Artifact) (bool, error) {
		a.Reopened = true
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	third := scan(t, s)
	if third.Read != 1 {
		t.Fatalf("after one write the scan read %d ledgers", third.Read)
	}
	sameAsLedgers(t, s, third)
	if third.Summaries[6].Issue != 7 || third.Summaries[6].Marks[0] != (artifact.Mark{ID: "ADR-7", Flags: artifact.MarkReopened}) {
		t.Fatalf("#7 = %+v", third.Summaries[6])
	}

	// A ledger removed leaves the scan and the index.
	if err := os.Remove(s.WS.ArtifactFile(8)); err != nil {
		t.Fatal(err)
	}
	fourth := scan(t, s)
	if fourth.Read != 0 || len(fourth.Summaries) != 19 {
		t.Fatalf("after a removal: read %d, %d summaries", fourth.Read, len(fourth.Summaries))
	}
	sameAsLedgers(t, s, fourth)
}

// A ledger younger than the racy window is read on every scan: two
// writes inside one tick of the file clock could leave one identity.
func TestScanDoesNotTrustAFreshLedger(t *testing.T) {
	t.Parallel()
	s := smallStore(t, 3)
	s.Now = time.Now // the files were just written
	for i := range 2 {
		if sc := scan(t, s); sc.Read != 3 {
			t.Fatalf("scan %d read %d of 3 fresh ledgers", i, sc.Read)
		}
	}
	s.Now = later
	scan(t, s)
	if sc := scan(t, s); sc.Read != 0 {
		t.Fatalf("old ledgers read again: %d", sc.Read)
	}
}

// A ledger that does not parse is a warning on every scan, never an
// empty ledger, and a broken index only costs reads.
func TestScanWarnsOfACorruptLedgerAndSurvivesABrokenIndex(t *testing.T) {
	t.Parallel()
	s := smallStore(t, 5)
	scan(t, s)
	if err := os.WriteFile(s.WS.ArtifactFile(3), []byte(`{"issueNumber": 3, "artifacts": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		sc := scan(t, s)
		if len(sc.Warnings) != 1 || len(sc.Summaries) != 4 {
			t.Fatalf("corrupt #3: %d summaries, warnings %v", len(sc.Summaries), sc.Warnings)
		}
	}
	for _, junk := range []string{"junk\n", "agentx-artifact-index 1\nissue-1.json 1 2 3\n", "agentx-artifact-index 1\nissue-1.json 1 2 3 4 {\"m\":[{\"i\":1}]}\n",
		"agentx-artifact-index 1\nissue-1.json 1 2 3 4 =feature\n", "agentx-artifact-index 1\nissue-1.json 1 2 3 4 =feature PRD-1:x\n",
		"agentx-artifact-index 1\nissue-1.json 1 2 3 4 =feature PRD-1:0 ! SPEC-1 architect\n"} {
		if err := os.WriteFile(filepath.Join(s.WS.ArtifactsDir(), artifact.IndexName), []byte(junk), 0o644); err != nil {
			t.Fatal(err)
		}
		sc := scan(t, s)
		if len(sc.Summaries) != 4 || sc.Read < 4 {
			t.Fatalf("index %q: read %d, %d summaries", junk, sc.Read, len(sc.Summaries))
		}
		sameAsLedgers(t, s, sc)
	}
}

// With no artifacts directory a scan reads nothing and writes nothing.
func TestScanOfNoLedgers(t *testing.T) {
	t.Parallel()
	s := &artifact.Store{WS: workspace.Workspace{Root: t.TempDir()}}
	if sc := scan(t, s); sc.Read != 0 || len(sc.Summaries) != 0 {
		t.Fatalf("%+v", sc)
	}
	if _, err := os.Stat(s.WS.ArtifactsDir()); !os.IsNotExist(err) {
		t.Fatalf("the scan created the directory: %v", err)
	}
}
