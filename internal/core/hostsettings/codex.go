package hostsettings

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// codexHost is Codex: .codex/hooks.json, SessionStart (hook start
// --format codex), Stop and PreCompact (hook finish, mid-session) and
// SessionEnd (hook finish; Codex fires it since 0.145, with 1 s by default
// and at most 3 s), UserPromptSubmit and PostToolUse (hook deliver); and [features] hooks = true in .codex/config.toml
// (Wire and Unwire see to it).
func codexHost() Host {
	return Host{Name: Codex, File: ".codex/hooks.json", events: []hostEvent{
		{"SessionStart", group("startup|resume", "start", "--format codex", 10)},
		// --format codex: Codex takes a finish hook's non-empty stdout for
		// JSON and fails the hook on anything else ("hook returned
		// invalid stop hook JSON output"), so finish prints nothing there.
		{"Stop", group("", "finish", "--format codex", 0)},
		{"PreCompact", group("", "finish", "--format codex", 0)},
		{"SessionEnd", group("", "finish", "--format codex", CodexSessionEndTimeout)},
		// Answers delivered mid-session (hookSpecificOutput.additionalContext,
		// as Claude Code); at Stop, finish itself returns the blocking
		// answer as {"decision":"block"}.
		{"UserPromptSubmit", group("", "deliver", "--format codex", DeliverTimeout)},
		{"PostToolUse", group("", "deliver", "--format codex", DeliverTimeout)},
	}}
}

// CodexSessionEndTimeout is the timeout setup gives Codex's SessionEnd
// hook: Codex clamps it to 1..3 s (1 s when unset).
const CodexSessionEndTimeout = 3

// The patterns of a Codex config.toml, compiled on first use: a process
// that never edits one pays nothing at start (issue 25).
var (
	// codexFeatures is the table header Codex reads its feature flags from.
	codexFeatures = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*\[features\][ \t]*(#.*)?$`)
	}}
	// hooksLine is a hooks line (in the [features] table).
	hooksLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^([ \t]*)hooks[ \t]*=[^\n]*$`)
	}}
	// hooksOnLine and legacyOnLine are the lines setup writes (and an
	// older setup wrote), with their newline.
	hooksOnLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*hooks[ \t]*=[ \t]*true[ \t]*(#[^\n]*)?(\n|$)`)
	}}
	legacyOnLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*codex_hooks[ \t]*=[ \t]*true[ \t]*(#[^\n]*)?(\n|$)`)
	}}
	// nextTable is a table header at the start of a line.
	nextTable = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[`) }}
)

// featuresSpan is where the [features] table's body is in data: from the
// end of its header line to the next table (ok false: no such header).
func featuresSpan(data []byte) (start, end int, ok bool) {
	loc := codexFeatures.Get().FindIndex(data)
	if loc == nil {
		return 0, 0, false
	}
	end = len(data)
	if m := nextTable.Get().FindIndex(data[loc[1]:]); m != nil {
		end = loc[1] + m[0]
	}
	return loc[1], end, true
}

// inFeatures applies edit to the [features] table's body only.
func inFeatures(data []byte, edit func(body []byte) []byte) []byte {
	start, end, ok := featuresSpan(data)
	if !ok {
		return data
	}
	out := append([]byte(nil), data[:start]...)
	out = append(out, edit(data[start:end])...)
	return append(out, data[end:]...)
}

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

// enableCodexHooks sets [features] hooks = true in a Codex config.toml,
// touching no other line, and takes out the `codex_hooks = true` an older
// setup wrote: Codex 0.169 reports that key as deprecated on every run
// (https://developers.openai.com/codex/hooks). A codex_hooks the user set
// false is theirs and stays (doctor reports it).
func enableCodexHooks(old []byte, _ bool) ([]byte, error) {
	cfg, err := decodeCodex(old)
	if err != nil {
		return nil, err
	}
	out := old
	if on, _ := cfg.Features["codex_hooks"].(bool); on {
		out = inFeatures(out, func(body []byte) []byte { return legacyOnLine.Get().ReplaceAll(body, nil) })
	}
	v, set := cfg.Features["hooks"]
	if on, _ := v.(bool); on {
		return out, nil
	}
	if set {
		replaced := inFeatures(out, func(body []byte) []byte {
			return hooksLine.Get().ReplaceAll(body, []byte("${1}hooks = true"))
		})
		if bytes.Equal(replaced, out) {
			return nil, errors.New("[features] hooks is set in a form setup does not rewrite; set [features] hooks = true by hand")
		}
		return replaced, nil
	}
	if start, _, ok := featuresSpan(out); ok {
		res := append([]byte(nil), out[:start]...)
		res = append(res, "\nhooks = true"...)
		return append(res, out[start:]...), nil
	}
	if cfg.Features != nil {
		return nil, errors.New("[features] is written in a form setup does not rewrite; set hooks = true in it by hand")
	}
	res := append([]byte(nil), out...)
	if len(res) > 0 {
		if res[len(res)-1] != '\n' {
			res = append(res, '\n')
		}
		res = append(res, '\n')
	}
	return append(res, "[features]\nhooks = true\n"...), nil
}

// dropEmptyFeatures removes a [features] table holding no key (only blank
// lines up to the next table or the end), with the blank line before it.
func dropEmptyFeatures(data []byte) []byte {
	loc := codexFeatures.Get().FindIndex(data)
	if loc == nil {
		return data
	}
	end := len(data)
	if m := nextTable.Get().FindIndex(data[loc[1]:]); m != nil {
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

// disableCodexHooks takes hooks = true (and an older setup's codex_hooks
// = true) out of a Codex config.toml, and the [features] table when it is
// then empty; empty reports a file left with nothing else (it can go). A
// flag that is not true is left as it is.
func disableCodexHooks(old []byte) (out []byte, empty bool, err error) {
	cfg, err := decodeCodex(old)
	if err != nil {
		return nil, false, err
	}
	out = old
	for key, line := range map[string]*lazy.Value[*regexp.Regexp]{"hooks": &hooksOnLine, "codex_hooks": &legacyOnLine} {
		if on, _ := cfg.Features[key].(bool); !on {
			continue
		}
		next := inFeatures(out, func(body []byte) []byte { return line.Get().ReplaceAll(body, nil) })
		if bytes.Equal(next, out) {
			return nil, false, fmt.Errorf("%s is set in a form remove does not rewrite; take it out of [features] by hand", key)
		}
		out = next
	}
	if bytes.Equal(out, old) {
		return old, false, nil
	}
	out = dropEmptyFeatures(out)
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
// ([features] hooks, or its deprecated name codex_hooks): FeatureOn,
// FeatureOff (either is false) or FeatureUnset; deprecated reports a
// codex_hooks key, which Codex 0.169 warns about on every run.
func CodexHooksFeature(data []byte) (state string, deprecated bool, err error) {
	cfg, err := decodeCodex(data)
	if err != nil {
		return "", false, err
	}
	_, deprecated = cfg.Features["codex_hooks"]
	state = FeatureUnset
	for _, key := range []string{"codex_hooks", "hooks"} {
		v, set := cfg.Features[key]
		if !set {
			continue
		}
		if on, _ := v.(bool); !on {
			return FeatureOff, deprecated, nil
		}
		state = FeatureOn
	}
	return state, deprecated, nil
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
