package hookcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/compact"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/cursor"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/recall"
	"github.com/agentx-dev/agentx/internal/core/spool"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The memory pipeline wires capture (package capture), the spool, the
// store, recall and compaction into `hook finish`, `hook start` and the
// `memory capture|recall|compact` commands. Policy lives in the core
// packages; this file decides only what runs when and what is printed.

const (
	// envSpoolOnly stops a capture right after the durable spool write, as
	// a host killing the hook would (tests and the durable-part benchmark).
	// Honoured only when set.
	envSpoolOnly = "AGENTX_SPOOL_ONLY"
	// leftoverLimit and leftoverTime bound the spooled captures one `hook
	// start` finishes (a session should not wait long for an earlier one's
	// memory); the rest wait for the next start.
	leftoverLimit = 20
	leftoverTime  = 500 * time.Millisecond
	// copilotMaxChars bounds the instructions file Copilot reads;
	// instructionsHeaderChars is kept for its front matter and title.
	copilotMaxChars         = 8000
	instructionsHeaderChars = 250
	// recallRelated and recallRecent bound the candidates taken from other
	// issues; recallHydrate is how many of their issue files are read for
	// full content and recall counts.
	recallRelated = 30
	recallRecent  = 20
	recallHydrate = 4
	// recallKeywords bounds the keyword set (query first).
	recallKeywords = 40
	// knownWindow is how many of the issue's latest observations a capture
	// is compared with to drop what memory already holds.
	knownWindow = 300
	// instructionsFile is where Copilot reads recall (it ignores what a
	// sessionStart hook prints).
	instructionsFile = ".github/instructions/agentx-memory.instructions.md"
)

// spoolEntry is what a capture spools: the host payload or summary text,
// with the agent and issue the hook was run for, so whichever process
// finishes it stores it in the right place.
type spoolEntry struct {
	Agent   string          `json:"agent"`
	Issue   int             `json:"issue"`
	Session string          `json:"session,omitempty"`
	Summary string          `json:"summary,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// captureReport is what one capture did.
type captureReport struct {
	Agent       string                  `json:"agent"`
	Issue       int                     `json:"issue"`
	Source      string                  `json:"source"`
	SourceBytes int64                   `json:"sourceBytes"`
	Candidates  int                     `json:"candidates"`
	Known       int                     `json:"alreadyKnown"`
	Stored      []memory.Observation    `json:"-"`
	IDs         []string                `json:"observationIds"`
	ByCategory  map[memory.Category]int `json:"byCategory"`
	Spooled     bool                    `json:"spooled"`
	Deferred    bool                    `json:"deferred"`
	Duplicate   bool                    `json:"duplicate"`
	Leftover    bool                    `json:"leftover,omitempty"`
}

func (r *captureReport) line() string {
	switch {
	case r.Duplicate:
		// Claim also refuses an entry another hook is processing right now.
		return fmt.Sprintf("Already captured: this %s was processed before, or is being processed by another hook (once per session turn).", r.Source)
	case r.Deferred:
		return fmt.Sprintf("Spooled the %s for issue #%d; the next `hook start` finishes the capture.", r.Source, r.Issue)
	}
	var parts []string
	for _, c := range memory.Categories() {
		if n := r.ByCategory[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	s := fmt.Sprintf("Stored %d observation(s) for %s on issue #%d", len(r.IDs), r.Agent, r.Issue)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	s += fmt.Sprintf(" from a %s (%s read)", r.Source, humanBytes(r.SourceBytes))
	if r.Known > 0 {
		s += fmt.Sprintf("; %d already known", r.Known)
	}
	if r.Leftover {
		s += "; left by an earlier hook that was cut short"
	}
	return s + "."
}

// memorySettings returns [memory]; a config that cannot be read means the
// defaults (a warning was or will be printed by whoever needs the rest).
func (a *App) memorySettings() config.MemorySettings {
	cfg, err := a.Config()
	if err != nil {
		return config.MemorySettings{}
	}
	return cfg.Config.Memory
}

func (a *App) spool() *spool.Spool {
	return spool.New(filepath.Join(a.Workspace().MemoryDir(), "spool"), a.Locks(), spool.Options{Clock: a.Clock})
}

// captureInput turns what a hook or `memory capture` received into a spool
// entry and its key: a host payload (JSON) or a session summary (text).
func captureInput(agent string, issue int, data []byte, session string) (spoolEntry, string, string, error) {
	e := spoolEntry{Agent: agent, Issue: issue, Session: session}
	if capture.LooksLikePayload(data) {
		p, err := capture.ParsePayload(data)
		if err != nil {
			return e, "", "", err
		}
		e.Payload = json.RawMessage(bytes.TrimSpace(data))
		return e, spool.Key(capture.TurnKey(p), agent, strconv.Itoa(issue)), string(p.Host) + " hook payload", nil
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return e, "", "", errcode.New(errcode.InvalidInput, "nothing to capture: no payload or summary")
	}
	e.Summary = text
	return e, spool.Key("summary", agent, strconv.Itoa(issue), session, text), "session summary", nil
}

// captureDurably spools the input first (the part a host deadline must not
// cut), then processes it. When processing fails or is cut short the entry
// stays spooled and the next `hook start` finishes it, exactly once.
func (a *App) captureDurably(ctx context.Context, e spoolEntry, key, source string) (*captureReport, error) {
	sp := a.spool()
	data, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if _, err := sp.Put(ctx, key, data); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	rep := &captureReport{Agent: e.Agent, Issue: e.Issue, Source: source, Spooled: true}
	if a.Getenv(envSpoolOnly) != "" {
		rep.Deferred = true
		return rep, nil
	}
	cl, err := sp.Claim(ctx, key)
	if errors.Is(err, spool.ErrNotPending) {
		rep.Duplicate = true
		return rep, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	done, err := a.processEntry(ctx, e, source)
	if err != nil {
		_ = cl.Release()
		return nil, err
	}
	done.Spooled = true
	return done, cl.Done()
}

// processLeftovers finishes what earlier hooks spooled but did not process.
func (a *App) processLeftovers(ctx context.Context) []*captureReport {
	sp := a.spool()
	pending, err := sp.Pending()
	if err != nil {
		a.warn("agentx memory: spool: %v", err)
		return nil
	}
	var out []*captureReport
	start := time.Now() // real time: this bounds real work, whatever the clock says
	for i, p := range pending {
		if i == leftoverLimit || time.Since(start) > leftoverTime {
			break
		}
		cl, err := sp.Claim(ctx, p.Key)
		if err != nil {
			continue // done meanwhile, or another process works on it
		}
		var e spoolEntry
		if err := json.Unmarshal(cl.Payload(), &e); err != nil || e.Agent == "" || e.Issue <= 0 {
			// Unreadable: nothing could ever process it; keep it out of
			// the way without losing it.
			a.warn("agentx memory: spooled capture %s is unreadable; left in %s", p.Key, sp.Dir())
			_ = cl.Release()
			continue
		}
		source := "session summary"
		if len(e.Payload) > 0 {
			source = "hook payload"
			if pl, err := capture.ParsePayload(e.Payload); err == nil {
				source = string(pl.Host) + " hook payload"
			}
		}
		rep, err := a.processEntry(ctx, e, source)
		if err != nil {
			a.warn("agentx memory: spooled capture for issue #%d: %v (kept for the next hook start)", e.Issue, err)
			_ = cl.Release()
			continue
		}
		if err := cl.Done(); err != nil {
			a.warn("agentx memory: spool: %v", err)
		}
		rep.Leftover = true
		out = append(out, rep)
	}
	return out
}

// processEntry extracts, filters and stores one capture.
func (a *App) processEntry(ctx context.Context, e spoolEntry, source string) (*captureReport, error) {
	rep := &captureReport{Agent: e.Agent, Issue: e.Issue, Source: source, ByCategory: map[memory.Category]int{}}
	var res capture.Result
	session := e.Session
	saveOffset := func() {}
	if len(e.Payload) > 0 {
		p, err := capture.ParsePayload(e.Payload)
		if err != nil {
			return nil, err
		}
		if session == "" {
			session = p.SessionID
		}
		cursors := cursor.New(filepath.Join(a.Workspace().MemoryDir(), "cursors"), a.Locks(), a.Clock)
		transcript := p.TranscriptPath
		// ExtractFile's EndOffset is absolute: the next capture of this
		// transcript starts there.
		res, err = capture.FromPayload(p, capture.Options{Offset: cursors.Get(p.SessionID, transcript)})
		if errors.Is(err, fs.ErrNotExist) {
			// A transcript that is gone will not come back: capture what
			// the payload itself carries rather than retry forever.
			a.warn("agentx memory: %v; capturing the payload alone", err)
			p.TranscriptPath, transcript = "", ""
			res, err = capture.FromPayload(p, capture.Options{})
		}
		if err != nil {
			return nil, err
		}
		if transcript != "" {
			// Only once the capture is stored: a failed one is retried from
			// the same place.
			saveOffset = func() {
				if err := cursors.Set(ctx, p.SessionID, transcript, res.EndOffset); err != nil {
					a.warn("agentx memory: capture position not saved (the next capture re-reads, skipping what is stored): %v", err)
				}
			}
		}
	} else {
		res = capture.ParseSummary(e.Summary)
	}
	rep.SourceBytes = res.SourceBytes
	rep.Candidates = len(res.Candidates)
	store := a.Memory()
	cands := res.Candidates
	if len(cands) > 0 {
		existing, err := store.GetByIssue(ctx, e.Issue)
		if err != nil {
			return nil, err
		}
		if len(existing) > knownWindow {
			existing = existing[len(existing)-knownWindow:]
		}
		texts := make([]string, len(existing))
		for i := range existing {
			texts[i] = existing[i].Content
		}
		cands = capture.Known(cands, texts, capture.DuplicateThreshold)
	}
	rep.Known = len(res.Candidates) - len(cands)
	if len(cands) == 0 {
		saveOffset()
		return rep, nil
	}
	obs := make([]memory.Observation, 0, len(cands))
	for _, c := range cands {
		o := memory.Observation{Agent: e.Agent, IssueNumber: e.Issue, Category: c.Category,
			Content: c.Content, Summary: c.Summary, SessionID: session}
		if c.SourceBytes > 0 {
			o.Extra = append(o.Extra, jsonfile.Field{Key: compact.ExtraSourceBytes, Value: json.RawMessage(strconv.Itoa(c.SourceBytes))})
		}
		if len(c.Files) > 0 {
			files, _ := json.Marshal(c.Files)
			o.Extra = append(o.Extra, jsonfile.Field{Key: "files", Value: files})
		}
		obs = append(obs, o)
	}
	stored, err := store.Store(ctx, obs)
	if err != nil {
		return nil, err
	}
	saveOffset()
	rep.Known += len(obs) - len(stored)
	rep.Stored = stored
	for _, o := range stored {
		rep.IDs = append(rep.IDs, o.ID)
		rep.ByCategory[o.Category]++
	}
	return rep, nil
}

// hookCapture is `hook finish`'s memory capture (the hookFinishCapture
// seam): payload, stdin summary or --summary-file.
func (a *App) hookCapture(ctx context.Context, in *hookInput) (hookSection, bool, error) {
	if !a.memorySettings().IsEnabled() {
		return hookSection{}, false, nil
	}
	// Session end has time to spare once the capture is spooled: fold the
	// recalls journalled by `hook start` into the store's recall counts.
	defer a.applyRecalls(ctx)
	var data []byte
	switch {
	case len(in.Raw) > 0:
		data = in.Raw
	case in.SummaryFile != "":
		b, err := os.ReadFile(in.SummaryFile)
		if err != nil {
			return hookSection{}, false, errcode.New(errcode.InvalidInput, "--summary-file: %v", err)
		}
		data = b
	case in.Summary != "":
		data = []byte(in.Summary)
	default:
		return hookSection{}, false, nil
	}
	if !in.HasIssue {
		return hookSection{Title: "Memory Capture", Body: "Not captured: no issue (pass --issue, set $AGENTX_ISSUE, or work on a branch named like 42-fix-login)."}, true, nil
	}
	e, key, source, err := captureInput(in.Agent, in.Issue, data, "")
	if err != nil {
		return hookSection{}, false, err
	}
	rep, err := a.captureDurably(ctx, e, key, source)
	if err != nil {
		return hookSection{}, false, err
	}
	return hookSection{Title: "Memory Capture", Body: rep.line()}, true, nil
}

// hookRecall is `hook start`'s memory part (the hookStartExtras seam):
// finish spooled captures, then recall within the host's ceiling.
// used is how many characters the rest of `hook start`'s output takes.
func (a *App) hookRecall(ctx context.Context, in *hookInput, used int) []hookSection {
	settings := a.memorySettings()
	if !settings.IsEnabled() {
		return nil
	}
	var out []hookSection
	if reps := a.processLeftovers(ctx); len(reps) > 0 {
		var lines []string
		for _, r := range reps {
			lines = append(lines, "- "+r.line())
		}
		out = append(out, hookSection{Title: "Memory Capture", Body: strings.Join(lines, "\n")})
		used += len("\n## Memory Capture\n\n") + len(out[0].Body)
	}
	if settings.Budget() <= 0 {
		return out
	}
	if fi, err := os.Stat(a.recallJournal()); err == nil && fi.Size() > recallJournalMax {
		a.applyRecalls(ctx) // no session end has come for a long while
	}
	host := in.Format
	res, err := a.recall(ctx, recallRequest{Agent: in.Agent, Issue: in.Issue, HasIssue: in.HasIssue, Host: host, InHook: true, Used: used})
	if err != nil {
		a.warn("agentx hook start: memory recall: %v", err)
		return out
	}
	if res.Body == "" {
		return out
	}
	return append(out, hookSection{Title: "Memory Recall", Body: res.Body})
}

// recallRequest is one recall.
type recallRequest struct {
	Agent    string
	Issue    int
	HasIssue bool
	Query    string
	// Budget overrides [memory] max_tokens when positive.
	Budget int
	// Host is the output form: text, json, claude, codex or copilot.
	Host string
	// InHook leaves room for the rest of `hook start`'s output: Used
	// characters, measured by the caller.
	InHook bool
	Used   int
}

// hostCeiling returns a host's limits on hook context.
func hostCeiling(host string) (chars, tokens int) {
	switch host {
	case "claude":
		return recall.ClaudeMaxChars, 0
	case "codex":
		return 0, recall.CodexMaxTokens
	case "copilot":
		return copilotMaxChars, 0
	}
	return 0, 0
}

// recall gathers candidates (the agent's issue, related issues, the
// agent's recent work), ranks and selects them, and records the recall.
func (a *App) recall(ctx context.Context, req recallRequest) (recall.Result, error) {
	maxTokens := a.memorySettings().Budget()
	if req.Budget > 0 {
		maxTokens = req.Budget
	}
	hostChars, hostTokens := hostCeiling(req.Host)
	if hostTokens > 0 {
		hostChars = hostTokens * recall.CharsPerToken
	}
	if req.InHook && hostChars > 0 {
		hostChars -= req.Used
		if hostChars <= 0 {
			return recall.Result{}, nil
		}
	}
	if req.Host == "copilot" {
		hostChars -= instructionsHeaderChars // the file's front matter and title
	}
	// The section title is part of what the host counts.
	budget := recall.Budget(maxTokens, hostChars, 0) - len("\n## Memory Recall\n")
	if budget <= 0 {
		return recall.Result{}, nil
	}
	now := a.Clock.Now()
	kw := recall.Keywords(recallKeywords, a.recallContext(req)...)
	cands, err := a.recallCandidates(ctx, req, kw, now)
	if err != nil {
		return recall.Result{}, err
	}
	res := recall.Select(recall.Rank(cands, kw, now), recall.Options{
		Agent: req.Agent, Issue: req.Issue, HasIssue: req.HasIssue, Query: req.Query,
		MaxChars: budget, CLI: a.cliName()})
	if len(res.Shown) > 0 {
		if err := appendRecalls(a.recallJournal(), res.IDs()); err != nil {
			a.warn("agentx memory: recall counts not recorded: %v", err)
		}
		issue := 0
		if req.HasIssue {
			issue = req.Issue
		}
		if err := a.Events().Append(ctx, events.MemoryRecalled, events.MemoryPayload{Agent: req.Agent, IssueNumber: issue,
			Count: len(res.Shown), TotalTokens: res.Tokens, ObservationIDs: res.IDs(), Timestamp: now.UnixMilli()}); err != nil {
			a.warn("agentx memory: memory-recalled event not logged: %v", err)
		}
	}
	return res, nil
}

// recallContext is the text keywords come from: the query, the branch
// name, the issue's open clarifications and recent commit subjects.
func (a *App) recallContext(req recallRequest) []string {
	texts := []string{req.Query}
	root := a.Workspace().Root
	texts = append(texts, workspace.GitBranch(root))
	if req.HasIssue {
		if l, err := a.Ledgers().Load(req.Issue); err == nil {
			for _, r := range l.Clarifications {
				if !r.Status.Open() {
					continue
				}
				texts = append(texts, r.Topic)
				for _, t := range r.Thread {
					texts = append(texts, t.Body)
				}
			}
		}
	}
	return append(texts, commitSubjects(root)...)
}

// commitSubjects reads the last 20 commit subjects; nothing outside a git
// repository or when git is missing.
func commitSubjects(root string) []string {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return nil
	}
	// git log -n 20 --format=%s
	cmd := exec.Command("git", "-C", root, "log", "-n", "20", "--format=%s")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func (a *App) recallCandidates(ctx context.Context, req recallRequest, kw []string, now time.Time) ([]recall.Candidate, error) {
	store := a.Memory()
	var cands []recall.Candidate
	if req.HasIssue {
		obs, err := store.GetByIssue(ctx, req.Issue)
		if err != nil {
			return nil, err
		}
		for _, o := range obs {
			cands = append(cands, recall.Candidate{Obs: o, Origin: recall.FromIssue, SourceBytes: extraInt(o.Extra, compact.ExtraSourceBytes)})
		}
	}
	var rows []recall.Candidate
	other := func(r memory.Row, origin recall.Origin) {
		if req.HasIssue && r.IssueNumber == req.Issue {
			return
		}
		rows = append(rows, recall.Candidate{Origin: origin, Obs: memory.Observation{ID: r.ID, Agent: r.Agent,
			IssueNumber: r.IssueNumber, Category: r.Category, Summary: r.Summary, Tokens: r.Tokens, Timestamp: r.Timestamp}})
	}
	if len(kw) > 0 {
		found, err := store.Search(ctx, memory.Query{Text: strings.Join(kw, " "), Limit: recallRelated})
		if err != nil {
			return nil, err
		}
		for _, r := range found {
			other(r, recall.FromRelated)
		}
	}
	mine, err := store.Search(ctx, memory.Query{Agent: req.Agent, Limit: recallRecent})
	if err != nil {
		return nil, err
	}
	for _, r := range mine {
		other(r, recall.FromRecent)
	}
	// Read the full observations (content, recall counts) of the issues
	// holding the best of these rows; the rest stay summaries.
	full := map[string]memory.Observation{}
	read := map[int]bool{}
	for _, s := range recall.Rank(rows, kw, now) {
		n := s.Obs.IssueNumber
		if read[n] {
			continue
		}
		if len(read) == recallHydrate {
			break
		}
		read[n] = true
		obs, err := store.GetByIssue(ctx, n)
		if err != nil {
			continue // a corrupt issue file only loses its own rows' detail
		}
		for _, o := range obs {
			full[o.ID] = o
		}
	}
	for _, c := range rows {
		if o, ok := full[c.Obs.ID]; ok {
			c.Obs = o
			c.SourceBytes = extraInt(o.Extra, compact.ExtraSourceBytes)
		}
		cands = append(cands, c)
	}
	// Recalls not yet folded into the store count too.
	if pending := pendingRecalls(a.recallJournal()); len(pending) > 0 {
		for i := range cands {
			cands[i].Obs.RecallCount += pending[cands[i].Obs.ID]
		}
	}
	return cands, nil
}

func extraInt(extra []jsonfile.Field, key string) int {
	for _, x := range extra {
		if x.Key == key {
			n, _ := strconv.Atoi(string(x.Value))
			return n
		}
	}
	return 0
}

// agentAndIssue resolves --agent (else $AGENTX_AGENT) and --issue (else
// $AGENTX_ISSUE, else the branch name) for the memory pipeline commands.
func (a *App) agentAndIssue(cmd string, agent *string, issueFlag string) (int, bool, error) {
	if *agent == "" {
		*agent = a.Getenv("AGENTX_AGENT")
	}
	if *agent == "" { // a missing flag is a usage error, like hook start's
		return 0, false, usagef("%s needs --agent (or $AGENTX_AGENT)", cmd)
	}
	if err := validate.Agent("agent", *agent); err != nil {
		return 0, false, err
	}
	return a.issueFor(issueFlag)
}

// Recall counts: `hook start` must answer in tens of milliseconds, and
// rewriting every recalled observation's issue file (fsynced) would cost
// more than the rest of the hook together. So a recall appends its IDs to a
// journal, scoring adds the journal's counts, and `hook finish` (which has
// time once its capture is spooled) or `memory compact` folds them into the
// store. A crash may lose or repeat an increment: recall counts are a soft
// ranking signal, never data.
const recallJournalMax = 256 << 10

func (a *App) recallJournal() string {
	return filepath.Join(a.Workspace().MemoryDir(), "recall-pending.jsonl")
}

// appendRecalls records one recall: one line, one O_APPEND write.
func appendRecalls(path string, ids []string) error {
	line, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644) // RDWR: Terminated reads the last byte
	if err != nil {
		return err
	}
	_, err = f.Write(jsonfile.Terminated(f, append(line, '\n')))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pendingRecalls counts the journalled recalls of each ID (including a
// batch being folded in right now). Lines that do not parse are skipped.
func pendingRecalls(path string) map[string]int {
	counts := map[string]int{}
	for _, p := range []string{path, path + ".applying"} {
		if data, err := os.ReadFile(p); err == nil {
			countRecalls(data, counts)
		}
	}
	return counts
}

func countRecalls(data []byte, counts map[string]int) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		var ids []string
		if json.Unmarshal(line, &ids) == nil {
			for _, id := range ids {
				counts[id]++
			}
		}
	}
}

// applyRecalls folds the journal into the store's recall counts: the
// journal is renamed aside under its lock (new recalls start a fresh one),
// applied, then removed. A batch left aside by a crash is applied first.
func (a *App) applyRecalls(ctx context.Context) {
	path := a.recallJournal()
	aside := path + ".applying"
	err := a.Locks().With(ctx, path, func(*lock.Lock) error {
		if _, err := os.Stat(aside); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(path, aside); errors.Is(err, fs.ErrNotExist) {
				return nil
			} else if err != nil {
				return err
			}
		}
		data, err := os.ReadFile(aside)
		if err != nil {
			return err
		}
		counts := map[string]int{}
		countRecalls(data, counts)
		// Past the score's saturation (10 recalls) more counts change no
		// ranking, but they are the store's history: add them all, one
		// rewrite per issue file.
		if err := a.Memory().AddRecallCounts(ctx, counts); err != nil {
			return err
		}
		return os.Remove(aside)
	})
	if err != nil {
		a.warn("agentx memory: recall counts not updated (kept for later): %v", err)
	}
}

const captureUsage = `memory capture --agent A [--issue N] [--file F] [--session S] [--json]

Captures observations from a session: a host hook payload (Claude Code,
Copilot CLI, Codex; its transcript is read) or a summary in the old
compaction format (## Decisions, ## Code Changes, ## Errors Encountered,
## Key Facts), from --file or stdin. Sanitised before anything reaches disk;
each session turn is captured once.`

func runMemoryCapture(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory capture", captureUsage)
	agent := fs.String("agent", "", "the observing agent `A` (else $AGENTX_AGENT)")
	issueFlag := fs.String("issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	file := fs.String("file", "", "read the payload or summary from `F` instead of stdin")
	session := fs.String("session", "", "session ID `S` for a summary")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	issue, ok, err := a.agentAndIssue("memory capture", agent, *issueFlag)
	if err != nil {
		return err
	}
	if !ok {
		return usagef("memory capture needs --issue (or $AGENTX_ISSUE, or a branch named like 42-fix-login)")
	}
	var data []byte
	if *file != "" && *file != "-" {
		data, err = os.ReadFile(*file)
	} else {
		data, err = io.ReadAll(io.LimitReader(a.Stdin, capture.MaxPayloadBytes))
	}
	if err != nil {
		return errcode.New(errcode.InvalidInput, "cannot read the capture input: %v", err)
	}
	if !a.memorySettings().IsEnabled() {
		return a.printCapture(&captureReport{Agent: *agent, Issue: issue}, *asJSON, "Memory is disabled ([memory] enabled = false); nothing captured.")
	}
	e, key, source, err := captureInput(*agent, issue, data, *session)
	if err != nil {
		return err
	}
	rep, err := a.captureDurably(ctx, e, key, source)
	if err != nil {
		return err
	}
	return a.printCapture(rep, *asJSON, rep.line())
}

func (a *App) printCapture(rep *captureReport, asJSON bool, line string) error {
	if asJSON {
		if rep.ByCategory == nil {
			rep.ByCategory = map[memory.Category]int{}
		}
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "capture": rep,
			"observationIds": nonNil(rep.IDs), "message": line})
	}
	fmt.Fprintln(a.Stdout, line)
	for _, o := range rep.Stored {
		fmt.Fprintf(a.Stdout, "  %s  %s: %s\n", o.ID, o.Category, o.Summary)
	}
	return nil
}

// minRecallBudget is the smallest --budget that leaves room for one
// observation line besides the footer.
const minRecallBudget = 100

const recallUsage = `memory recall --agent A [--issue N] [--query Q] [--budget TOKENS] [--format text|claude|codex|json] [--write-instructions] [--json]

Prints the ## Memory Recall section a session starts with: the observations
most relevant to the agent and issue (recency, recall count and keyword
overlap with the query, the branch name, open clarifications and recent
commits), within [memory] max_tokens and the host's own ceiling (claude:
10,000 characters, codex: about 2,500 tokens). --write-instructions writes
it to ` + instructionsFile + ` for GitHub Copilot, which ignores what a
sessionStart hook prints.`

func runMemoryRecall(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory recall", recallUsage)
	agent := fs.String("agent", "", "the agent `A` (else $AGENTX_AGENT)")
	issueFlag := fs.String("issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	query := fs.String("query", "", "words `Q` to rank by, besides the branch, clarifications and commits")
	budget := fs.Int("budget", 0, "at most `TOKENS` (default [memory] max_tokens)")
	format := fs.String("format", "text", "output `form`: text, claude, codex or json")
	write := fs.Bool("write-instructions", false, "write "+instructionsFile+" (Copilot) instead of printing")
	asJSON := fs.Bool("json", false, "same as --format json")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *asJSON {
		*format = "json"
	}
	switch *format {
	case "text", "claude", "codex", "json":
	default:
		return usagef("--format must be text, claude, codex or json (got %q)", *format)
	}
	if *budget < 0 {
		return usagef("--budget must not be negative")
	}
	if *budget > 0 && *budget < minRecallBudget {
		// Below this the section holds no observation, only a clipped footer.
		return usagef("--budget %d is too small: a recall needs at least %d tokens (its footer alone takes about 60)", *budget, minRecallBudget)
	}
	issue, ok, err := a.agentAndIssue("memory recall", agent, *issueFlag)
	if err != nil {
		return err
	}
	settings := a.memorySettings()
	req := recallRequest{Agent: *agent, Issue: issue, HasIssue: ok, Query: *query, Budget: *budget, Host: *format}
	if *write {
		req.Host = "copilot"
	}
	var res recall.Result
	var off string
	switch {
	case !settings.IsEnabled():
		off = "Memory is disabled ([memory] enabled = false)."
	case settings.Budget() <= 0 && *budget == 0:
		off = "Memory recall is off ([memory] max_tokens = 0); capture still runs."
	default:
		if res, err = a.recall(ctx, req); err != nil {
			return err
		}
	}
	text := ""
	if off == "" {
		text = "## Memory Recall\n" + res.Body + "\n"
	}
	if *write {
		return a.writeInstructions(req, text, off)
	}
	switch *format {
	case "claude", "codex":
		return writeJSON(a.Stdout, map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName": "SessionStart", "additionalContext": text}})
	case "json":
		var iss any
		if ok {
			iss = issue
		}
		shown := make([]map[string]any, 0, len(res.Shown))
		for _, s := range res.Shown {
			shown = append(shown, map[string]any{"id": s.Obs.ID, "agent": s.Obs.Agent, "issueNumber": s.Obs.IssueNumber,
				"category": s.Obs.Category, "summary": s.Obs.Summary, "timestamp": s.Obs.Timestamp,
				"score": roundScore(s.Score), "full": s.Full})
		}
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "agent": *agent, "issue": iss,
			"enabled": off == "", "recalled": shown, "more": res.More, "tokens": res.Tokens,
			"displacedTokens": res.Displaced, "text": text})
	}
	if off != "" {
		fmt.Fprintln(a.Stdout, off)
		return nil
	}
	_, err = io.WriteString(a.Stdout, text)
	return err
}

// writeInstructions writes the recall where GitHub Copilot reads it.
func (a *App) writeInstructions(req recallRequest, text, off string) error {
	path := filepath.Join(a.Workspace().Root, filepath.FromSlash(instructionsFile))
	if off != "" {
		fmt.Fprintln(a.Stdout, off+" "+instructionsFile+" left as it is.")
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	who := req.Agent
	if req.HasIssue {
		who += fmt.Sprintf(" on issue #%d", req.Issue)
	}
	doc := "---\napplyTo: \"**\"\n---\n<!-- Written by `agentx-hook memory recall --write-instructions`; rewritten at every session end. -->\n" +
		"# What agentx remembers for " + who + "\n\n" + text
	if err := jsonfile.WriteAtomic(path, []byte(doc), jsonfile.WriteOptions{}); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "Wrote %s (%d characters).\n", instructionsFile, len(doc))
	return nil
}

const compactUsage = `memory compact --issue N [--older-than D] [--dry-run] [--json]

Merges related observations of an issue (same category, overlapping content)
into summary observations until the issue holds at most half as many, and
moves the originals to .agentx/memory/archive/issue-N-archived.json. A
summary keeps its members' category and text, so search still finds every
decision; nothing is ever deleted.`

func runMemoryCompact(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory compact", compactUsage)
	issueFlag := fs.String("issue", "", "issue `N`")
	olderThan := fs.String("older-than", "", "only merge observations older than `D` (7d, 48h; default: all)")
	dry := fs.Bool("dry-run", false, "print the plan, change nothing")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *issueFlag == "" {
		return usagef("memory compact needs --issue N")
	}
	issue, err := validate.Issue(*issueFlag)
	if err != nil {
		return err
	}
	opt := compact.Options{Now: a.Clock.Now()}
	if *olderThan != "" {
		t, err := parseWhen(a, *olderThan)
		if err != nil {
			return err
		}
		opt.MinAge = opt.Now.Sub(t)
	}
	a.applyRecalls(ctx) // archived originals keep their recall counts
	store := a.Memory()
	before, err := store.GetByIssue(ctx, issue)
	if err != nil {
		return err
	}
	if len(before) == 0 {
		return errcode.New(errcode.NotFound, "issue #%d has no observations", issue)
	}
	var plan compact.Plan
	var after []memory.Observation
	archived := 0
	if *dry {
		plan = compact.Make(before, opt)
		after = plan.Keep
	} else {
		after, archived, err = store.Compact(ctx, issue, func(obs []memory.Observation) ([]memory.Observation, []memory.Observation, error) {
			plan = compact.Make(obs, opt)
			return plan.Keep, plan.Archive, nil
		})
		if err != nil {
			return err
		}
	}
	if !*dry && archived == 0 && len(plan.Archive) > 0 {
		// The store dropped the plan: the issue changed while it was made.
		plan, after = compact.Plan{}, before
		if !*asJSON {
			fmt.Fprintf(a.Stdout, "Nothing compacted: issue #%d changed while the plan was made; run it again.\n", issue)
			return nil
		}
	}
	archive, _ := filepath.Rel(a.Workspace().Root, store.ArchivePath(issue))
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "issue": issue, "dryRun": *dry,
			"before": len(before), "after": len(after), "summaries": plan.Merged, "archived": len(plan.Archive),
			"archive": filepath.ToSlash(archive)})
	}
	verb := "Compacted"
	if *dry {
		verb = "Would compact"
	}
	fmt.Fprintf(a.Stdout, "%s issue #%d: %d -> %d observations (%d originals merged into %d summaries", verb, issue, len(before), len(after), len(plan.Archive), plan.Merged)
	if len(plan.Archive) > 0 {
		fmt.Fprintf(a.Stdout, ", archived in %s", filepath.ToSlash(archive))
	}
	fmt.Fprintln(a.Stdout, ").")
	return nil
}

// demoSessionSummary is a session summary in the old compaction format, as
// an agent host would hand it to `hook finish` at session end.
const demoSessionSummary = `## Decisions
- Use a sliding-window rate limiter for the login endpoint, keyed by account and IP.
- Keep the lockout window at 15 minutes, read from auth.lockout_minutes in config.

## Code Changes
- src/auth/ratelimit.ts: sliding-window limiter backed by the Redis session store.

## Errors Encountered
- ECONNREFUSED 127.0.0.1:6379 while Redis was down; the limiter now fails closed.

## Key Facts
- The lockout message must state the wait: "Try again in 15 minutes".
- <private>staging password is hunter2</private>Staging deploys need the VPN.`

func demoPipeline() []demoStep {
	return []demoStep{
		{title: "Session end: `hook finish` captures a session summary (spooled first, sanitised: the private part never reaches disk)",
			args: []string{"hook", "finish", "--agent", "engineer", "--issue", "57"}, stdin: demoSessionSummary},
		{title: "The same summary again: captured exactly once",
			args: []string{"hook", "finish", "--agent", "engineer", "--issue", "57"}, stdin: demoSessionSummary},
		{title: "Next session start: `hook start` adds this ## Memory Recall after the clarifications (here within 700 tokens)",
			args: []string{"memory", "recall", "--agent", "engineer", "--issue", "57", "--budget", "700"}},
		{title: "The same recall as Claude Code's SessionStart JSON, ranked for a query, within 10,000 characters",
			args: []string{"memory", "recall", "--agent", "engineer", "--issue", "57", "--query", "lockout redis", "--budget", "300", "--format", "claude"}},
		{title: "Copilot reads instructions files instead of hook output",
			args: []string{"memory", "recall", "--agent", "engineer", "--issue", "57", "--write-instructions"}},
		{title: "An old issue: compaction merges overlapping observations, archives the originals",
			args: []string{"memory", "compact", "--issue", "12"}},
		{title: "Decisions stay findable after compaction",
			args: []string{"memory", "search", "decision", "--issue", "12", "--category", "decision", "--limit", "2"}},
	}
}
