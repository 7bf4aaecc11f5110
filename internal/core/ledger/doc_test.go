package ledger

import (
	"strings"
	"testing"
)

func TestListDocTamperedWarning(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tampered []string
		want     string
	}{
		{"none", nil, ""},
		{"one", []string{"CLR-1-001#0"}, "1 thread entry changed since written (CLR-1-001#0)"},
		{"two", []string{"CLR-1-001#0", "CLR-1-001#2"}, "2 thread entries changed since written (CLR-1-001#0, CLR-1-001#2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&ListDoc{Tampered: tc.tampered}).TamperedWarning()
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("TamperedWarning = %q, want %q...", got, tc.want)
			}
		})
	}
	if d := NewListDoc(nil, nil); d.Clarifications == nil || d.Tampered != nil {
		t.Errorf("NewListDoc(nil, nil) = %+v", d)
	}
}
