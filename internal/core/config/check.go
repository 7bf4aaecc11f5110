package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
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
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Message) }

// warnings are what a person should fix in agentx.toml that does not stop
// it loading: a key or section the toolkit does not read (a typo such as
// [responder.x] for [responders.x] would otherwise be ignored in silence)
// and a mode other than local or github. Each names the file and line.
func warnings(path string, data []byte, md toml.MetaData, c Config) []Warning {
	var out []Warning
	seen := map[string]bool{}
	for _, k := range md.Undecoded() {
		top := topUndecoded(md, k)
		if seen[top.String()] {
			continue
		}
		seen[top.String()] = true
		what := "key"
		if len(top) < len(k) || md.Type(top...) == "Hash" || md.Type(top...) == "ArrayHash" {
			what = "section"
		}
		out = append(out, Warning{Path: path, Line: lineOf(data, top), Kind: WarnUnknownKey,
			Message: fmt.Sprintf("unknown %s %q is ignored", what, top.String())})
	}
	switch c.Mode {
	case "", "local", "github":
	default:
		out = append(out, Warning{Path: path, Line: lineOf(data, toml.Key{"mode"}), Kind: WarnUnknownMode,
			Message: fmt.Sprintf("mode %q is neither local nor github; local is used", c.Mode)})
	}
	return out
}

// topUndecoded is k's shortest prefix under which nothing was decoded:
// one warning for an unknown section, not one per key in it.
func topUndecoded(md toml.MetaData, k toml.Key) toml.Key {
	undecoded := map[string]bool{}
	for _, u := range md.Undecoded() {
		undecoded[u.String()] = true
	}
	var decoded []string
	for _, key := range md.Keys() {
		if !undecoded[key.String()] {
			decoded = append(decoded, key.String())
		}
	}
	for i := 1; i < len(k); i++ {
		p := k[:i].String()
		used := false
		for _, d := range decoded {
			if d == p || strings.HasPrefix(d, p+".") {
				used = true
				break
			}
		}
		if !used {
			return k[:i]
		}
	}
	return k
}

// The line patterns of lineOf, compiled on first use: only a file with a
// key to warn about needs them, and every process loads the configuration.
var (
	tomlHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	})
	tomlKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9_."' -]+?)\s*=`) })
)

// lineOf is the first line that defines key or a table inside it, as a
// header or as a key line under the current header (0 when not found).
// TOML parsers report no key positions; a line scan is enough for the
// plain files people write.
func lineOf(data []byte, key toml.Key) int {
	want := normKey(key.String())
	table := ""
	for i, line := range strings.Split(string(data), "\n") {
		var path string
		if m := tomlHeader().FindStringSubmatch(line); m != nil {
			table = normKey(m[1])
			path = table
		} else if m := tomlKey().FindStringSubmatch(line); m != nil {
			path = normKey(m[1])
			if table != "" {
				path = table + "." + path
			}
		} else {
			continue
		}
		if path == want || strings.HasPrefix(path, want+".") {
			return i + 1
		}
	}
	return 0
}

func normKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
