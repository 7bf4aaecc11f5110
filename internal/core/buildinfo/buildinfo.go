// Package buildinfo owns the build stamp: which version and commit a
// binary was built from, resolved from the -ldflags version and the build
// information Go stamps into every binary, and the line `version` prints.
// `go install github.com/agentx-dev/agentx/cmd/agentx-hook@v1.2.3` then
// identifies itself as v1.2.3 without any -ldflags, and a build in a
// checkout names its commit.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Info is what a binary knows about its own build.
type Info struct {
	Version   string // -ldflags Version, else the module version (go install ...@vX), else "dev"
	Commit    string // vcs.revision, "" when built outside a checkout
	Dirty     bool   // vcs.modified
	GoVersion string
	// DevReason says why Version is "dev" ("" when it is not).
	DevReason string
}

// Read is the running binary's Info, ldflags being the version set at
// link time ("dev" when none was).
func Read(ldflags string) Info {
	bi, _ := debug.ReadBuildInfo()
	return From(ldflags, bi)
}

// From is Read over the -ldflags version and bi (nil: no build
// information).
func From(ldflags string, bi *debug.BuildInfo) Info {
	v := fromInfo(ldflags, bi)
	if v.Version == "dev" {
		v.DevReason = devReason(v, bi)
	}
	return v
}

// devReason says why a build has no version: go run and go build stamp
// the commit (and, since Go 1.24, a version) only when they build inside a
// git checkout with VCS stamping on.
func devReason(v Info, bi *debug.BuildInfo) string {
	switch {
	case bi == nil:
		return "the binary carries no build information"
	case v.Commit == "":
		return "no VCS stamp: built with go run, with -buildvcs=false, or from a copy of the module without its .git; `go install ./cmd/agentx-hook` in a clone names the commit"
	default:
		return "built from a checkout, not from a tagged release"
	}
}

func fromInfo(ldflags string, bi *debug.BuildInfo) Info {
	v := Info{Version: ldflags}
	if bi == nil {
		return v
	}
	v.GoVersion = bi.GoVersion
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Dirty = s.Value == "true"
		}
	}
	return v
}

// String is "v1.2.3 (commit abc1234)", the version alone when no commit
// is known.
func (v Info) String() string {
	if v.Commit == "" {
		return v.Version
	}
	c := v.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if v.Dirty {
		c += ", modified"
	}
	return fmt.Sprintf("%s (commit %s)", v.Version, c)
}

// Line is `version`'s text: String, and for "dev" the reason it has no
// version.
func (v Info) Line() string {
	if v.DevReason != "" {
		return v.String() + " (" + v.DevReason + ")"
	}
	return v.String()
}
