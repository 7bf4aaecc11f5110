package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// DefaultMaxBytes bounds how much of a transcript one capture reads. A
// longer segment is read from its end: the latest turns matter most, and
// the bound keeps `hook finish` inside the host's deadline.
const DefaultMaxBytes = 16 << 20

// Options tune a transcript capture.
type Options struct {
	// MaxBytes is the most bytes read (default DefaultMaxBytes).
	MaxBytes int64
	// Offset is where to start reading: a previous Result.EndOffset for the
	// same transcript, or 0 for all of it. An offset past the end (the file
	// was replaced) starts again from 0.
	Offset int64
	// Cwd makes file paths under it relative.
	Cwd string
	// CompleteTurns reads only up to the end of the last turn that ended
	// (a Copilot CLI `assistant.turn_end` line): Copilot fires agentStop
	// before it writes the turn's last message, so what follows the last
	// turn_end may be a turn still being written. EndOffset stops there
	// too, and the next capture reads the rest.
	CompleteTurns bool
}

// ExtractFile captures observations from the transcript at path, from
// opt.Offset to its last complete line. A missing transcript is an
// INVALID_INPUT error naming it.
func ExtractFile(path string, opt Options) (Result, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Result{}, fmt.Errorf("transcript %s: %w", path, err)
		}
		return Result{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // opened read-only: a close error loses nothing
	info, err := f.Stat()
	if err != nil {
		return Result{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	size := info.Size()
	start := opt.Offset
	if start < 0 || start > size {
		start = 0
	}
	truncated := false
	if size-start > opt.MaxBytes {
		start, truncated = size-opt.MaxBytes, true
	}
	data := make([]byte, size-start)
	if _, err := f.ReadAt(data, start); err != nil && !errors.Is(err, io.EOF) {
		return Result{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if truncated {
		// Started mid-line: skip to the next whole line.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data, start = data[i+1:], start+int64(i)+1
		} else {
			data, start = nil, size
		}
	}
	res := Extract(data, opt)
	res.EndOffset += start
	res.Truncated = truncated
	return res, nil
}

// Extract captures observations from transcript bytes: JSON lines of
// Claude Code (`type` user/assistant with `message.content` blocks), Codex
// (`type` response_item/compacted with a `payload`) or Copilot CLI (`type`
// assistant.message/tool.execution_* with `data`), recognised line by line.
// Lines that are not JSON are skipped and counted; a final line without a
// newline is read only if it is complete JSON (the host may be writing it).
// Result.EndOffset is relative to data.
func Extract(data []byte, opt Options) Result {
	if opt.CompleteTurns {
		data = data[:completeTurns(data)]
	}
	x := newExtractor(opt)
	pos := 0
	for pos < len(data) {
		nl := bytes.IndexByte(data[pos:], '\n')
		var line []byte
		next := len(data)
		if nl >= 0 {
			line, next = data[pos:pos+nl], pos+nl+1
		} else {
			line = data[pos:]
			if !json.Valid(line) {
				break // being written: leave it for the next capture
			}
		}
		x.line(line)
		pos = next
	}
	return Result{
		Candidates:  finish(x.candidates(), false),
		SourceBytes: int64(pos),
		EndOffset:   int64(pos),
		Lines:       x.lines,
		Skipped:     x.skipped,
	}
}

// call is a tool call waiting for its result.
type call struct {
	name    string // tool name as the host spells it
	tool    string // lower-case tool name
	command string // shell command, if any
	files   []string
	edit    bool
	failed  bool
	bytes   int // source bytes of the call and its result
}

type extractor struct {
	opt     Options
	prose   []Candidate
	errs    []Candidate
	summary []Candidate
	calls   map[string]*call
	order   []*call
	lines   int
	skipped int
	// private is how deep in private regions the assistant's text is at
	// the end of its last message: a region may open in one message and
	// close in a later one (sanitize.PrivateFrom).
	private int
}

// proseOf classifies an assistant message's text, private regions carried
// over from the messages before it removed first.
func (x *extractor) proseOf(text string, n int) []Candidate {
	text, x.private = sanitize.PrivateFrom(text, x.private)
	return proseCandidates(text, n)
}

func newExtractor(opt Options) *extractor {
	return &extractor{opt: opt, calls: map[string]*call{}}
}

// tline is the union of the three hosts' line shapes, decoded in one pass;
// a tool result's content stays raw until it is known to be a failure.
type tline struct {
	Type             string         `json:"type"`
	Message          *claudeMessage `json:"message"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	IsSidechain      bool           `json:"isSidechain"`
	Payload          *codexPayload  `json:"payload"`
	Data             *copilotData   `json:"data"`
}

// A Claude Code user line that is neither a failed tool result nor a
// compaction summary yields nothing, and such lines (file reads, command
// output) are most of a transcript's bytes: they are recognised by their
// compact-JSON markers and not decoded. The markers can only appear
// unescaped as JSON structure, never inside a string; an assistant line
// whose tool input happens to hold both is recognised by its own type.
var (
	userMarker = []byte(`"type":"user"`)
	roleMarker = []byte(`"role":"user"`)
	asstMarker = []byte(`"type":"assistant"`)
	errMarkers = [][]byte{[]byte(`"is_error":true`), []byte(`"is_error": true`), []byte(`isCompactSummary`)}
)

func uninteresting(raw []byte) bool {
	if !bytes.Contains(raw, userMarker) || !bytes.Contains(raw, roleMarker) || bytes.Contains(raw, asstMarker) {
		return false
	}
	for _, m := range errMarkers {
		if bytes.Contains(raw, m) {
			return false
		}
	}
	return true
}

func (x *extractor) line(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	x.lines++
	if uninteresting(raw) {
		return
	}
	var l tline
	if err := json.Unmarshal(raw, &l); err != nil {
		// A field of an unexpected type (a host's newer format) spoils only
		// that field: the decoder fills the rest and reports the first.
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			x.skipped++
			return
		}
	}
	n := len(raw) + 1
	switch {
	case (l.Type == "user" || l.Type == "assistant") && l.Message != nil:
		if !l.IsSidechain { // a subagent's own turns are its business
			x.claude(l, n)
		}
	case (l.Type == "response_item" || l.Type == "compacted") && l.Payload != nil:
		x.codex(*l.Payload, l.Type, n)
	case strings.Contains(l.Type, ".") && l.Data != nil:
		x.copilot(l.Type, *l.Data, n)
	}
}

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

var exitCodeRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Exit code:?|Process exited with code)\s*(-?\d+)`)
})

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
	if m := exitCodeRe().FindStringSubmatch(out); m != nil {
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

// --- tool calls, shared ---

// Tools that write files, by lower-case name across hosts.
var editTools = map[string]bool{
	"edit": true, "multiedit": true, "write": true, "notebookedit": true, // Claude Code
	"create": true, "str_replace_editor": true, "str_replace": true, "insert": true, // Copilot CLI
	"apply_patch": true, "write_file": true, "edit_file": true, "create_file": true, "replace": true,
}

// Tools that run shell commands.
var shellTools = map[string]bool{
	"bash": true, "shell": true, "shell_command": true, "exec_command": true, "local_shell": true,
	"run_shell_command": true, "powershell": true, "run_in_terminal": true,
}

type toolInput struct {
	FilePath     string          `json:"file_path"`
	Path         string          `json:"path"`
	FilePathC    string          `json:"filePath"`
	NotebookPath string          `json:"notebook_path"`
	TargetFile   string          `json:"target_file"`
	Command      json.RawMessage `json:"command"`
	Cmd          json.RawMessage `json:"cmd"`
	Input        string          `json:"input"`
}

func (x *extractor) toolCall(id, name string, input json.RawMessage, n int) {
	tool := strings.ToLower(name)
	c := &call{name: name, tool: tool, bytes: n}
	var in toolInput
	if len(input) > 0 {
		_ = json.Unmarshal(input, &in)
	}
	cmd := commandText(in.Command)
	if cmd == "" {
		cmd = commandText(in.Cmd)
	}
	switch {
	case editTools[tool]:
		if tool == "str_replace_editor" && (cmd == "view" || cmd == "") {
			break // Copilot's editor tool also views files
		}
		c.edit = true
		if f := first(in.FilePath, in.Path, in.FilePathC, in.NotebookPath, in.TargetFile); f != "" {
			c.files = []string{f}
		}
		if tool == "apply_patch" && in.Input != "" {
			c.files = patchFiles(in.Input)
		}
	case shellTools[tool]:
		c.command = cmd
		// Codex may run apply_patch through its shell tool.
		if strings.Contains(cmd, "*** Begin Patch") {
			c.edit, c.files = true, patchFiles(cmd)
		}
	}
	if id == "" {
		id = fmt.Sprintf("anon-%d", len(x.order))
	}
	x.calls[id] = c
	x.order = append(x.order, c)
}

// commandText reads a command given as a string or an argv array (Codex's
// ["bash","-lc","go test ./..."] reads as its last element).
func commandText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		if len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			return argv[len(argv)-1]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// Tool failures that are the agent's own fumbles or the person's choice,
// not facts about the project.
var trivialErrors = []string{
	"has not been read yet", "doesn't want to proceed", "[request interrupted",
	"user rejected", "user denied", "tool use was rejected", "file has been modified since read",
	"file has been unexpectedly modified", "no changes to make", "old_string and new_string are exactly the same",
}

func (x *extractor) toolResult(id string, failed bool, text string, n int) {
	c := x.calls[id]
	if c == nil {
		c = &call{}
	}
	c.bytes += n
	if !failed {
		return
	}
	c.failed = true
	text = sanitize.Private(text) // before lines are picked out of it
	lower := strings.ToLower(text)
	for _, t := range trivialErrors {
		if strings.Contains(lower, t) {
			return
		}
	}
	excerpt := errorExcerpt(text)
	var content string
	switch {
	case c.command != "":
		// Backticks as written, not %#q: that switches to "..." for a
		// command holding a backtick, and a stored observation's text
		// must not change between versions (dedupe compares it).
		content = "Command failed: `" + cleanLine(c.command, 200) + "`: " + excerpt
	case len(c.files) > 0:
		content = fmt.Sprintf("%s failed on %s: %s", c.name, x.rel(c.files[0]), excerpt)
	case c.name != "":
		content = fmt.Sprintf("%s failed: %s", c.name, excerpt)
	default:
		content = "Tool failed: " + excerpt
	}
	x.errs = append(x.errs, Candidate{Category: memory.Error, Content: content, Files: x.rels(c.files), SourceBytes: c.bytes})
}

var errorLineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)error|fail|panic|exception|fatal|denied|not found|cannot|undefined|no such|refused|timed? ?out`)
})

// cleanLine is line cut to n characters with its secrets redacted first,
// so a secret straddling the cut is never half-kept. Only the first 4n
// characters are read: what the cut keeps starts there.
func cleanLine(line string, n int) string {
	return shorten.Line(sanitize.Secrets(shorten.Runes(line, 4*n)), n)
}

// errorExcerpt keeps the telling lines of a failure's output: up to three
// that mention an error, else the first three.
func errorExcerpt(text string) string {
	var picked, firsts []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(strings.ToLower(l), "exit code") {
			continue
		}
		if len(firsts) < 3 {
			firsts = append(firsts, cleanLine(l, 200))
		}
		if len(picked) < 3 && errorLineRe().MatchString(l) {
			picked = append(picked, cleanLine(l, 200))
		}
		if len(picked) == 3 {
			break
		}
	}
	if len(picked) == 0 {
		picked = firsts
	}
	if len(picked) == 0 {
		return "(no output)"
	}
	return strings.Join(picked, " | ")
}

func (x *extractor) rel(path string) string {
	if x.opt.Cwd == "" || !filepath.IsAbs(path) {
		return path
	}
	if r, err := filepath.Rel(x.opt.Cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

func (x *extractor) rels(paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = x.rel(p)
	}
	return out
}

// candidates assembles everything found: compaction summaries, prose,
// errors, and one code-change per file edited by calls that did not fail.
func (x *extractor) candidates() []Candidate {
	type agg struct {
		file  string
		tools map[string]int // by tool name
		order []string
		bytes int
	}
	var files []*agg
	byFile := map[string]*agg{}
	for _, c := range x.order {
		if !c.edit || c.failed {
			continue
		}
		for _, f := range c.files {
			f = x.rel(f)
			a := byFile[f]
			if a == nil {
				a = &agg{file: f, tools: map[string]int{}}
				byFile[f] = a
				files = append(files, a)
			}
			if a.tools[c.name] == 0 {
				a.order = append(a.order, c.name)
			}
			a.tools[c.name]++
			a.bytes += c.bytes / len(c.files)
		}
	}
	out := make([]Candidate, 0, len(x.summary)+len(x.prose)+len(x.errs)+len(files))
	out = append(out, x.summary...)
	out = append(out, x.prose...)
	out = append(out, x.errs...)
	for _, a := range files {
		var ops []string
		for _, t := range a.order {
			ops = append(ops, fmt.Sprintf("%s x%d", t, a.tools[t]))
		}
		out = append(out, Candidate{
			Category:    memory.CodeChange,
			Content:     fmt.Sprintf("Modified %s (%s)", a.file, strings.Join(ops, ", ")),
			Files:       []string{a.file},
			SourceBytes: a.bytes,
		})
	}
	return out
}
