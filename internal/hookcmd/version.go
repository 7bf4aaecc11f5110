package hookcmd

import (
	"fmt"
	"runtime/debug"
)

// versionInfo is what the binary knows about its own build.
type versionInfo struct {
	Version   string // -ldflags Version, else the module version (go install ...@vX), else "dev"
	Commit    string // vcs.revision, "" when built outside a checkout
	Dirty     bool   // vcs.modified
	GoVersion string
	// DevReason says why Version is "dev" ("" when it is not).
	DevReason string
}

// buildVersion reads the build information Go stamps into every binary:
// `go install github.com/agentx-dev/agentx/cmd/agentx-hook@v1.2.3` then
// identifies itself as v1.2.3 without any -ldflags, and a build in a
// checkout names its commit.
func buildVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(Version, bi)
}

// versionFrom is buildVersion over the -ldflags version and bi (nil:
// no build information).
func versionFrom(ldflags string, bi *debug.BuildInfo) versionInfo {
	v := versionFromInfo(ldflags, bi)
	if v.Version == "dev" {
		v.DevReason = devReason(v, bi)
	}
	return v
}

// devReason says why a build has no version: go run and go build stamp
// the commit (and, since Go 1.24, a version) only when they build inside a
// git checkout with VCS stamping on.
func devReason(v versionInfo, bi *debug.BuildInfo) string {
	switch {
	case bi == nil:
		return "the binary carries no build information"
	case v.Commit == "":
		return "no VCS stamp: built with go run, with -buildvcs=false, or from a copy of the module without its .git; `go install ./cmd/agentx-hook` in a clone names the commit"
	default:
		return "built from a checkout, not from a tagged release"
	}
}

func versionFromInfo(ldflags string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: ldflags}
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

// versionLine is `agentx-hook version`'s text: "v1.2.3 (commit abc1234)",
// or "dev" with the reason it has no version.
func versionLine() string {
	v := buildVersion()
	if v.DevReason != "" {
		return formatVersion(v) + " (" + v.DevReason + ")"
	}
	return formatVersion(v)
}

func formatVersion(v versionInfo) string {
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

// didYouMean is ` (did you mean "x"?)` for the closest of names to got,
// or "" when none is close: at most a third of the word may differ.
func didYouMean(got string, names []string) string {
	best, bestD := "", len(got)/3+1
	for _, n := range names {
		if d := editDistance(got, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
