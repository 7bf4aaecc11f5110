package hostsettings

// claudeHost is Claude Code: .claude/settings.json, SessionStart (hook
// start --format claude), SessionEnd and PreCompact (hook finish).
func claudeHost() Host {
	return Host{Name: Claude, File: ".claude/settings.json", events: []hostEvent{
		// compact: memory comes back right after the session forgot it.
		{"SessionStart", group("startup|resume|clear|compact", "start", "--format claude", 10)},
		{"SessionEnd", group("", "finish", "", 0)},
		{"PreCompact", group("", "finish", "", 0)},
	}}
}
