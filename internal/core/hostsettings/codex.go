package hostsettings

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// codexHost is Codex: .codex/hooks.json, SessionStart (hook start
// --format codex), Stop and PreCompact (hook finish); and [features]
// codex_hooks = true in .codex/config.toml (Wire and Unwire see to it).
func codexHost() Host {
	return Host{Name: Codex, File: ".codex/hooks.json", events: []hostEvent{
		{"SessionStart", group("startup|resume", "start", "--format codex", 10)},
		{"Stop", group("", "finish", "", 0)}, // Codex has no SessionEnd
		{"PreCompact", group("", "finish", "", 0)},
	}}
}

// The patterns of a Codex config.toml, compiled on first use: a process
// that never edits one pays nothing at start (issue 25).
var (
	// codexFeatures is the table header Codex reads its feature flags from.
	codexFeatures = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*\[features\][ \t]*(#.*)?$`)
	})
	// codexHooksLine is a codex_hooks line in the [features] table.
	codexHooksLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^([ \t]*)codex_hooks[ \t]*=[^\n]*$`)
	})
	// codexOnLine is the line enableCodexHooks writes, with its newline.
	codexOnLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*codex_hooks[ \t]*=[ \t]*true[ \t]*(#[^\n]*)?(\n|$)`)
	})
	// nextTable is a table header at the start of a line.
	nextTable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[`) })
)

// codexConfig is what agentx reads of a Codex config.toml.
type codexConfig struct {
	Features map[string]any `toml:"features"`
	// Hooks are inline hook tables ([[hooks.EVENT]]), which Codex reads
	// beside hooks.json; [hooks.state] is its trust record, not an event.
	Hooks    map[string]any `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

func decodeCodex(data []byte) (codexConfig, error) {
	var cfg codexConfig
	if err := checkSize(data); err != nil {
		return cfg, err
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return cfg, fmt.Errorf("not valid TOML: %w", err)
	}
	return cfg, nil
}

// enableCodexHooks sets [features] codex_hooks = true in a Codex
// config.toml, touching no other line: Codex runs no hook from hooks.json
// without it (https://developers.openai.com/codex/hooks).
func enableCodexHooks(old []byte, _ bool) ([]byte, error) {
	cfg, err := decodeCodex(old)
	if err != nil {
		return nil, err
	}
	v, set := cfg.Features["codex_hooks"]
	if on, _ := v.(bool); on {
		return old, nil
	}
	if set {
		if !codexHooksLine().Match(old) {
			return nil, errors.New("codex_hooks is set in a form setup does not rewrite; set [features] codex_hooks = true by hand")
		}
		return codexHooksLine().ReplaceAll(old, []byte("${1}codex_hooks = true")), nil
	}
	if loc := codexFeatures().FindIndex(old); loc != nil {
		out := append([]byte(nil), old[:loc[1]]...)
		out = append(out, "\ncodex_hooks = true"...)
		return append(out, old[loc[1]:]...), nil
	}
	if cfg.Features != nil {
		return nil, errors.New("[features] is written in a form setup does not rewrite; set codex_hooks = true in it by hand")
	}
	out := append([]byte(nil), old...)
	if len(out) > 0 {
		if out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	}
	return append(out, "[features]\ncodex_hooks = true\n"...), nil
}

// dropEmptyFeatures removes a [features] table holding no key (only blank
// lines up to the next table or the end), with the blank line before it.
func dropEmptyFeatures(data []byte) []byte {
	loc := codexFeatures().FindIndex(data)
	if loc == nil {
		return data
	}
	end := len(data)
	if m := nextTable().FindIndex(data[loc[1]:]); m != nil {
		end = loc[1] + m[0]
	}
	if strings.TrimSpace(string(data[loc[1]:end])) != "" {
		return data
	}
	start := loc[0]
	if start >= 2 && data[start-1] == '\n' && data[start-2] == '\n' {
		start-- // the blank line enableCodexHooks put before the table
	}
	return append(append([]byte(nil), data[:start]...), data[end:]...)
}

// disableCodexHooks takes codex_hooks = true out of a Codex config.toml,
// and the [features] table when it is then empty; empty reports a file
// left with nothing else (it can go). A flag that is not true is left as
// it is.
func disableCodexHooks(old []byte) (out []byte, empty bool, err error) {
	cfg, err := decodeCodex(old)
	if err != nil {
		return nil, false, err
	}
	if on, _ := cfg.Features["codex_hooks"].(bool); !on {
		return old, false, nil
	}
	loc := codexOnLine().FindIndex(old)
	if loc == nil {
		return nil, false, errors.New("codex_hooks is set in a form remove does not rewrite; take it out of [features] by hand")
	}
	out = dropEmptyFeatures(append(append([]byte(nil), old[:loc[0]]...), old[loc[1]:]...))
	if strings.TrimSpace(string(out)) == "" {
		return nil, true, nil
	}
	return out, false, nil
}

// Feature states of Codex's hooks in a config.toml.
const (
	FeatureOn    = "on"
	FeatureOff   = "off"
	FeatureUnset = "unset"
)

// CodexHooksFeature says whether a Codex config.toml turns hooks on
// ([features] codex_hooks, or its newer name hooks): FeatureOn,
// FeatureOff (either is false) or FeatureUnset.
func CodexHooksFeature(data []byte) (string, error) {
	cfg, err := decodeCodex(data)
	if err != nil {
		return "", err
	}
	state := FeatureUnset
	for _, key := range []string{"codex_hooks", "hooks"} {
		v, set := cfg.Features[key]
		if !set {
			continue
		}
		if on, _ := v.(bool); !on {
			return FeatureOff, nil
		}
		state = FeatureOn
	}
	return state, nil
}

// CodexTrusted reports whether a user's Codex config.toml ($CODEX_HOME,
// else ~/.codex) trusts the project at root: Codex loads a project's
// .codex/ layer, hooks included, only in a trusted project.
func CodexTrusted(userConfig []byte, root string) (bool, error) {
	cfg, err := decodeCodex(userConfig)
	if err != nil {
		return false, err
	}
	p, ok := cfg.Projects[root]
	return ok && p.TrustLevel == "trusted", nil
}

// codexInlineEvents lists the events of a Codex config.toml's inline
// [[hooks.EVENT]] tables that run agentx-hook.
func codexInlineEvents(data []byte) ([]string, error) {
	cfg, err := decodeCodex(data)
	if err != nil {
		return nil, err
	}
	var out []string
	for event, v := range cfg.Hooks {
		if event != "state" && runsAgentx(v) {
			out = append(out, event)
		}
	}
	return out, nil
}

// runsAgentx reports whether a decoded TOML value holds a command running
// `agentx-hook hook ...`.
func runsAgentx(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.Contains(t, "agentx-hook hook ")
	case map[string]any:
		for _, e := range t {
			if runsAgentx(e) {
				return true
			}
		}
	case []map[string]any:
		for _, e := range t {
			if runsAgentx(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if runsAgentx(e) {
				return true
			}
		}
	}
	return false
}
