package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// Kinds of Warning.
const (
	// WarnUnknownKey: a key or section the toolkit does not read.
	WarnUnknownKey = "unknown-key"
	// WarnUnknownMode: a mode other than local or github.
	WarnUnknownMode = "unknown-mode"
)

// Warning is one thing a person should fix in agentx.toml that does not
// stop it loading; String is the line the CLI prints.
type Warning struct {
	Path string
	// Line is 1-based; 0 when the key could not be found in the text.
	Line    int
	Kind    string
	Message string
	// person is the [people] name a WarnPersonIsAgent is about.
	person string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Message) }

// warnings are what a person should fix in agentx.toml that does not stop
// it loading: a key or section the toolkit does not read (a typo such as
// [responder.x] for [responders.x] would otherwise be ignored in silence)
// and a mode other than local or github. Each names the file and line.
//
// It is linear in the file: a file of 2,000 unknown sections (one can
// arrive in a pull request) cost 9.5-16 s in every command when each
// warning rebuilt the decoded keys and re-scanned the text for its line.
func warnings(path string, data []byte, md toml.MetaData, c Config) []Warning {
	var out []Warning
	undecodedKeys := md.Undecoded()
	if len(undecodedKeys) > 0 {
		used := decodedPrefixes(md, undecodedKeys)
		lines := keyLines(data)
		seen := map[string]bool{}
		for _, k := range undecodedKeys {
			top := topUndecoded(used, k)
			name := top.String()
			if seen[name] {
				continue
			}
			seen[name] = true
			what := "key"
			if len(top) < len(k) || md.Type(top...) == "Hash" || md.Type(top...) == "ArrayHash" {
				what = "section"
			}
			out = append(out, Warning{Path: path, Line: lines[normKey(name)], Kind: WarnUnknownKey,
				Message: fmt.Sprintf("unknown %s %q is ignored", what, name)})
		}
	}
	switch c.Mode {
	case "", "local", "github":
	default:
		out = append(out, Warning{Path: path, Line: keyLines(data)["mode"], Kind: WarnUnknownMode,
			Message: fmt.Sprintf("mode %q is neither local nor github; local is used", c.Mode)})
	}
	return out
}

// MaxUnknownWarnings is how many unknown-key warnings a command prints;
// the rest are counted in one more line (verify lists them all).
const MaxUnknownWarnings = 5

// printed is what a command prints of ws: every warning while they are
// few, else the first MaxUnknownWarnings unknown keys, a count of the
// others, and every other kind.
func printed(path string, ws []Warning) []string {
	var out []string
	more := map[string]int{}
	shown := map[string]int{}
	for _, w := range ws {
		if w.Kind == WarnUnknownKey || w.Kind == WarnPersonIsAgent {
			if shown[w.Kind] == MaxUnknownWarnings {
				more[w.Kind]++
				continue
			}
			shown[w.Kind]++
		}
		out = append(out, w.String())
	}
	if n := more[WarnUnknownKey]; n > 0 {
		out = append(out, fmt.Sprintf("%s: %d more unknown keys or sections are ignored (`agentx-hook verify` lists them all)", path, n))
	}
	if n := more[WarnPersonIsAgent]; n > 0 {
		out = append(out, fmt.Sprintf("%s: %d more people are also agents (--to human:NAME asks the person)", path, n))
	}
	return out
}

// decodedPrefixes is every decoded key and each of its prefixes.
func decodedPrefixes(md toml.MetaData, undecodedKeys []toml.Key) map[string]bool {
	undecoded := make(map[string]bool, len(undecodedKeys))
	for _, u := range undecodedKeys {
		undecoded[u.String()] = true
	}
	used := map[string]bool{}
	for _, key := range md.Keys() {
		if undecoded[key.String()] {
			continue
		}
		for i := 1; i <= len(key); i++ {
			used[key[:i].String()] = true
		}
	}
	return used
}

// topUndecoded is k's shortest prefix under which nothing was decoded:
// one warning for an unknown section, not one per key in it.
func topUndecoded(used map[string]bool, k toml.Key) toml.Key {
	for i := 1; i < len(k); i++ {
		if !used[k[:i].String()] {
			return k[:i]
		}
	}
	return k
}

// The line patterns of keyLines, compiled on first use: only a file with a
// key to warn about needs them, and every process loads the configuration.
var (
	tomlHeader = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	}}
	tomlKey = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9_."' -]+?)\s*=`) }}
)

// keyLines maps each key path, and each of its prefixes, to the first
// line (1-based) that defines it or a table inside it, as a header or as a
// key line under the current header; a key not found is 0. TOML parsers
// report no key positions; one scan is enough for the plain files people
// write.
func keyLines(data []byte) map[string]int {
	out := map[string]int{}
	table := ""
	for i, line := range strings.Split(string(data), "\n") {
		var path string
		if m := tomlHeader.Get().FindStringSubmatch(line); m != nil {
			table = normKey(m[1])
			path = table
		} else if m := tomlKey.Get().FindStringSubmatch(line); m != nil {
			path = normKey(m[1])
			if table != "" {
				path = table + "." + path
			}
		} else {
			continue
		}
		for p := path; ; {
			if _, ok := out[p]; ok {
				break // its prefixes were recorded with it, at an earlier line
			}
			out[p] = i + 1
			dot := strings.LastIndexByte(p, '.')
			if dot < 0 {
				break
			}
			p = p[:dot]
		}
	}
	return out
}

func normKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
