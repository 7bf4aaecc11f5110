// Package demo owns the scenario of `agentx-hook demo`: the tour's
// commands, section by section (clarifications, the monitor, memory, the
// capture and recall pipeline), the architect that answers in it, and the
// responder entry that wires that architect into the tour's workspace.
// The command runs each step as its own invocation and prints it; this
// package only says what the steps are.
package demo

// Step is one command of the tour.
type Step struct {
	// Title heads a group of steps ("" continues the one before).
	Title string
	// Args are the command's arguments after agentx-hook.
	Args []string
	// Env overrides the environment ($AGENTX_NOW for the monitor's time).
	Env map[string]string
	// Stdin is what the command reads on stdin (a hook's payload).
	Stdin string
}

// Sections are the tour's sections, one per capability, in order.
func Sections() [][]Step {
	return [][]Step{Clarify(), Monitor(), Memory(), Pipeline()}
}

// Clarify sets up a workspace and walks clarifications through the
// protocol: answered by a responder, escalated past the round limit,
// refused by the scope guard.
func Clarify() []Step {
	return []Step{
		{Title: "Set up a workspace with the default workflows", Args: []string{"init"}},
		{Title: "The engineer asks the architect (a responder answers for the architect)",
			Args: []string{"clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect",
				"--topic", "authentication flow", "--question", "Should token validation live in middleware or in each controller?"}},
		{Title: "A follow-up question: round 2, answered again", Args: []string{"clarify", "ask", "CLR-42-001", "--body", "Does the middleware also refresh expired tokens?"}},
		{Title: "The engineer is satisfied and resolves it", Args: []string{"clarify", "resolve", "CLR-42-001", "--as", "engineer", "--body", "Going with middleware that validates and refreshes."}},
		{Title: "The whole thread of issue 42, as a person reads it", Args: []string{"clarify", "--issue", "42"}},
		{Title: "A bug fix with a 3-round limit: the engineer asks the product manager (no responder: answered by hand)",
			Args: []string{"clarify", "request", "--workflow", "bug", "--issue", "57", "--from", "engineer", "--to", "product-manager",
				"--topic", "error message wording", "--question", "Should the lockout message mention the 15 minute wait?"}},
		{Args: []string{"clarify", "answer", "CLR-57-001", "--body", "Yes, mention it."}},
		{Args: []string{"clarify", "ask", "CLR-57-001", "--body", "Exactly 15, or 'a few minutes'?"}},
		{Args: []string{"clarify", "answer", "CLR-57-001", "--body", "Whatever the config says."}},
		{Args: []string{"clarify", "ask", "CLR-57-001", "--body", "The config has no such value; which one?"}},
		{Args: []string{"clarify", "answer", "CLR-57-001", "--body", "Ask the architect."}},
		{Title: "Round 4 would pass the limit: the hub escalates to a person", Args: []string{"clarify", "ask", "CLR-57-001", "--body", "So which number do I print?"}},
		{Title: "Scope guard: the engineer's step may not ask the reviewer",
			Args: []string{"clarify", "request", "--issue", "42", "--from", "engineer", "--to", "reviewer",
				"--topic", "review checklist", "--question", "What will you check?"}},
		{Title: "What is still open", Args: []string{"clarify"}},
		{Title: "Agent statuses", Args: []string{"state"}},
	}
}

// Monitor shows the monitor acting: time jumps past the SLA (each
// step sets $AGENTX_NOW), a question nobody answers is marked stale once
// and escalated at its second timeout, a question asked again is escalated
// as stuck, and the ready queue and a session-start hook show the result.
// (Deadlocks need a custom workflow: the default ones never let two agents
// block on each other; see the monitor tests and README.)
func Monitor() []Step {
	at := func(t string) map[string]string { return map[string]string{"AGENTX_NOW": t} }
	return []Step{
		{Title: "Monitor: the engineer asks the product manager on issue 61 (no responder: it waits for a person)",
			Args: []string{"clarify", "request", "--workflow", "bug", "--issue", "61", "--from", "engineer", "--to", "product-manager",
				"--topic", "rate limits", "--question", "Which rate limit applies to the public API?"}, Env: at("2030-01-01T09:00:00Z")},
		{Title: "45 minutes later nobody has answered: first timeout, marked stale, the SLA starts again",
			Args: []string{"monitor"}, Env: at("2030-01-01T09:45:00Z")},
		{Title: "Checking again changes nothing: each action happens once per timeout",
			Args: []string{"monitor"}, Env: at("2030-01-01T09:50:00Z")},
		{Title: "Still no answer after the second SLA window: escalated to a person",
			Args: []string{"monitor", "--json"}, Env: at("2030-01-01T10:20:00Z")},
		{Title: "The escalation a person reads: what happened and the commands that settle it",
			Args: []string{"clarify", "--issue", "61"}, Env: at("2030-01-01T10:21:00Z")},
		{Title: "Stuck: on issue 62 the engineer asks the same question again after an answer",
			Args: []string{"clarify", "request", "--workflow", "bug", "--issue", "62", "--from", "engineer", "--to", "product-manager",
				"--topic", "export scope", "--question", "Should the export include archived projects?"}, Env: at("2030-01-01T11:00:00Z")},
		{Args: []string{"clarify", "answer", "CLR-62-001", "--body", "It depends on the customer."}, Env: at("2030-01-01T11:01:00Z")},
		{Title: "The follow-up repeats round 1; the clarify command's own monitor check escalates it with both rounds quoted",
			Args: []string{"clarify", "ask", "CLR-62-001", "--body", "So should the export include the archived projects?"}, Env: at("2030-01-01T11:02:00Z")},
		{Title: "clarify stale lists stale and stuck clarifications", Args: []string{"clarify", "stale"}, Env: at("2030-01-01T11:03:00Z")},
		{Title: "A third question on issue 63 waits for the product manager", Args: []string{"clarify", "request", "--workflow", "bug", "--issue", "63",
			"--from", "engineer", "--to", "product-manager", "--topic", "retry policy", "--question", "How often may the client retry a failed upload?"},
			Env: at("2030-01-01T11:04:00Z")},
		{Title: "The ready queue marks issues where a blocking clarification waits for an agent, or (escalated) for a person",
			Args: []string{"ready"}, Env: at("2030-01-01T11:05:00Z")},
		{Title: "A session starts: the product manager's hook lists what waits for its answer",
			Args: []string{"hook", "start", "--agent", "product-manager", "--issue", "63"}, Env: at("2030-01-01T11:06:00Z")},
	}
}

// observationID is fixed so the tour can show `memory get`.
const observationID = "obs-architect-42-1772384655123-demo01"

// Memory stores observations by hand and in bulk, then searches them.
func Memory() []Step {
	return []Step{
		{Title: "Memory: agents store what they learned (normally captured by `hook finish`)",
			Args: []string{"memory", "add", "--agent", "architect", "--issue", "42", "--category", "decision", "--id", observationID,
				"Token validation lives in one middleware that also refreshes expired tokens; controllers never parse JWTs."}},
		{Args: []string{"memory", "add", "--agent", "engineer", "--issue", "42", "--category", "error",
			"Error: ECONNREFUSED when the session store (Redis) was down; login now fails closed with a 503."}},
		{Args: []string{"memory", "add", "--agent", "product-manager", "--issue", "57", "--category", "key-fact",
			"Lockout lasts 15 minutes after five failed logins; the message must say so."}},
		{Title: "Add 2,000 synthetic observations so search has something to rank",
			Args: []string{"memory", "generate", "--observations", "2000", "--issues", "60", "--seed", "7", "--into-store"}},
		{Title: "Ranked search: compact rows first (progressive disclosure)",
			Args: []string{"memory", "search", "token refresh middleware", "--limit", "3"}},
		{Title: "Filters: only the product manager's key facts",
			Args: []string{"memory", "search", "lockout", "--agent", "product-manager", "--category", "key-fact", "--limit", "2"}},
		{Title: "The full observation behind a row", Args: []string{"memory", "get", observationID}},
		{Title: "What the store holds", Args: []string{"memory", "stats"}},
	}
}

// sessionSummary is a session summary in the old compaction format, as
// an agent host would hand it to `hook finish` at session end.
const sessionSummary = `## Decisions
- Use a sliding-window rate limiter for the login endpoint, keyed by account and IP.
- Keep the lockout window at 15 minutes, read from auth.lockout_minutes in config.

## Code Changes
- src/auth/ratelimit.ts: sliding-window limiter backed by the Redis session store.

## Errors Encountered
- ECONNREFUSED 127.0.0.1:6379 while Redis was down; the limiter now fails closed.

## Key Facts
- The lockout message must state the wait: "Try again in 15 minutes".
- <private>staging password is hunter2</private>Staging deploys need the VPN.`

// Pipeline captures a session summary at session end, recalls it at the
// next start, and compacts an old issue.
func Pipeline() []Step {
	return []Step{
		{Title: "Session end: `hook finish` captures a session summary (spooled first, sanitised: the private part never reaches disk)",
			Args: []string{"hook", "finish", "--agent", "engineer", "--issue", "57"}, Stdin: sessionSummary},
		{Title: "The same summary again: captured exactly once",
			Args: []string{"hook", "finish", "--agent", "engineer", "--issue", "57"}, Stdin: sessionSummary},
		{Title: "Next session start: `hook start` adds this ## Memory Recall after the clarifications (here within 700 tokens)",
			Args: []string{"memory", "recall", "--agent", "engineer", "--issue", "57", "--budget", "700"}},
		{Title: "The same recall as Claude Code's SessionStart JSON, ranked for a query, within 10,000 characters",
			Args: []string{"memory", "recall", "--agent", "engineer", "--issue", "57", "--query", "lockout redis", "--budget", "300", "--format", "claude"}},
		{Title: "Copilot reads instructions files instead of hook output",
			Args: []string{"memory", "recall", "--agent", "engineer", "--issue", "57", "--write-instructions"}},
		{Title: "An old issue: compaction merges overlapping observations, archives the originals (and, in a git repository, takes a checkpoint first: this workspace is none, so it warns)",
			Args: []string{"memory", "compact", "--issue", "12"}},
		{Title: "Decisions stay findable after compaction",
			Args: []string{"memory", "search", "decision", "--issue", "12", "--category", "decision", "--limit", "2"}},
	}
}
