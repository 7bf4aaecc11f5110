package config

import (
	"errors"
	"testing"
)

func TestCheckAgentName(t *testing.T) {
	for _, tc := range []struct {
		name, agent string
		load        func() (*Set, error)
		ok, loaded  bool
	}{
		{"malformed, config not read", "Bad Name", nil, false, false},
		{"no config", "engineer", func() (*Set, error) { return nil, errors.New("no config") }, true, true},
		{"config naming none", "anyone", func() (*Set, error) { return &Set{}, nil }, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loaded := false
			err := CheckAgentName("--agent", tc.agent, func() (*Set, error) { loaded = true; return tc.load() })
			if (err == nil) != tc.ok || loaded != tc.loaded {
				t.Errorf("err %v, loaded %v", err, loaded)
			}
		})
	}
}
