package intake

import (
	"context"
	"testing"
)

// TestRecordHeadRefuses covers what RecordHead decides before it asks
// git for HEAD: no issue named is no observation, a bad issue or agent an
// error.
func TestRecordHeadRefuses(t *testing.T) {
	root := t.TempDir() // no git repository: the branch names nothing
	for _, tc := range []struct {
		name, agent, issue string
		wantErr            bool
	}{
		{"no issue", "", "", false},
		{"bad issue", "", "x", true},
		{"bad agent", "Not An Agent!", "3", true},
	} {
		err := (&Intake{}).RecordHead(context.Background(), root, tc.agent, tc.issue)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: RecordHead = %v, want error %v", tc.name, err, tc.wantErr)
		}
	}
}
