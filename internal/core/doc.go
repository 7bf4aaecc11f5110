// Package core holds no code: its doc maps the packages under it, the
// domain of agentx. Each package owns its results' --json documents (a Doc
// type, keys in the order the commands print them) and their text; the
// commands choose one or the other and stamp the schema version. A core package reads no flags, draws on no terminal and
// calls no GitHub API; the commands (internal/hookcmd, internal/actioncmd)
// and GitHub Mode (internal/sync) are built on top of it. The one way out
// to another machine is the state branch's git fetch and push, behind
// statebranch's Transport.
//
// The system has two halves over one shared ground, and a few packages
// that work across both halves' files. Imports run from the halves down to
// the ground and never between the halves; the ground imports neither
// half; the cross-cutting packages import both.
//
// # Clarification protocol
//
// Agents ask each other questions through a hub; each issue has a ledger.
//
//   - protocol: the rules as a pure function; one typed operation (request,
//     answer, ask, resolve, escalate, abandon, monitor actions) applied to a
//     ledger value gives the new ledger and the events and status changes
//     it implies; who may perform it (Authorize: the target answers, the
//     parties settle, a person overrides explicitly).
//   - router: the hub in Local Mode: lock, load, apply, write, then the
//     side effects (responder, agent status, event log).
//   - ledger: the per-issue ledger file in the TypeScript and PowerShell
//     tools' exact shape, unknown keys kept.
//   - monitor: stale, stuck and deadlocked clarifications across issues,
//     what to do about them, and how a check reads (its text, its
//     findings as a document, clarify stale's view). monitor/synth: synthetic ledgers for
//     measuring it.
//   - responder: runs the program configured to answer for an agent.
//   - agentstatus: what each agent is doing, on which issue.
//   - render: how clarifications read to people.
//   - delivery: answers, resolutions and escalations brought into the
//     asking agent's running session once, by the hooks a host fires
//     mid-session (a quick stamp check, then the receipt written in the
//     ledger under its lock); a Stop hook's answer to go on with.
//
// # Memory pipeline
//
// What a session learns is captured, stored per issue, searched and
// recalled at the start of the next session.
//
//   - capture: candidate observations from hook payloads and transcripts.
//   - intake: a capture's way into the store: the spool entry written
//     first, then extract, drop what memory holds, store; the code-change
//     observation of a commit.
//   - spool: the durable hand-off from a hook that must return quickly.
//   - cursor: how far each session's transcript has been captured.
//   - memory: the observation store (issue files, the search index
//     pointing into them, the old tools' manifest where kept, crash
//     repair, search, statistics). memory/synth: synthetic observations.
//   - memindex: the terms, BM25 ranking and binary index behind search.
//   - memanchor: observations anchored on the audit trail: the rule
//     (rehashed, unanchored, deleted) verify and the read paths share, and
//     the derived index (extended from the trail's tail) that lets recall,
//     search and the MCP tools apply it per issue.
//   - recall: which observations a new session is reminded of, in budget;
//     Service runs one recall end to end (keywords, gather, select, and
//     the recall recorded unless it is a preview).
//   - recalljournal: the recall counts a recall appends, folded into the
//     store later so `hook start` stays fast.
//   - compact: which old observations merge into one summary; one issue's
//     compaction run and reported.
//   - retention: the store bounded by itself ([retention]): what nobody
//     recalls is archived, an over-full issue compacted, a slice per
//     hook or all at once; the daily size alerts.
//
// # Shared ground
//
// State files, time, errors and the workspace, used by both halves.
//
//   - atomicfile: atomic replacement of a file and the locked
//     read-modify-write every state file goes through.
//   - jsonfile: the JSON layout of state files, corrupt-file errors, and
//     the ordered-object codec that keeps other tools' keys (Object: the one
//     field decoder of the ledger and memory files); Versioned, the
//     schemaVersion key a command's --json document carries.
//   - validate: the input rules (names, topics, bodies, issue numbers,
//     ids). Ground, not protocol: the memory store, config and issueref
//     check with them too.
//   - lock: cross-process locks compatible with the older tools.
//   - process: whether the process behind a lock or marker still runs;
//     the groups and trees children are killed by, and their environment.
//   - events: the event log both halves append to.
//   - metrics: the memory pipeline's measured figures (seed 000 §12): one
//     event line per hook or command, their sums, and each machine's
//     weekly sums file for the state branch.
//   - clock: "now" for tests, and the one timestamp format.
//   - errcode: typed error codes a caller can act on, and Body, an error
//     as a --json document carries it.
//   - config: `.agentx/agentx.toml` and the workflows' clarification scope.
//   - workspace: every path under `.agentx/`.
//   - initws: a new workspace created (config, workflows, .gitignore,
//     AGENTS.md section) keeping the user's files; the mode switch; the
//     state files a code branch still tracks (Tracked).
//   - issueref: which issue a command works on when none is given.
//   - localissue: the issue files a team keeps in `.agentx/issues/`.
//   - artifact: the stage artifact ledger of each issue
//     (`.agentx/state/artifacts/issue-N.json`): the deliverables the
//     workflow steps' `output` names, their blobs and the upstream blobs
//     they were written against; staleness, the union merge, and the
//     issue's stage derived from the workflow and the ledgers.
//   - fileid: a file's identity (inode, size, modification and change
//     times) and whether it was old enough to stand for the content: what
//     a derived index keys on to skip files nobody wrote since (the
//     monitor's and the artifact scan's).
//   - shorten: cutting a text to fit a summary, a quote or a limit.
//   - suggest: the "did you mean" of a mistyped command, flag or name.
//   - buildinfo: the build stamp (version, commit) a binary reports.
//   - validate: the input rules both halves apply (agent names, issue
//     numbers, topics, bodies, ids): an agent name is the same in a
//     ledger and in an observation.
//   - sanitize: private regions and secrets removed before an observation
//     is stored or a text leaves the machine; stored text handed to an
//     agent as data (host-reserved tags and role lines neutralised, every
//     line quoted under one framing line: Neutralize, Quote, Framed).
//   - workpool: the one way independent work (reading and parsing many
//     state files) is spread over processors.
//   - lazy: a package-level value built on first use, declared as static
//     data so that a package needs no initialiser (process start).
//   - wordset: the one notion of "the same words" (memory's duplicates,
//     the monitor's circular conversations).
//   - gitcmd: the one runner for the git program.
//   - githooks: installing and removing agentx's git hook shims.
//   - gitexclude: agentx's lines in a clone's .git/info/exclude (files it
//     writes into the work tree for that clone alone).
//   - hooklog: the bounded, local-only log of the last hook runs and their
//     warnings, which doctor reads.
//   - hostsettings: the agent hosts' settings files (Claude Code, Codex,
//     Copilot): agentx's hook entries wired, inspected and removed as pure
//     edits of the files' bytes, every other key kept.
//   - setup: what `setup` changes to wire a host and git: the host files
//     planned as one list of changes (checked, shown, written or removed)
//     with the git hooks.
//   - contenthash: the one content hash (SHA-256 of canonical JSON) stored
//     with thread entries and observations and named in the audit trail.
//   - audit: the hash-chained audit trail both halves append to.
//   - tombstone: the record of a deliberate removal, kept in the file it
//     applies to and travelling with it.
//   - gitstore: the blobs, trees, commits and refs agentx writes into the
//     user's repository itself (go-git storage; never the index, work tree
//     or HEAD). The only package that imports go-git: it names the hash and
//     mode types statebranch and checkpoint use.
//
// # Across both halves
//
// Packages that handle the ledgers and the memory files together.
//
//   - statemerge: the three-way merge of ledgers and memory files, for the
//     state branch and the git merge driver.
//   - statebranch: GitHub Mode's state branch (fetch, merge, commit, push)
//     through gitstore.
//   - statediff: which records and observations two versions of a state
//     file differ by, with their hashes (checkpoint show, the audit lines
//     of a sync).
//   - digest: the weekly figures of both halves, computed from their files.
//   - settled: a resolved clarification as the one `decision` observation
//     memory keeps of it (id derived from the CLR id, provenance, question
//     and decision condensed), stored once; the catch-up of an issue's
//     resolutions memory lacks (GitHub ingest, a crashed resolve).
//   - verify: the integrity check of everything under `.agentx/`, and the
//     repairs that follow from the files without guessing.
//   - checkpoint: snapshots of the durable state under .agentx/ as commits
//     on refs/agentx/checkpoints; list, compare, restore, prune; History
//     takes and restores them as the commands do, audited.
//   - statesync: a workspace's sync with the state branch as commands and
//     hooks run it: options from the config, the `sync` command (time
//     limit, --recover) and its lines, the merge's log, audit lines of
//     what it wrote, the memory index brought in line (inline or by a
//     background rebuild), a hook's fail-open sync within its budget.
//   - session: the hook session: what `hook start` and `hook finish` do
//     (pull, monitor, agent status, capture, recall, push, checkpoint)
//     under one deadline, returned as a result the command prints.
//   - demo: the scenario of `agentx-hook demo`: the tour's steps, section
//     by section, and the architect that answers in it.
//   - ready: the ready queue, every issue known locally (ledgers, memory,
//     `.agentx/issues/`) with its blocking markers, for `ready` and the
//     MCP server's tool.
//   - doctor: whether agentx is wired and working in a workspace, as
//     findings (ok, warn, fail) each with the command that fixes it; what
//     calls out goes through the caller's Probe.
package core
