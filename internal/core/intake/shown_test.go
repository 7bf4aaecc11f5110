package intake

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/capture"
)

// The raw form gives the same observation as --name-status, plus blobs.
func TestParseShownMatchesNameStatus(t *testing.T) {
	t.Parallel()
	out := "850dd3a1111111111111111111111111111111111 Fix login\n\n" +
		":100644 100644 " + zeros + " 1111111111111111111111111111111111111111 M\tauth/login.go\n" +
		":100644 100644 2222222222222222222222222222222222222222 3333333333333333333333333333333333333333 R086\told.md\tdocs/new.md\n" +
		":100644 000000 4444444444444444444444444444444444444444 " + zeros + " D\tgone.go\n"
	sh := ParseShown(out)
	if sh.Commit != "850dd3a1111111111111111111111111111111111" || len(sh.Files) != 3 {
		t.Fatalf("shown = %+v", sh)
	}
	if f := sh.Files[1]; f.Path != "docs/new.md" || f.Blob != "3333333333333333333333333333333333333333" || f.Status != "R086" {
		t.Fatalf("rename = %+v", f)
	}
	c, ok := capture.FromCommit(sh.NameStatus)
	if !ok || c.Content != "Commit 850dd3a: Fix login. Files: M auth/login.go, R old.md -> docs/new.md, D gone.go" {
		t.Fatalf("observation = %q", c.Content)
	}
}

const zeros = "0000000000000000000000000000000000000000"
