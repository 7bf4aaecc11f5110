package hookcmd

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
		if got := formatVersion(versionFrom(tt.ldflags, tt.bi)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	t.Parallel()
	names := []string{"state", "setup", "memory", "monitor", "version"}
	for got, want := range map[string]string{
		"statte": ` (did you mean "state"?)`, "memroy": ` (did you mean "memory"?)`,
		"versoin": ` (did you mean "version"?)`, "zzz": "", "--agnet": "",
	} {
		if s := didYouMean(got, names); s != want {
			t.Errorf("didYouMean(%q) = %q, want %q", got, s, want)
		}
	}
	if s := didYouMean("--agnet", []string{"--agent", "--issue"}); s != ` (did you mean "--agent"?)` {
		t.Errorf("flag: %q", s)
	}
}
