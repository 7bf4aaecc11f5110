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

// RemoveAgentsSection undoes AgentsSection byte for byte, whatever the
// user's text around it (uninstall, issue 37).
func TestRemoveAgentsSectionUndoesAgentsSection(t *testing.T) {
	t.Parallel()
	for _, old := range []string{"", "# Ours\n", "# Ours\n\nBe brief.\n", "# Ours", "# Ours\n\n\n"} {
		with, err := AgentsSection([]byte(old))
		if err != nil {
			t.Fatal(err)
		}
		got, changed, err := RemoveAgentsSection(with)
		if err != nil || !changed {
			t.Fatalf("%q: changed %v, %v", old, changed, err)
		}
		want := old
		if strings.TrimSpace(old) != "" && !strings.HasSuffix(old, "\n") {
			want += "\n" // AgentsSection ended the user's last line
		} else if strings.TrimSpace(old) != "" {
			want = strings.TrimRight(old, "\n") + "\n"
		}
		if string(got) != want {
			t.Errorf("%q: came back as %q", old, got)
		}
	}
	// A section in the middle: the text after it stays too.
	mid := []byte("# Ours\n\n" + agentsSection + "## After\n")
	got, _, err := RemoveAgentsSection(mid)
	if err != nil || string(got) != "# Ours\n\n## After\n" {
		t.Errorf("middle: %q %v", got, err)
	}
	if _, changed, _ := RemoveAgentsSection([]byte("# Ours\n")); changed {
		t.Error("a file without the section changed")
	}
	if _, _, err := RemoveAgentsSection([]byte("x " + agentsBegin)); err == nil {
		t.Error("a lone marker: no error")
	}
}
