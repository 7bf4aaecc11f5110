package config

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

//go:embed defaults/*.toml
var defaults embed.FS

// DefaultFiles returns the files `init` writes: "agentx.toml" and
// "workflows/<name>.toml", with their content.
func DefaultFiles() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := fs.ReadDir(defaults, "defaults")
	for _, e := range entries {
		data, _ := defaults.ReadFile(path.Join("defaults", e.Name()))
		if e.Name() == "agentx.toml" {
			out["agentx.toml"] = data
		} else if strings.HasSuffix(e.Name(), ".toml") {
			out["workflows/"+e.Name()] = data
		}
	}
	return out
}
