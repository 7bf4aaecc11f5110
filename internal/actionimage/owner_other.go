//go:build !unix

package actionimage

import (
	"errors"
	"fmt"
)

// errNoUIDs is why Options.Chown fails here: files carry no unix uid on
// this system, so the workspace can be neither given to the runner's uid
// nor checked for files it cannot own. The rest of Check (the steps, the
// fake GitHub, the verifications) runs the same as on unix; the image
// itself is Linux and is checked on Linux (scripts/ci/action.sh).
var errNoUIDs = errors.New("options.Chown needs unix file ownership (uids); run the image check with Chown on Linux")

func chownTree(root string, uid int) error {
	return fmt.Errorf("chown %s to uid %d: %w", root, uid, errNoUIDs)
}

func ownedByRunner(root string) error {
	return fmt.Errorf("check %s is owned by uid %d: %w", root, RunnerUID, errNoUIDs)
}
