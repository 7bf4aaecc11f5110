package hostsettings

import "encoding/json"

// CopilotInstructionsFile is where Copilot's sessionEnd command writes the
// agent's recall (`memory recall --write-instructions`), relative to the
// workspace root: Copilot reads it, and ignores what a hook prints. One
// clone's, excluded from git status in that clone (gitexclude).
const CopilotInstructionsFile = ".github/instructions/agentx-memory.instructions.md"

// copilotHost is GitHub Copilot CLI: .github/hooks/agentx.json, version
// 1, sessionStart (hook start --format copilot: 1.0.102 injects its
// additionalContext), sessionEnd and agentStop (hook finish --event E:
// the payloads name no event), each with a bash and a powershell command.
func copilotHost() Host {
	return Host{Name: Copilot, File: ".github/hooks/agentx.json",
		top: func(obj *jsonObject) {
			if _, ok := obj.get("version"); !ok {
				obj.set("version", json.Number("1"))
			}
		},
		events: []hostEvent{
			{"sessionStart", copilotStart},
			{"sessionEnd", copilotEntry(true)},
			{"agentStop", copilotEntry(false)},
			{"userPromptSubmitted", copilotDeliver("userPromptSubmitted")},
			{"postToolUse", copilotDeliver("postToolUse")},
		}}
}

// copilotStart is the sessionStart hook: the clarifications waiting for
// the agent and its recall, as {"additionalContext": ...}.
func copilotStart(agent string) *jsonObject {
	cmd := hookCommand("start", agent, "--format copilot")
	e := newJSONObject()
	e.set("type", "command")
	e.set("bash", cmd)
	e.set("powershell", cmd)
	e.set("timeoutSec", json.Number("10"))
	return e
}

// copilotDeliver is a mid-session hook that delivers answers as
// {"additionalContext": ...}; Copilot's payloads name no event, so the
// command does. At agentStop, finish itself returns the blocking answer
// as {"decision":"block"}.
func copilotDeliver(event string) func(string) *jsonObject {
	return func(agent string) *jsonObject {
		cmd := hookCommand("deliver", agent, "--format copilot --event "+event)
		e := newJSONObject()
		e.set("type", "command")
		e.set("bash", cmd)
		e.set("powershell", cmd)
		e.set("timeoutSec", json.Number("5"))
		return e
	}
}

// copilotEntry is a Copilot hook: one entry with a bash and a powershell
// command. At the session's end it also writes the instructions file
// Copilot reads at the next start (Copilot ignores what a start hook
// prints). That is one agent's recall: the agent named, else the
// session's $AGENTX_AGENT, else [hooks] default_agent, as the hooks
// choose theirs, so a first session with nothing set recalls too.
func copilotEntry(sessionEnd bool) func(string) *jsonObject {
	return func(agent string) *jsonObject {
		event := "--event agentStop"
		if sessionEnd {
			event = "--event sessionEnd"
		}
		bash, ps := hookCommand("finish", agent, event), hookCommand("finish", agent, event)
		switch {
		case sessionEnd && agent != "":
			recall := "agentx-hook memory recall --agent " + agent + " --write-instructions"
			bash += " && " + recall
			ps += "; " + recall
		case sessionEnd:
			bash += " && agentx-hook memory recall --write-instructions"
			ps += "; agentx-hook memory recall --write-instructions"
		}
		e := newJSONObject()
		e.set("type", "command")
		e.set("bash", bash)
		e.set("powershell", ps)
		e.set("timeoutSec", json.Number("30"))
		return e
	}
}
