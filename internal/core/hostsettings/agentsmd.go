package hostsettings

import (
	"bytes"
	"fmt"
)

// AgentsFile is the instructions file Codex, Copilot and Claude Code (with
// an import) read at the repository root.
const AgentsFile = "AGENTS.md"

// The markers around agentx's section of AGENTS.md: only what lies between
// them is agentx's, and a rewrite replaces nothing else.
const (
	agentsBegin = "<!-- agentx:begin (written by `agentx-hook init`; edit outside these markers) -->"
	agentsEnd   = "<!-- agentx:end -->"
)

// agentsSection is what an agent in this repository needs to know of
// agentx: the tools when its host has them, the commands otherwise.
const agentsSection = agentsBegin + `
## agentx: asking other agents, and memory

This repository uses agentx. A session starts with what waits for you (the
` + "`hook start`" + ` output): answer questions addressed to you before other work.
Use the MCP tools of the ` + "`agentx`" + ` server when your host lists them, the
` + "`agentx-hook`" + ` commands otherwise.

- A requirement is unclear: ask, do not guess. ` + "`clarify_request`" + `, or
  ` + "`agentx-hook clarify request --issue N --from YOU --to AGENT --topic T --question Q`" + `
  (blocking by default; ` + "`--non-blocking`" + ` to go on working).
- Only a person can decide (a product call, an access, a risk): ask them the
  same way, ` + "`--to human`" + ` (anyone) or a name of ` + "`[people]`" + ` in ` + "`.agentx/agentx.toml`" + `.
- What waits for you and your own requests: ` + "`clarify_inbox`" + `, or ` + "`agentx-hook clarify`" + `.
- Answer: ` + "`clarify_answer`" + `, or ` + "`agentx-hook clarify answer CLR-N-NNN --body \"...\"`" + `.
- Settle an answered request: ` + "`clarify_resolve`" + `, or
  ` + "`agentx-hook clarify resolve CLR-N-NNN --body \"what you decided\"`" + `.
- Earlier sessions' decisions and errors: ` + "`memory_search`" + `, or
  ` + "`agentx-hook memory search WORDS`" + `; record a decision now: ` + "`memory_remember`" + `, or
  ` + "`agentx-hook memory add --agent YOU --issue N --category decision \"...\"`" + `.
- Never put secrets in questions, answers or memory: agentx removes the ones
  it recognises, not every one.
` + agentsEnd + "\n"

// AgentsSection puts agentx's section into AGENTS.md (old; nil when it
// does not exist): replaced between its markers when they are there,
// appended after the user's text otherwise. Everything outside the
// markers is kept byte for byte; a file already holding the section comes
// back unchanged.
func AgentsSection(old []byte) ([]byte, error) {
	if err := checkSize(old); err != nil {
		return nil, err
	}
	begin := bytes.Index(old, []byte(agentsBegin))
	end := bytes.Index(old, []byte(agentsEnd))
	switch {
	case begin < 0 && end < 0:
		out := append([]byte(nil), old...)
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(bytes.TrimRight(out, "\n"), "\n\n"...)
		} else {
			out = out[:0]
		}
		return append(out, agentsSection...), nil
	case begin < 0 || end < begin:
		return nil, fmt.Errorf("%s has one of agentx's markers without the other; fix it by hand", AgentsFile)
	}
	stop := end + len(agentsEnd)
	if stop < len(old) && old[stop] == '\n' {
		stop++
	}
	out := append([]byte(nil), old[:begin]...)
	out = append(out, agentsSection...)
	return append(out, old[stop:]...), nil
}

// RemoveAgentsSection takes agentx's section (and the blank line init put
// before it) out of AGENTS.md's old bytes, keeping the user's text byte
// for byte; empty when nothing else was there. changed is false when the
// file holds no section.
func RemoveAgentsSection(old []byte) (next []byte, changed bool, err error) {
	if err := checkSize(old); err != nil {
		return nil, false, err
	}
	begin := bytes.Index(old, []byte(agentsBegin))
	end := bytes.Index(old, []byte(agentsEnd))
	switch {
	case begin < 0 && end < 0:
		return old, false, nil
	case begin < 0 || end < begin:
		return nil, false, fmt.Errorf("%s has one of agentx's markers without the other; fix it by hand", AgentsFile)
	}
	stop := end + len(agentsEnd)
	if stop < len(old) && old[stop] == '\n' {
		stop++
	}
	before, after := old[:begin], old[stop:]
	if len(after) == 0 {
		// AgentsSection appended after "\n\n": the user's text ended in
		// one newline before.
		before = append(bytes.TrimRight(before, "\n"), '\n')
		if len(bytes.TrimSpace(before)) == 0 {
			before = nil
		}
	}
	return append(append([]byte(nil), before...), after...), true, nil
}
