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
