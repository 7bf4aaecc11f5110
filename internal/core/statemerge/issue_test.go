package statemerge

import (
	"errors"
	"strings"
	"testing"
)

// A state file holding another issue's number is not valid under its own
// name, and merging it fails instead of carrying the wrong number onto the
// state branch; a file with no number is its file name's issue.
func TestIssueNumberMismatchRefused(t *testing.T) {
	good := map[string]string{
		"state/clarifications/issue-7.json":    `{"issueNumber": 7, "clarifications": []}`,
		"memory/issue-7.json":                  `{"version": 1, "issueNumber": 7, "observations": []}`,
		"memory/archive/issue-7-archived.json": `{"version": 1, "issueNumber": 7, "observations": []}`,
		"state/artifacts/issue-7.json":         `{"issueNumber": 7, "artifacts": []}`,
	}
	for path, data := range good {
		if err := Valid(path, []byte(data)); err != nil {
			t.Errorf("Valid(%s) = %v, want nil", path, err)
		}
		wrong := strings.Replace(data, `"issueNumber": 7`, `"issueNumber": 8`, 1)
		err := Valid(path, []byte(wrong))
		if err == nil || !strings.Contains(err.Error(), "issueNumber is 8 in the file of issue 7") {
			t.Errorf("Valid(%s, issue 8) = %v, want the mismatch named", path, err)
		}
		if strings.HasPrefix(path, "state/artifacts") {
			continue // merged by artifact.Merge; Valid guards what is pushed
		}
		if _, _, err := MergeFile(path, []byte(data), []byte(wrong), []byte(data)); !errors.Is(err, ErrUnmergeable) {
			t.Errorf("MergeFile(%s) with issue 8 ours = %v, want ErrUnmergeable", path, err)
		}
	}
	merged, _, err := MergeFile("memory/issue-7.json", []byte(good["memory/issue-7.json"]), []byte(`{}`), []byte(good["memory/issue-7.json"]))
	if err != nil || !strings.Contains(string(merged), `"issueNumber": 7`) {
		t.Errorf("memory file without issueNumber merged to %s, %v; want issue 7", merged, err)
	}
}
