package actioncmd

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestExampleWorkflowsPutConcurrencyOnTheJob: a workflow-level group is
// entered by every run, also one whose job-level `if` skips it (a comment
// without /clarify), and such a run queued behind a command cancels the
// pending command run. The group belongs on the job. (actionlint checks
// the files' syntax in .ci/run.)
func TestExampleWorkflowsPutConcurrencyOnTheJob(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "examples", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows: %v", err)
	}
	for _, f := range files {
		yml := repoFile(t, filepath.Join("examples", "workflows", filepath.Base(f)))
		if strings.Contains("\n"+yml, "\nconcurrency:") {
			t.Errorf("%s: concurrency on the workflow; put it on the job", filepath.Base(f))
		}
		if !strings.Contains(yml, "\n    concurrency:\n      group: ") {
			t.Errorf("%s: no job-level concurrency group", filepath.Base(f))
		}
		if strings.Contains(yml, "issue_comment:") && !strings.Contains(yml, "types: [created, edited]") {
			t.Errorf("%s: an edited comment must run ingest too", filepath.Base(f))
		}
	}
}

// TestExampleWorkflowsSayWhatToPinBeforeARelease: until the first release
// no v1 tag exists, and a user copying an example must read, at the step
// itself, what to pin instead (issue 37); docs/release.md has the section
// the note names.
func TestExampleWorkflowsSayWhatToPinBeforeARelease(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "examples", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows: %v", err)
	}
	for _, f := range files {
		yml := repoFile(t, filepath.Join("examples", "workflows", filepath.Base(f)))
		uses := strings.Count(yml, "uses: agentx-dev/agentx@")
		notes := strings.Count(yml, "# uses: agentx-dev/agentx@<full 40-hex commit SHA>")
		if uses == 0 || uses-notes != notes {
			t.Errorf("%s: %d steps use agentx-dev/agentx, %d say what to pin before the first release", filepath.Base(f), uses-notes, notes)
		}
	}
	release := repoFile(t, filepath.Join("docs", "release.md"))
	for _, want := range []string{"## Before the first release", "uses: ./.agentx-action", "## The first tag"} {
		if !strings.Contains(release, want) {
			t.Errorf("docs/release.md lacks %q", want)
		}
	}
}
