package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
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
	return ExtractFileContext(context.Background(), path, opt)
}

// ExtractFileContext is ExtractFile, stopping with ctx's error once ctx is
// done (a hook's deadline).
func ExtractFileContext(ctx context.Context, path string, opt Options) (Result, error) {
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
	res, err := ExtractContext(ctx, data, opt)
	if err != nil {
		return Result{}, fmt.Errorf("capture transcript %s: %w", path, err)
	}
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
	res, _ := ExtractContext(context.Background(), data, opt)
	return res
}

// ExtractContext is Extract, stopping with ctx's error once ctx is done: a
// hook's deadline is checked every few hundred lines, not only once the
// whole transcript is read.
func ExtractContext(ctx context.Context, data []byte, opt Options) (Result, error) {
	if opt.CompleteTurns {
		data = data[:completeTurns(data)]
	}
	x := newExtractor(opt)
	pos := 0
	for pos < len(data) {
		if x.lines&255 == 0 {
			if err := ctx.Err(); err != nil {
				return Result{Lines: x.lines}, err
			}
		}
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
	cands, err := finish(ctx, x.candidates(), false)
	if err != nil {
		return Result{Lines: x.lines}, err
	}
	return Result{
		Candidates:  cands,
		SourceBytes: int64(pos),
		EndOffset:   int64(pos),
		Lines:       x.lines,
		Skipped:     x.skipped,
	}, nil
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
