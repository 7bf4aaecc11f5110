package gitstore

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// A revision that is no ref name git accepts (`sync --init-from ../../x`)
// is a revision not found, with the hint on what to give, not an IO_ERROR
// telling the user to check the disk and permissions.
func TestResolveRefusesAnUnsafeRevisionAsNotFound(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	for _, rev := range []string{"../../x", "a/../../b", "x\x01y"} {
		_, err := r.Resolve(rev)
		if code, _ := errcode.Classify(err); code != errcode.NotFound {
			t.Errorf("Resolve(%q) = %v (%s), want NOT_FOUND", rev, err, code)
		}
	}
}
