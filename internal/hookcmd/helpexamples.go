package hookcmd

import (
	"fmt"
	"io"
)

// helpExamples are the examples each command's --help ends its text
// with, by the flag set's name (the command, or "command sub"), as gh's
// help shows them (issue 37). TestEveryHelpHasExamples holds every
// command and subcommand to having some. A function, not a package-level
// map: a map literal is built by an initialiser at every process start
// (cmd/agentx-hook's TestStartAllocatesLittle), and help is rare.
func helpExamples() map[string][]string {
	return map[string][]string{
		"init":     {"agentx-hook init", "agentx-hook init --mode github"},
		"clarify":  {"agentx-hook clarify", "agentx-hook clarify --issue 42 --json", "agentx-hook clarify --all --jq '.clarifications[].id'"},
		"state":    {"agentx-hook state", "agentx-hook state --json=agents"},
		"events":   {"agentx-hook events", "agentx-hook events --json --jq '.events[-1]'"},
		"monitor":  {"agentx-hook monitor", "agentx-hook monitor --json", "agentx-hook monitor --graph dot | dot -Tsvg > waits.svg"},
		"view":     {"agentx-hook view", "agentx-hook view --open --port 8765", "agentx-hook view --stay"},
		"artifact": {"agentx-hook artifact list --stale", "agentx-hook artifact show SPEC-42", "agentx-hook artifact ack SPEC-42"},

		"artifact add":      {"agentx-hook artifact add --issue 42 --step prd docs/prd/PRD-42.md"},
		"artifact list":     {"agentx-hook artifact list --issue 42", "agentx-hook artifact list --stale --json"},
		"artifact show":     {"agentx-hook artifact show SPEC-42", "agentx-hook artifact show PRD-42 --content"},
		"artifact approve":  {"agentx-hook artifact approve PRD-42"},
		"artifact reject":   {"agentx-hook artifact reject SPEC-42"},
		"artifact ack":      {"agentx-hook artifact ack SPEC-42"},
		"artifact reopen":   {"agentx-hook artifact reopen SPEC-42"},
		"artifact remove":   {"agentx-hook artifact remove ADR-42"},
		"artifact generate": {"agentx-hook artifact generate --issues 500 --per-issue 4"},
		"ready":             {"agentx-hook ready", "agentx-hook ready --json"},
		"digest":            {"agentx-hook digest", "agentx-hook digest --days 14 --save", "agentx-hook digest --json --jq .targets", "agentx-hook digest --format html --out digest.html"},
		"demo":              {"agentx-hook demo"},
		"mcp":               {"agentx-hook mcp --agent architect"},
		"setup":             {"agentx-hook setup --claude", "agentx-hook setup --codex --check", "agentx-hook setup --copilot --remove --dry-run"},
		"uninstall":         {"agentx-hook uninstall --dry-run", "agentx-hook uninstall --yes"},
		"doctor":            {"agentx-hook doctor", "agentx-hook doctor --json --jq '.findings[] | select(.status != \"ok\") | .check'"},
		"git-hook":          {"agentx-hook git-hook post-commit"},
		"sync":              {"agentx-hook sync", "agentx-hook sync --pull-only", "agentx-hook sync --init-from HEAD"},
		"verify":            {"agentx-hook verify", "agentx-hook verify --repair"},
		"audit":             {"agentx-hook audit --id CLR-42-001", "agentx-hook audit --state-branch --since 2026-11-01"},
		"completion":        {"source <(agentx-hook completion bash)", "agentx-hook completion fish > ~/.config/fish/completions/agentx-hook.fish"},
		"version":           {"agentx-hook version"},
		"hook":              {"agentx-hook hook start --agent engineer --issue 42", "agentx-hook hook finish --agent engineer --issue 42 --summary-file summary.md"},
		"hook deliver":      {`echo '{"session_id":"s1","hook_event_name":"UserPromptSubmit"}' | agentx-hook hook deliver --agent engineer --json`},
		"hooks":             {"agentx-hook hooks install", "agentx-hook hooks status"},
		"memory":            {"agentx-hook memory search grpc", "agentx-hook memory add --agent engineer --issue 42 --category decision 'Chose gRPC'"},
		"checkpoint":        {"agentx-hook checkpoint create -m 'before the migration'", "agentx-hook checkpoint list"},

		"merge-driver": {"git config merge.agentx.driver 'agentx-hook merge-driver %O %A %B %P'   # as hooks install --merge-driver sets it"},

		"clarify request":  {"agentx-hook clarify request --issue 42 --from engineer --to architect --topic 'auth flow' --question 'Middleware or controller?'", "agentx-hook clarify request --issue 42 --from engineer --to architect --topic cache --question 'Redis?' --non-blocking", "agentx-hook clarify request --issue 42 --from engineer --to lead --topic 'release date' --question 'Ship Friday?' --wait 10m   # a person of [people]"},
		"clarify show":     {"agentx-hook clarify show CLR-42-001", "agentx-hook clarify show CLR-42-001 --json"},
		"clarify stale":    {"agentx-hook clarify stale", "agentx-hook clarify stale --json"},
		"clarify answer":   {"agentx-hook clarify answer CLR-42-001 --body 'Middleware.'"},
		"clarify ask":      {"agentx-hook clarify ask CLR-42-001 --body 'Also for refresh tokens?'"},
		"clarify resolve":  {"agentx-hook clarify resolve CLR-42-001 --as engineer --body 'Going with middleware.'"},
		"clarify escalate": {"agentx-hook clarify escalate CLR-42-001 --as engineer --summary 'Architect unavailable; blocks the release'"},
		"clarify abandon":  {"agentx-hook clarify abandon CLR-42-001 --as engineer --body 'No longer needed: the feature was dropped.'"},

		"hook start":  {"agentx-hook hook start --agent engineer --issue 42", "agentx-hook hook start --format claude   # in .claude/settings.json"},
		"hook finish": {"agentx-hook hook finish --agent engineer --issue 42 --summary-file summary.md", "agentx-hook hook finish   # a host's payload on stdin"},

		"hooks install":   {"agentx-hook hooks install", "agentx-hook hooks install --merge-driver"},
		"hooks uninstall": {"agentx-hook hooks uninstall"},
		"hooks status":    {"agentx-hook hooks status", "agentx-hook hooks status --json"},

		"memory add":      {"agentx-hook memory add --agent engineer --issue 42 --category decision 'Chose gRPC streaming'", "agentx-hook memory add --file observations.json"},
		"memory get":      {"agentx-hook memory get obs-engineer-42-1772535600000-a1b2c3", "agentx-hook memory get ID --json"},
		"memory search":   {"agentx-hook memory search grpc streaming", "agentx-hook memory search --issue 42 --json --jq '.results[].summary'"},
		"memory stats":    {"agentx-hook memory stats", "agentx-hook memory stats --json"},
		"memory capture":  {"agentx-hook memory capture --agent engineer --issue 42 --file summary.md"},
		"memory recall":   {"agentx-hook memory recall --agent engineer --issue 42", "agentx-hook memory recall --agent engineer --issue 42 --format claude"},
		"memory compact":  {"agentx-hook memory compact --issue 42 --dry-run", "agentx-hook memory compact --auto"},
		"memory remove":   {"agentx-hook memory remove obs-engineer-42-1772535600000-a1b2c3"},
		"memory restore":  {"agentx-hook memory restore obs-engineer-42-1772535600000-a1b2c3"},
		"memory rebuild":  {"agentx-hook memory rebuild"},
		"memory generate": {"agentx-hook memory generate --observations 5000 --issues 50 --into-store"},

		"checkpoint create":  {"agentx-hook checkpoint create -m 'before the migration'"},
		"checkpoint list":    {"agentx-hook checkpoint list", "agentx-hook checkpoint list --json"},
		"checkpoint show":    {"agentx-hook checkpoint show 3f2a"},
		"checkpoint restore": {"agentx-hook checkpoint restore 3f2a --dry-run", "agentx-hook checkpoint restore 3f2a"},
	}
}

// printExamples writes name's examples under an "Examples:" heading.
func printExamples(w io.Writer, name string) {
	ex := helpExamples()[name]
	if len(ex) == 0 {
		return
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, e := range ex {
		fmt.Fprintln(w, "  "+e)
	}
}
