package hostsettings

import (
	"bytes"
	"testing"
)

// Wiring Claude Code imports AGENTS.md from CLAUDE.md, once; unwiring
// gives back the user's file byte for byte, or no file when setup made it.
func TestClaudeImportRoundTrip(t *testing.T) {
	t.Parallel()
	h, _ := For(Claude)
	for name, c := range map[string]struct {
		old       []byte
		exists    bool
		unchanged bool // already imports AGENTS.md: nothing to add
	}{
		"no CLAUDE.md":             {nil, false, false},
		"an empty CLAUDE.md":       {[]byte{}, true, false},
		"the user's notes":         {[]byte("# Notes\n\nRun make test.\n"), true, false},
		"no newline at the end":    {[]byte("# Notes"), true, false},
		"a blank first line":       {[]byte("\n\n# Notes\n"), true, false},
		"the user's own import":    {[]byte("# Notes\n@AGENTS.md\n"), true, true},
		"the user's own ./ import": {[]byte("  @./AGENTS.md  \nmore\n"), true, true},
		"a mention, not an import": {[]byte("see @AGENTS.md for more\n"), true, false},
	} {
		files := Files{}
		if c.exists {
			files[ClaudeFile] = c.old
		}
		edits, err := Wire(h, files, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e := edits[len(edits)-1]
		if e.Path != ClaudeFile {
			t.Fatalf("%s: last edit %s", name, e.Path)
		}
		if c.unchanged != (e.Action == Unchanged) {
			t.Fatalf("%s: %s", name, e.Action)
		}
		if !ImportsAgents(e.New) {
			t.Fatalf("%s: no import in %q", name, e.New)
		}
		wired := Files{ClaudeFile: e.New}
		again, err := Wire(h, wired, "")
		if err != nil || again[len(again)-1].Action != Unchanged {
			t.Fatalf("%s: a second wire: %v %v", name, again[len(again)-1].Action, err)
		}
		un, err := Unwire(h, wired)
		if err != nil {
			t.Fatal(err)
		}
		u := un[len(un)-1]
		switch {
		case !c.exists:
			if u.Action != Removed {
				t.Errorf("%s: the file setup created is %s, not removed", name, u.Action)
			}
		case !bytes.Equal(u.New, c.old) && !(len(c.old) == 0 && len(u.New) == 0):
			t.Errorf("%s: unwired to %q, want %q", name, u.New, c.old)
		case u.Action == Removed:
			t.Errorf("%s: the user's file was removed", name)
		}
	}
}

// A file setup created that the user wrote into since stays, less the
// block; a marker whose import line was deleted gets the import back.
func TestClaudeImportKeepsWhatTheUserAdded(t *testing.T) {
	t.Parallel()
	created, _ := wireClaudeMD(nil, false)
	next, empty, err := unwireClaudeMD(append(append([]byte(nil), created...), "# Mine\n"...))
	if err != nil || empty || string(next) != "# Mine\n" {
		t.Fatalf("unwire = %q, %v, %v", next, empty, err)
	}
	marker := claudeBlock(false)
	marker = marker[:bytes.IndexByte(marker, '\n')+1]
	fixed, err := wireClaudeMD(append(append([]byte(nil), marker...), "\n# Notes\n"...), true)
	if err != nil || !bytes.Equal(fixed, append(claudeBlock(false), "\n# Notes\n"...)) {
		t.Fatalf("rewire = %q, %v", fixed, err)
	}
}
