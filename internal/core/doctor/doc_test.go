package doctor

import "testing"

func TestNewDoc(t *testing.T) {
	for _, tc := range []struct {
		name       string
		findings   []Finding
		ok         bool
		fails      int
		wantFailed string
	}{
		{"none", nil, true, 0, ""},
		{"one warn", []Finding{{Status: StatusWarn}}, true, 0, ""},
		{"one fail", []Finding{{Status: StatusFail}}, false, 1, "doctor: 1 finding failed"},
		{"two fails", []Finding{{Status: StatusFail}, {Status: StatusFail}}, false, 2, "doctor: 2 findings failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, failure := NewDoc("/r", tc.findings)
			if doc.OK != tc.ok || doc.Fails != tc.fails || doc.Findings == nil || doc.Root != "/r" {
				t.Fatalf("doc = %+v", doc)
			}
			switch {
			case tc.wantFailed == "" && (failure != nil || doc.Error != nil):
				t.Errorf("failure %v, doc.Error %v", failure, doc.Error)
			case tc.wantFailed != "" && (failure == nil || failure.Message != tc.wantFailed || doc.Error.Message != tc.wantFailed):
				t.Errorf("failure %v, want %q", failure, tc.wantFailed)
			}
		})
	}
}
