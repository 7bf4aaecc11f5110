package protocol

import "strings"

// Verb names one protocol operation.
type Verb string

// The verbs agents and people use.
const (
	Request  Verb = "request"
	Answer   Verb = "answer"
	Ask      Verb = "ask"
	Resolve  Verb = "resolve"
	Escalate Verb = "escalate"
	Abandon  Verb = "abandon"
)

// The monitor's verbs. Each one re-checks, on the record as it is now,
// that the condition the monitor saw still holds, and returns
// ErrNotApplicable when it does not: a check never acts twice, nor on a
// record settled since it looked.
const (
	// MarkStale handles the first timeout of a round: the record becomes
	// stale, its staleAfter moves one SLA out, and the round is noted so
	// the second timeout escalates.
	MarkStale Verb = "mark-stale"
	// EscalateStale escalates at the second timeout of a round.
	EscalateStale Verb = "escalate-stale"
	// EscalateStuck escalates a record whose questions go round in circles
	// (or, with Op.Flipped, the later of two records asking the same topic
	// in opposite directions).
	EscalateStuck Verb = "escalate-stuck"
	// EscalateDeadlock escalates a blocking record in a wait-for cycle.
	EscalateDeadlock Verb = "escalate-deadlock"
)

// VerbInfo describes a verb acting on an existing clarification, as every
// surface shows it: the CLI (`clarify answer ...`), issue comments
// (`/clarify answer ...`) and the rendered help.
type VerbInfo struct {
	Verb Verb
	// NeedsText is whether the text is required.
	NeedsText bool
	// Flag is the CLI flag holding the text (body or summary).
	Flag string
	// Field names the text in validation errors.
	Field string
	// Default is the text when none is given ("" for none).
	Default string
	// Past is the verb in the past tense, for "CLR-1-001 answered".
	Past string
	// DefaultBy is who acts when nobody is named on the CLI ("" means the
	// protocol's default: the target answers, the requester asks).
	DefaultBy string
	// ByHelp describes --as.
	ByHelp string
	// Help is what the verb does, one or two sentences.
	Help string
	// TextHelp describes the text.
	TextHelp string
}

// Verbs are the verbs acting on an existing clarification, in the order
// help texts list them.
var Verbs = []VerbInfo{
	{Verb: Answer, NeedsText: true, Flag: "body", Field: "answer", Past: "answered", ByHelp: "AGENT",
		Help:     "The target agent's answer to the current round.",
		TextHelp: "the answer (1-2000 characters)"},
	{Verb: Ask, NeedsText: true, Flag: "body", Field: "question", Past: "asked", ByHelp: "AGENT",
		Help:     "The requester's follow-up question: the next round. Past the round limit the\nclarification is escalated and the command fails with MAX_ROUNDS_EXCEEDED.",
		TextHelp: "the follow-up question (1-2000 characters)"},
	{Verb: Resolve, Flag: "body", Field: "resolution", Default: "Resolved.", Past: "resolved", DefaultBy: "cli", ByHelp: "NAME",
		Help:     "Closes the clarification (a person may resolve an escalated one).",
		TextHelp: "the resolution (default \"Resolved.\")"},
	{Verb: Escalate, Flag: "summary", Field: "summary", Past: "escalated", DefaultBy: "cli", ByHelp: "NAME",
		Help:     "Hands the clarification to a person with a summary of both positions.",
		TextHelp: "why it needs a person"},
	{Verb: Abandon, Flag: "body", Field: "reason", Default: "Abandoned.", Past: "abandoned", DefaultBy: "cli", ByHelp: "NAME",
		Help:     "Closes the clarification without an outcome.",
		TextHelp: "why it is dropped"},
}

// Lookup returns the verb people type as name.
func Lookup(name string) (VerbInfo, bool) {
	for _, v := range Verbs {
		if string(v.Verb) == name {
			return v, true
		}
	}
	return VerbInfo{}, false
}

// info returns the description of v (zero for request and monitor verbs).
func info(v Verb) VerbInfo {
	i, _ := Lookup(string(v))
	return i
}

// Names returns the names of the verbs that need a text (or, with
// needsText false, those that do not), in help order.
func Names(needsText bool) []string {
	var out []string
	for _, v := range Verbs {
		if v.NeedsText == needsText {
			out = append(out, string(v.Verb))
		}
	}
	return out
}

// SlashUsage is the `/clarify` syntax, as a reply to a malformed command
// quotes it.
func SlashUsage() string {
	return "`/clarify " + strings.Join(Names(true), "|") + " CLR-<issue>-<NNN> <text>` or `/clarify " +
		strings.Join(Names(false), "|") + " CLR-<issue>-<NNN> [text]`"
}
