package hookcmd

import (
	"github.com/agentx-dev/agentx/internal/core/buildinfo"
)

// buildVersion is this binary's build stamp (-ldflags Version, else what
// Go stamped).
func buildVersion() buildinfo.Info { return buildinfo.Read(Version) }

// versionLine is `agentx-hook version`'s text.
func versionLine() string { return buildVersion().Line() }
