package monitor

import (
	"errors"
	"slices"
	"testing"
)

func TestReportProblems(t *testing.T) {
	r := &Report{Warnings: []error{errors.New("issue-1.json: corrupt")}, Failures: []error{errors.New("lock timeout")}}
	for _, tc := range []struct {
		name     string
		withScan bool
		want     []string
	}{
		{"failures only", false, []string{"monitor: lock timeout"}},
		{"with the scan", true, []string{"monitor: issue-1.json: corrupt", "monitor: lock timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Problems(tc.withScan); !slices.Equal(got, tc.want) {
				t.Errorf("Problems = %q, want %q", got, tc.want)
			}
		})
	}
}
