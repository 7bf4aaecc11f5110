package buildinfo

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// Doc is `version --json`: the build stamp as a document, which doctor
// also reads back from the agentx-hook on PATH.
type Doc struct {
	Commit    string `json:"commit"`
	Dirty     bool   `json:"dirty"`
	GoVersion string `json:"goVersion"`
	jsonfile.Versioned
	Version string `json:"version"`
}

// Doc is v as `version --json` prints it.
func (v Info) Doc() *Doc {
	return &Doc{Version: v.Version, Commit: v.Commit, Dirty: v.Dirty, GoVersion: v.GoVersion}
}

// Info is the build a version document names.
func (d *Doc) Info() Info { return Info{Version: d.Version, Commit: d.Commit, Dirty: d.Dirty} }

// SameBuild reports whether v and o are one build: version, commit and
// whether the tree was modified.
func (v Info) SameBuild(o Info) bool {
	return v.Version == o.Version && v.Commit == o.Commit && v.Dirty == o.Dirty
}
