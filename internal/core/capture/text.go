package capture

import (
	"regexp"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/lazy"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// Sentence heuristics for an assistant's prose. They look for the few
// shapes in which agents state a decision ("I'll use X", "decided to",
// "going with") or a durable fact ("Note: ...", "The X requires ..."), and
// skip the narration of their own tool use ("Let me read ...", "I'll check
// ..."), which is most of what agents say and is worth nothing a week later.
var (
	decisionRes = lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`(?i)^(?:so,? |ok,? |okay,? )?(?:i|we)(?:'ll| will|'m going to| am going to| are going to|'re going to) (?:use|go with|adopt|switch to|keep|store|implement|choose|rely on|stick with|move to|replace)\b`),
			regexp.MustCompile(`(?i)^(?:so,? )?(?:i|we)(?: have| 've)? (?:decided|chose|opted|settled on|picked|went with|'m going with|am going with|are going with|'re going with)\b`),
			regexp.MustCompile(`(?i)\b(?:decided to|decision is to|opted for|settled on|chose to|going with|we'll go with|i'll go with)\b`),
			regexp.MustCompile(`(?i)^(?:decision|approach|chosen approach|plan)\s*:`),
			regexp.MustCompile(`(?i)^(?:use|using|prefer|keep)\b.{3,}\b(?:instead of|rather than|over)\b`),
		}
	}}
	factRes = lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`(?i)^(?:note|important|key fact|caveat|warning|gotcha|remember|fyi|n\.?b\.?)\s*[:\-–]\s*\S`),
			regexp.MustCompile("(?i)^(?:the|this|our|its|each|every) [\\w./`'\"-]+(?: [\\w./`'\"-]+){0,4} (?:requires|must|needs|expects|only works|always|never|cannot|can't|doesn't support|does not support|depends on|is stored|are stored|is configured|is limited to|is capped|are capped|defaults to|lives in|live in|is written|are written|is read|runs on|is keyed)\\b"),
		}
	}}
	chatterRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:let me|let's|now,? |first,? |next,? |great|perfect|done|sure|(?:i|we)(?:'ll| will)(?: now| first| also)? (?:read|check|look|run|search|open|examine|start|try|take|verify|inspect|explore|view|see|fix|update|add|create|write|make|test|investigate|review|find|go ahead)\b)|\b(?:let me|todo list|the \w+ tool)\b`)
	}}
)

// triggers are lower-case words one of which every pattern above needs: a
// sentence with none of them (most prose) skips the regexps.
var triggers = []string{
	"use", "go with", "adopt", "switch", "keep", "store", "implement", "choose", "rely", "stick",
	"move to", "replace", "decid", "decision", "chose", "opted", "settled", "picked", "went with",
	"going with", "approach", "plan", "prefer", "instead of", "rather than", "over",
	"note", "important", "key fact", "caveat", "warning", "gotcha", "remember", "fyi", "n.b", "nb",
	"require", "must", "need", "expect", "only works", "always", "never", "cannot", "can't",
	"support", "depends", "configured", "limited", "capped", "default", "live", "written",
	"read", "runs on", "keyed",
}

// classify returns the category of one sentence of assistant prose.
func classify(sentence string) (memory.Category, bool) {
	n := len(sentence)
	if n < 20 || n > 600 {
		return "", false
	}
	lower := strings.ToLower(sentence)
	hit := false
	for _, t := range triggers {
		if strings.Contains(lower, t) {
			hit = true
			break
		}
	}
	if !hit {
		return "", false
	}
	for _, re := range factRes.Get() {
		if re.MatchString(sentence) {
			return memory.KeyFact, true
		}
	}
	if chatterRe.Get().MatchString(sentence) {
		return "", false
	}
	for _, re := range decisionRes.Get() {
		if re.MatchString(sentence) {
			return memory.Decision, true
		}
	}
	return "", false
}

// sentences splits prose into sentences: by line, then at ". ", "! ", "? "
// before a capital, a digit or a backtick. Code blocks are skipped and list
// markers, headings and emphasis stripped.
func sentences(text string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, ">") {
			continue
		}
		t = stripMarkers(t)
		start := 0
		for i := 0; i+2 < len(t); i++ {
			c := t[i]
			if c != '.' && c != '!' && c != '?' {
				continue
			}
			j := i + 1
			for j < len(t) && t[j] == ' ' {
				j++
			}
			if j > i+1 && j < len(t) && sentenceStart(t[j]) && !abbreviation(t[:i]) {
				out = appendSentence(out, t[start:i+1])
				start = j
			}
		}
		out = appendSentence(out, t[start:])
	}
	return out
}

func appendSentence(out []string, s string) []string {
	s = strings.TrimSpace(s)
	if s != "" {
		out = append(out, s)
	}
	return out
}

func sentenceStart(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '`' || c == '*' || c == '"'
}

// abbreviation keeps "e.g. X" and "i.e. X" in one sentence.
func abbreviation(before string) bool {
	l := strings.ToLower(before)
	return strings.HasSuffix(l, "e.g") || strings.HasSuffix(l, "i.e") || strings.HasSuffix(l, "etc") || strings.HasSuffix(l, "vs")
}

var markerRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(?:#{1,6}\s+|[-*+]\s+|\d{1,3}[.)]\s+)+`) }}

func stripMarkers(t string) string {
	t = markerRe.Get().ReplaceAllString(t, "")
	// **Decision:** x -> Decision: x
	if strings.HasPrefix(t, "**") {
		if end := strings.Index(t[2:], "**"); end >= 0 {
			t = t[2:2+end] + t[2+end+2:]
		}
	}
	return strings.TrimSpace(t)
}

// proseCandidates classifies every sentence of text. Each candidate stands
// for an equal share of the text's source bytes.
//
// Private regions are removed from the whole text first: one that spans
// sentences must hide all of them, which sanitising each sentence alone
// would not.
func proseCandidates(text string, sourceBytes int) []Candidate {
	text = sanitize.Private(text)
	var out []Candidate
	for _, s := range sentences(text) {
		if cat, ok := classify(s); ok {
			out = append(out, Candidate{Category: cat, Content: s})
		}
	}
	for i := range out {
		out[i].SourceBytes = sourceBytes / len(out)
	}
	return out
}
