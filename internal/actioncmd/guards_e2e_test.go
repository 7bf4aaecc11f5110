// End-to-end runs where agentx-action must not act: a dry run writes
// nothing, bad inputs are rejected, a symlinked state directory is refused.

package actioncmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

func TestActionDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 3, "sync", "")
	r.env["INPUT_DRY-RUN"] = "true"
	r.writeLedger(sampleLedger(3, time.Now()))
	res := r.run()
	if res.code != 0 || res.outputs["comments-created"] != "1" || fake.Writes() != 0 || !strings.Contains(res.summary, "dry run") {
		t.Fatalf("exit %d outputs %v writes %d summary %q", res.code, res.outputs, fake.Writes(), res.summary)
	}
}

func TestActionRejectsBadInputs(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "publish"
	res := r.run()
	if res.code != 2 || !strings.Contains(res.stdout, "::error::") || fake.Reads()+fake.Writes() != 0 {
		t.Fatalf("exit %d stdout %q", res.code, res.stdout)
	}
}

// TestActionRefusesASymlinkedStateDir: a checkout whose .agentx/state (or
// .agentx, memory) is a symlink leading outside the workspace is refused
// (issue 15): nothing is read through it, nothing seeded from it.
func TestActionRefusesASymlinkedStateDir(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"", "state", "memory"} {
		fake, r := issueRunner(t, 4, "sync", "")
		outside := t.TempDir()
		data, _ := jsonfile.Marshal(sampleLedger(4, time.Now()))
		_ = os.MkdirAll(filepath.Join(outside, "state", "clarifications"), 0o755)
		_ = os.MkdirAll(filepath.Join(outside, "clarifications"), 0o755)
		_ = os.WriteFile(filepath.Join(outside, "state", "clarifications", "issue-4.json"), data, 0o644)
		_ = os.WriteFile(filepath.Join(outside, "clarifications", "issue-4.json"), data, 0o644)
		link := filepath.Join(r.workspace, ".agentx", dir)
		_ = os.RemoveAll(link)
		_ = os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		res := r.run()
		if res.code == 0 || !strings.Contains(res.stdout, "is a symlink to") || fake.BranchFiles(sync.DefaultStateBranch) != nil {
			t.Fatalf(".agentx/%s: exit %d, branch %v\n%s", dir, res.code, fake.BranchFiles(sync.DefaultStateBranch), res.stdout)
		}
		fake.Close()
	}
}
