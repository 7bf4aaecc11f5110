package lock

import (
	"testing"
	"time"
)

func TestOptionsWithEnv(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		stale     int
		wantStale time.Duration
		wantWait  time.Duration
	}{
		{"nothing", nil, 0, 0, 0},
		{"config", nil, 7, 7 * time.Second, 0},
		{"env wins", map[string]string{"AGENTX_LOCK_STALE_MS": "250"}, 7, 250 * time.Millisecond, 0},
		{"bad env ignored", map[string]string{"AGENTX_LOCK_STALE_MS": "x", "AGENTX_LOCK_WAIT_MS": "-3"}, 0, 0, 0},
		{"wait", map[string]string{"AGENTX_LOCK_WAIT_MS": "40"}, 0, 0, 40 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Agent: "a"}.WithEnv(func(k string) string { return tc.env[k] }, tc.stale)
			if o.StaleAfter != tc.wantStale || o.Wait != tc.wantWait || o.Agent != "a" {
				t.Errorf("WithEnv = %+v", o)
			}
		})
	}
}
