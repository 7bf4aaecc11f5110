package statemerge

import "fmt"

// checkIssue refuses a state file whose issueNumber is not the one its
// file name says (another issue's file copied over it, a hand edit):
// verify reports it as LEDGER_ISSUE_MISMATCH or MEMORY_ISSUE_MISMATCH,
// and a merge would carry the wrong number onto the state branch over
// the good copy there. want 0 is a file name that says no issue (an
// archive of another shape) or the old chat integration's issue-0
// ledger: nothing to check against; got 0 is a file that names none (a
// memory file without issueNumber), read as its file name's.
func checkIssue(path string, want, got int) error {
	if want == 0 || got == 0 || got == want {
		return nil
	}
	return fmt.Errorf("%s: issueNumber is %d in the file of issue %d", path, got, want)
}
