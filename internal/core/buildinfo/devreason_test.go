package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

// `version` says why it shows dev (issue 21): no build information, or no
// VCS stamp (go run, -buildvcs=false, a module copy without .git).
func TestVersionDevReason(t *testing.T) {
	t.Parallel()
	stamped := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}}
	for _, tt := range []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		want          string // substring of the reason; "" for none
	}{
		{"no build info", "dev", nil, "no build information"},
		{"go run", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "no VCS stamp: built with go run"},
		{"devel with a commit", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: stamped}, "not from a tagged release"},
		{"tagged", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, ""},
		{"ldflags", "v9.9.9", nil, ""},
	} {
		got := From(tt.ldflags, tt.bi).DevReason
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: reason %q, want %q", tt.name, got, tt.want)
		}
	}
}
