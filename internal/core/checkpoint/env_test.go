package checkpoint

import (
	"testing"
	"time"
)

func TestStateOptionsWithEnv(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   map[string]string
		by    string
		pause time.Duration
	}{
		{"defaults", nil, "cli", 0},
		{"agent", map[string]string{"AGENTX_AGENT": "engineer"}, "engineer", 0},
		{"pause", map[string]string{"AGENTX_TEST_RESTORE_PAUSE_MS": "30"}, "cli", 30 * time.Millisecond},
		{"bad pause", map[string]string{"AGENTX_TEST_RESTORE_PAUSE_MS": "-1"}, "cli", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := StateOptions{Keep: 3}.WithEnv(func(k string) string { return tc.env[k] })
			if o.By != tc.by || o.Pause != tc.pause || o.Keep != 3 {
				t.Errorf("WithEnv = %+v", o)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	if w := (&Result{Skipped: []string{"state/fifo"}}).Warnings(); len(w) != 1 || w[0] != "not a regular file, left out: .agentx/state/fifo" {
		t.Errorf("Result.Warnings = %q", w)
	}
	if w := (&Diff{Unreadable: []string{"state/x.json"}}).Warnings(); len(w) != 1 || w[0] != ".agentx/state/x.json does not parse on one side; compared as a file only" {
		t.Errorf("Diff.Warnings = %q", w)
	}
	if UnauditedWarning(0) != "" || UnauditedWarning(1) == "" {
		t.Errorf("UnauditedWarning(0) = %q", UnauditedWarning(0))
	}
}
