// Package realhost runs agentx inside the real agent hosts (issue 31):
// Claude Code, Codex CLI and GitHub Copilot CLI, installed from npm at
// pinned versions, each run headless against a fake model server on
// 127.0.0.1:0 that plays scripted turns and records every request body.
//
// Each host gets a throwaway HOME (agentx-hook and agentx-mcp, built from
// the tree, in ~/.local/bin with the ~/.profile line a user adds, since
// Codex runs its shell tool as `bash -lc`), a fresh git repository on
// branch 57-login-lockout, `agentx-hook init` and `setup --HOST`, and no
// AGENTX_AGENT. The user's own configuration is written the way a user
// would: Claude Code's enableAllProjectMcpServers; Codex's model provider
// (base_url, wire_api = "responses"), the project trusted and its hooks
// reviewed (the [hooks.state] trusted_hash entries /hooks writes, hashes
// from `codex app-server`'s hooks/list); Copilot's trustedFolders. Copilot
// runs offline on COPILOT_PROVIDER_BASE_URL (Chat Completions).
//
// Session 1 calls the host's shell tool with `agentx-hook clarify request`,
// then agentx's MCP tool memory_remember, then states a decision; it runs
// AGENTX_HOST_REPEAT times (5 by default; a capture race that loses one in
// five fails the suite). Session 2 only reads. From the recorded requests
// and the workspace the tests check, per host: the start hook's context
// reached the model; the shell call landed in the ledger; the MCP call
// round-tripped (stored, and its result in the next request); every
// session's decision was captured; every session ended (agent done);
// session 2's request holds the recall and the open clarification; the
// hook log names the host with no warning; the host reports no failed
// hook and nothing deprecated; doctor sees the trust gate before it is
// passed (and agentx-hook missing from a login shell's PATH, for Codex)
// and is clean after. The host x check table goes to
// $AGENTX_REALHOST_SUMMARY.
//
// The tests carry the build tag realhost, so `go test ./...` stays
// runnable on a machine without node. scripts/ci/hostsuite.sh installs the
// hosts and runs them:
//
//	bash scripts/ci/hostsuite.sh
//
// or, with the hosts already installed under AGENTX_HOSTS_DIR,
//
//	go test -tags realhost ./internal/e2e/realhost
//
// Where the suite runs, a host it cannot find is a failure, never a skip;
// AGENTX_HOSTS=claude,codex,copilot chooses which run. AGENTX_REALHOST_DUMP
// names a directory to write the requests, the hosts' output and the hook
// logs into.
package realhost
