package capture

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/lazy"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// Each host's transcript lines: Claude Code, Codex, Copilot CLI.

// --- Claude Code ---

type claudeMessage struct {
	Role    string        `json:"role"`
	Content claudeContent `json:"content"`
}

// claudeContent is a message's content: a string (a person's prompt, a
// compaction summary) or content blocks.
type claudeContent struct {
	Text   string
	Blocks []claudeBlock
}

func (c *claudeContent) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	case len(b) > 0 && b[0] == '[':
		return json.Unmarshal(b, &c.Blocks)
	}
	return nil
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (x *extractor) claude(l tline, n int) {
	m := l.Message
	if m.Content.Blocks == nil {
		if l.IsCompactSummary && m.Content.Text != "" {
			s := strings.TrimPrefix(m.Content.Text, claudeContinuation)
			x.summary = append(x.summary, Candidate{Category: memory.CompactionSummary, Content: s, SourceBytes: n})
		}
		return // a person's prompt: theirs, not a finding
	}
	for _, b := range m.Content.Blocks {
		switch b.Type {
		case "text":
			if l.Type == "assistant" {
				x.prose = append(x.prose, x.proseOf(b.Text, n)...)
			}
		case "tool_use":
			x.toolCall(b.ID, b.Name, b.Input, n)
		case "tool_result":
			text := ""
			if b.IsError {
				text = blockText(b.Content)
			}
			x.toolResult(b.ToolUseID, b.IsError, text, n)
		}
	}
}

// claudeContinuation opens the user message Claude Code writes after a
// compaction; the summary follows it.
const claudeContinuation = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:"

// blockText reads a tool result's content: a string, or text blocks.
func blockText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != "" {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// --- Codex ---

type codexPayload struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Message   string          `json:"message"`
}

func (x *extractor) codex(p codexPayload, typ string, n int) {
	if typ == "compacted" {
		if p.Message != "" {
			x.summary = append(x.summary, Candidate{Category: memory.CompactionSummary, Content: p.Message, SourceBytes: n})
		}
		return
	}
	switch p.Type {
	case "message":
		if p.Role == "assistant" {
			x.prose = append(x.prose, x.proseOf(blockText(p.Content), n)...)
		}
	case "function_call":
		// Codex sends arguments as a JSON string holding a JSON object.
		args := p.Arguments
		var s string
		if json.Unmarshal(args, &s) == nil {
			args = json.RawMessage(s)
		}
		x.toolCall(p.CallID, p.Name, args, n)
	case "custom_tool_call":
		x.toolCall(p.CallID, p.Name, nil, n)
		if c := x.calls[p.CallID]; c != nil && c.tool == "apply_patch" {
			c.files, c.edit = patchFiles(p.Input), true
		}
	case "function_call_output", "custom_tool_call_output":
		out := blockText(p.Output)
		failed, text := codexOutcome(out)
		x.toolResult(p.CallID, failed, text, n)
	}
}

var exitCodeRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Exit code:?|Process exited with code)\s*(-?\d+)`)
}}

// codexOutcome reads a Codex tool output: `{"output":..., "metadata":
// {"exit_code": N}}`, or text starting "Exit code: N".
func codexOutcome(out string) (failed bool, text string) {
	var o struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(out, "{") && json.Unmarshal([]byte(out), &o) == nil && o.Metadata.ExitCode != nil {
		return *o.Metadata.ExitCode != 0, o.Output
	}
	if m := exitCodeRe.Get().FindStringSubmatch(out); m != nil {
		code, _ := strconv.Atoi(m[1])
		return code != 0, out
	}
	return false, out
}

// patchFiles lists the files an apply_patch envelope touches.
func patchFiles(patch string) []string {
	var files []string
	for _, line := range strings.Split(patch, "\n") {
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if strings.HasPrefix(line, p) {
				files = append(files, strings.TrimSpace(line[len(p):]))
			}
		}
	}
	return files
}

// --- Copilot CLI ---

type copilotData struct {
	Content      string `json:"content"`
	ToolRequests []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Arguments  json.RawMessage `json:"arguments"`
	Success    *bool           `json:"success"`
	Result     struct {
		Content string `json:"content"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
	// session.compaction_complete
	Summary        string `json:"summary"`
	SummaryContent string `json:"summaryContent"`
}

func (x *extractor) copilot(typ string, d copilotData, n int) {
	switch typ {
	case "assistant.message":
		if d.Content != "" {
			x.prose = append(x.prose, x.proseOf(d.Content, n)...)
		}
		for _, r := range d.ToolRequests {
			x.toolCall(r.ToolCallID, r.Name, r.Arguments, n)
		}
	case "tool.execution_start":
		if x.calls[d.ToolCallID] == nil {
			x.toolCall(d.ToolCallID, d.ToolName, d.Arguments, n)
		}
	case "tool.execution_complete":
		failed := d.Success != nil && !*d.Success
		text := d.Result.Content
		if failed && len(d.Error) > 0 {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(d.Error, &e) == nil && e.Message != "" {
				text = e.Message
			} else {
				text = blockText(d.Error)
			}
		}
		x.toolResult(d.ToolCallID, failed, text, n)
	case "session.compaction_complete":
		if s := first(d.SummaryContent, d.Summary); s != "" {
			x.summary = append(x.summary, Candidate{Category: memory.CompactionSummary, Content: s, SourceBytes: n})
		}
	}
}
