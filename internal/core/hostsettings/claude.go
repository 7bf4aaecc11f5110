package hostsettings

// claudeHost is Claude Code: .claude/settings.json, SessionStart (hook
// start --format claude), SessionEnd and PreCompact (hook finish), and
// the mid-session hooks that deliver answers (hook deliver): on each
// prompt (UserPromptSubmit) and tool call (PostToolUse) as
// hookSpecificOutput.additionalContext, at a Stop as the reason to go on
// when the agent's blocking question was answered.
func claudeHost() Host {
	return Host{Name: Claude, File: ".claude/settings.json", events: []hostEvent{
		// compact: memory comes back right after the session forgot it.
		{"SessionStart", group("startup|resume|clear|compact", "start", "--format claude", 10)},
		{"SessionEnd", group("", "finish", "", 0)},
		{"PreCompact", group("", "finish", "", 0)},
		{"UserPromptSubmit", group("", "deliver", "--format claude", DeliverTimeout)},
		{"PostToolUse", group("", "deliver", "--format claude", DeliverTimeout)},
		{"Stop", group("", "deliver", "--format claude", DeliverTimeout)},
	}}
}

// DeliverTimeout is the timeout (seconds) setup gives the deliver hooks:
// they take milliseconds, and a host must never wait long on one.
const DeliverTimeout = 5
