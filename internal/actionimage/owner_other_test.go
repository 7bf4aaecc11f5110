//go:build !unix

package actionimage

import (
	"context"
	"errors"
	"io"
	"testing"
)

// Without uids, Chown is refused with the reason, not skipped: a check
// that said it owned the workspace to the runner's uid would be a lie.
func TestChownRefusedWithoutUIDs(t *testing.T) {
	err := Check(context.Background(), Options{Engine: &inProcess{}, RepoRoot: repoRoot(), Out: io.Discard, Chown: true})
	if !errors.Is(err, errNoUIDs) {
		t.Fatalf("Check with Chown = %v, want %v", err, errNoUIDs)
	}
}
