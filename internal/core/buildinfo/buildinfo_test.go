package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	t.Parallel()
	installed := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tt := range []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		want          string
	}{
		{"go install @v1.2.3", "dev", installed, "v1.2.3 (commit 0123456789ab, modified)"},
		{"ldflags win", "v9.9.9", installed, "v9.9.9 (commit 0123456789ab, modified)"},
		{"devel build without vcs", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build info", "dev", nil, "dev"},
	} {
		if got := From(tt.ldflags, tt.bi).String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Line adds the reason a build is "dev", and nothing to a release.
func TestLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v    Info
		want string
	}{
		{Info{Version: "v1.0.0"}, "v1.0.0"},
		{Info{Version: "dev", DevReason: "why"}, "dev (why)"},
		{Info{Version: "dev", Commit: "abc", DevReason: "why"}, "dev (commit abc) (why)"},
	} {
		if got := tt.v.Line(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.v, got, tt.want)
		}
	}
}
