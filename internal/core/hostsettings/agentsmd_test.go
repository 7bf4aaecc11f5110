package hostsettings

import (
	"bytes"
	"strings"
	"testing"
)

func TestAgentsSection(t *testing.T) {
	t.Parallel()
	user := "# Our rules\n\nRun make test before pushing.\n"
	first, err := AgentsSection([]byte(user))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(first), user+"\n"+agentsBegin) || !strings.HasSuffix(string(first), agentsEnd+"\n") {
		t.Fatalf("appended:\n%s", first)
	}
	again, err := AgentsSection(first)
	if err != nil || !bytes.Equal(again, first) {
		t.Fatalf("a second run changed the file (%v):\n%s", err, again)
	}
	// An old section between the markers is replaced; the user's text on
	// both sides stays.
	stale := user + "\n" + agentsBegin + "\nold text\n" + agentsEnd + "\n\n## After\nmore rules\n"
	got, err := AgentsSection([]byte(stale))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "old text") || !strings.HasPrefix(string(got), user) || !strings.HasSuffix(string(got), "\n## After\nmore rules\n") {
		t.Fatalf("replaced:\n%s", got)
	}
	if created, _ := AgentsSection(nil); !strings.HasPrefix(string(created), agentsBegin) {
		t.Fatalf("created:\n%s", created)
	}
	if _, err := AgentsSection([]byte(user + agentsEnd + "\n")); err == nil {
		t.Fatal("a lone end marker was rewritten")
	}
}
