package hostsettings

import (
	"bytes"
)

// ClaudeFile is Claude Code's instructions file at the repository root.
// Claude Code does not read AGENTS.md by itself; an `@AGENTS.md` line in
// CLAUDE.md imports it, agentx's section with it.
const ClaudeFile = "CLAUDE.md"

// The import block setup puts at the top of CLAUDE.md: a marker line that
// says whose it is (and, in the second form, that setup created the file,
// so --remove may delete it again), then the import.
const (
	claudeImport        = "@AGENTS.md"
	claudeMarker        = "<!-- agentx: Claude Code reads AGENTS.md (agentx's section too) through the import below; `agentx-hook setup --claude --remove` takes it out -->"
	claudeMarkerCreated = "<!-- agentx: created this file so Claude Code reads AGENTS.md (agentx's section too) through the import below; `agentx-hook setup --claude --remove` deletes it when nothing else is here -->"
)

func claudeBlock(created bool) []byte {
	m := claudeMarker
	if created {
		m = claudeMarkerCreated
	}
	return []byte(m + "\n" + claudeImport + "\n")
}

// ImportsAgents reports whether CLAUDE.md's bytes import AGENTS.md: a
// line `@AGENTS.md` or `@./AGENTS.md`, agentx's or the user's own.
func ImportsAgents(data []byte) bool {
	for line := range bytes.Lines(data) {
		switch string(bytes.TrimSpace(line)) {
		case "@AGENTS.md", "@./AGENTS.md":
			return true
		}
	}
	return false
}

// findClaudeBlock locates agentx's block: its marker on a line of its own
// (at the start of the file, where setup puts it, or wherever the user
// moved it) and the import line after it, when that is still there.
func findClaudeBlock(data []byte) (start, end int, created, ok bool) {
	for _, c := range []bool{false, true} {
		m := claudeBlock(c)
		m = m[:bytes.IndexByte(m, '\n')+1]
		i := bytes.Index(data, m)
		if i < 0 || (i > 0 && data[i-1] != '\n') {
			continue
		}
		end = i + len(m)
		if rest := data[end:]; bytes.HasPrefix(rest, []byte(claudeImport+"\n")) {
			end += len(claudeImport) + 1
		} else if string(rest) == claudeImport {
			end = len(data)
		}
		return i, end, c, true
	}
	return 0, 0, false, false
}

// wireClaudeMD returns CLAUDE.md with the import: unchanged when the file
// imports AGENTS.md already (agentx's block or the user's line); else the
// block and one blank line before the user's text, which is kept byte for
// byte; a new file holding the block alone when there was none.
func wireClaudeMD(old []byte, exists bool) ([]byte, error) {
	if err := checkSize(old); err != nil {
		return nil, err
	}
	if !exists {
		return claudeBlock(true), nil
	}
	if ImportsAgents(old) {
		return old, nil
	}
	if start, end, created, ok := findClaudeBlock(old); ok {
		// The marker without its import (the line deleted by hand): the
		// import back after it.
		out := append(append([]byte(nil), old[:start]...), claudeBlock(created)...)
		return append(out, old[end:]...), nil
	}
	out := claudeBlock(false)
	out = append(out, '\n')
	return append(out, old...), nil
}

// unwireClaudeMD takes agentx's block out of CLAUDE.md (and the blank
// line setup put after it), the user's text byte for byte; empty is set
// when setup created the file and nothing else is in it, so it goes. A
// file without the block is unchanged (a user's own import stays).
func unwireClaudeMD(old []byte) (next []byte, empty bool, err error) {
	if err := checkSize(old); err != nil {
		return nil, false, err
	}
	start, end, created, ok := findClaudeBlock(old)
	if !ok {
		return old, false, nil
	}
	if !created && start == 0 && end < len(old) && old[end] == '\n' {
		end++ // the blank line setup put before the user's text
	}
	next = append(append([]byte(nil), old[:start]...), old[end:]...)
	return next, created && len(bytes.TrimSpace(next)) == 0, nil
}
