package audit

import "testing"

// TestAuditTableKeepsColumnsNarrow: one entry with many ids does not pad
// every row of `audit` to its list (issue 21).
func TestAuditTableKeepsColumnsNarrow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ids  []string
		more int
		want string
	}{
		{nil, 0, ""},
		{[]string{"CLR-1-001"}, 0, "CLR-1-001"},
		{[]string{"CLR-1-001", "CLR-1-002"}, 0, "CLR-1-001,CLR-1-002"},
		{[]string{"CLR-1-001", "CLR-1-002", "CLR-1-003", "CLR-1-004"}, 0, "CLR-1-001,CLR-1-002 +2"},
		{[]string{"a", "b", "c"}, 10, "a,b +11"},
		{[]string{"a"}, 3, "a +3"},
	} {
		if got := idsShown(tt.ids, tt.more); got != tt.want {
			t.Errorf("idsShown(%q, %d) = %q, want %q", tt.ids, tt.more, got, tt.want)
		}
	}
}
