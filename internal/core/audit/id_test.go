package audit

import (
	"strings"
	"testing"
)

// IsID accepts what the regexp it replaced accepted:
// ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$.
func TestAuditIDMatchesItsPattern(t *testing.T) {
	for id, want := range map[string]bool{
		"CLR-42-001": true, "obs-engineer-5-1795557240894-xarkpg": true, "clar-test-001": true, "a": true,
		"a.b:c_d-e": true, strings.Repeat("a", 128): true, strings.Repeat("a", 129): false,
		"": false, "-a": false, ".a": false, "a/b": false, "a b": false, "é": false,
		// A path's parent is never an id, though the pattern takes it.
		"a..b": false,
	} {
		if got := IsID(id); got != want {
			t.Errorf("IsID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestActor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"AGENTX_AGENT": "engineer", "USER": "ann"}, "engineer"},
		{map[string]string{"AGENTX_AGENT": "  ", "USER": "ann"}, "ann"},
		{map[string]string{"USERNAME": "bob"}, "bob"},
		{nil, "cli"},
	} {
		if got := Actor(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}
