package session

import (
	"errors"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/config"
)

func TestPickAgent(t *testing.T) {
	noConfig := func() (*config.Set, error) { return nil, errors.New("none") }
	for _, tc := range []struct {
		name, named, payload string
		load                 func() (*config.Set, error)
		want                 string
	}{
		{"named", "reviewer", "architect", nil, "reviewer"},
		{"payload", "", "architect", nil, "architect"},
		{"no config", "", "", noConfig, config.FallbackAgent},
		{"config default", "", "", func() (*config.Set, error) { return &config.Set{}, nil }, (config.HooksSettings{}).DefaultAgentOr()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PickAgent(tc.named, tc.payload, tc.load); got != tc.want {
				t.Errorf("PickAgent = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestProjectDir(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, cwd string
		ok        bool
	}{
		{"none", "", false},
		{"relative", "some/dir", false},
		{"missing", dir + "/missing", false},
		{"directory", dir, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in capture.Input
			in.Payload.Cwd = tc.cwd
			if got, ok := ProjectDir(in); ok != tc.ok || (ok && got != tc.cwd) {
				t.Errorf("ProjectDir = %q %v", got, ok)
			}
		})
	}
}
