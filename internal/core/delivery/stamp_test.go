//go:build unix

package delivery

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO where a stamp belongs is no stamp: the check every prompt and
// tool call makes reads nothing and returns, where a plain open would
// block until a writer came (the hook hung for good). Called inline: a
// regression ends in the test binary's timeout naming this test.
func TestStampFIFOIsRefusedNotWaitedOn(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(filepath.Join(f.ws.InboxDir(), sessionsName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(f.ws.InboxDir(), generationName), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(sessionFile(f.ws, "s1"), 0o644); err != nil {
		t.Fatal(err)
	}
	gen, _, hasSeen, news := News(f.ws, "s1")
	if gen != "" || hasSeen || !news {
		t.Fatalf("News over FIFOs = %q, hasSeen %v, news %v; want \"\", false, true", gen, hasSeen, news)
	}
}
