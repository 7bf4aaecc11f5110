package sanitize

import (
	"strings"
	"testing"
)

// Issue 32's smaller secrets: a PuTTY key cut before its MAC hides the
// rest, like an unterminated PEM block; a URL password holding '#'.
func TestIssue32Secrets(t *testing.T) {
	t.Parallel()
	cut := "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 1\nAAAAgQC7q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7"
	if got := Text(cut); got != "[REDACTED:putty-private-key]" {
		t.Fatalf("cut ppk: %q", got)
	}
	for _, in := range []string{"DATABASE_URL=postgres://app:hun#ter2@db.internal/app", "see mysql://root:a#b#c@127.0.0.1/x"} {
		if got := Text(in); strings.Contains(got, "ter2") || strings.Contains(got, "a#b#c") || !strings.Contains(got, "[REDACTED:") {
			t.Fatalf("Text(%q) = %q", in, got)
		}
	}
	if got := Text("https://example.com/page#section@top"); got != "https://example.com/page#section@top" {
		t.Fatalf("a fragment was taken for a password: %q", got)
	}
}
