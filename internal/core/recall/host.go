package recall

// Copilot reads recall from an instructions file, not from hook output
// (`memory recall --write-instructions` writes it): CopilotMaxChars bounds
// the file, CopilotHeaderChars is kept for its front matter and title.
const (
	CopilotMaxChars    = 8000
	CopilotHeaderChars = 250
)

// sectionTitle is what the host counts besides the section body.
const sectionTitle = "\n## Memory Recall\n"

// HostCeiling returns a host's limits on hook context (0: none): claude
// and copilot count characters, codex tokens; text and json have none.
func HostCeiling(host string) (chars, tokens int) {
	switch host {
	case "claude":
		return ClaudeMaxChars, 0
	case "codex":
		return 0, CodexMaxTokens
	case "copilot":
		return CopilotMaxChars, 0
	}
	return 0, 0
}

// SectionBudget is the characters a recall's section body may take for
// host: the smaller of maxTokens and the host's ceiling, less the section
// title. In a hook (inHook) the rest of the hook's output, used
// characters, shares the host's ceiling. 0 or less: no room.
func SectionBudget(host string, maxTokens int, inHook bool, used int) int {
	hostChars, hostTokens := HostCeiling(host)
	if hostTokens > 0 {
		hostChars = hostTokens * CharsPerToken
	}
	if inHook && hostChars > 0 {
		hostChars -= used
		if hostChars <= 0 {
			return 0
		}
	}
	if host == "copilot" {
		hostChars -= CopilotHeaderChars
	}
	return Budget(maxTokens, hostChars, 0) - len(sectionTitle)
}
