// Package realhost runs agentx inside the real agent hosts (issue 31):
// Claude Code, Codex CLI and GitHub Copilot CLI, installed from npm at
// pinned versions, each run headless against a fake model server on
// 127.0.0.1 that plays scripted turns (the host's shell tool running
// `agentx-hook clarify request`, an agentx MCP tool, then text stating a
// decision) and records every request body. The tests assert from those
// requests and from the workspace that setup's hooks load and run, that the
// shell call lands in the ledger, that every session's decision is
// captured, that the next session's model request holds the recall and the
// open clarification, that the MCP call round-trips, and what doctor says.
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
// Where the suite runs, a host it cannot find is a failure, never a skip.
// AGENTX_HOST_REPEAT sets how many first sessions each host runs (5 by
// default); AGENTX_HOSTS selects hosts (claude,codex,copilot).
package realhost
