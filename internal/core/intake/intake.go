// Package intake owns how a capture reaches the memory store: the spool
// entry format, the durable write that comes before anything else (the
// part a host's hook deadline must not cut), then extract -> drop what
// memory already holds -> store, exactly once per session turn; the
// captures earlier hooks spooled but did not finish; and the code-change
// observation of a commit.
//
// What a capture yields is package capture's (pure); where it is kept is
// package memory's. This package decides only the order of the steps and
// what survives a crash between them.
package intake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/cursor"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/spool"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const (
	// LeftoverLimit and LeftoverTime bound the spooled captures one `hook
	// start` finishes (a session should not wait long for an earlier one's
	// memory); the rest wait for the next start.
	LeftoverLimit = 20
	LeftoverTime  = 500 * time.Millisecond
	// KnownWindow is how many of the issue's latest observations a capture
	// is compared with to drop what memory already holds.
	KnownWindow = 300
)

// Entry is what a capture spools: the host payload or summary text, with
// the agent and issue the hook was run for, so whichever process finishes
// it stores it in the right place. It is the spool's on-disk format: an
// entry left by an older binary must still read.
type Entry struct {
	Agent   string          `json:"agent"`
	Issue   int             `json:"issue"`
	Session string          `json:"session,omitempty"`
	Summary string          `json:"summary,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Report is what one capture did.
type Report struct {
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
	// Deferred: spooled only (SpoolOnly); the next `hook start` finishes it.
	Deferred bool `json:"deferred"`
	// Duplicate: this turn was captured before, or is being captured by
	// another process right now.
	Duplicate bool `json:"duplicate"`
	// Leftover: spooled by an earlier hook that was cut short.
	Leftover bool `json:"leftover,omitempty"`
}

// Store is the observation store a capture reads and appends to
// (memory.Store).
type Store interface {
	GetByIssue(ctx context.Context, issue int) ([]memory.Observation, error)
	Store(ctx context.Context, obs []memory.Observation) ([]memory.Observation, error)
}

// Intake runs captures against one workspace's spool, cursors and store.
type Intake struct {
	Spool   *spool.Spool
	Cursors *cursor.Cursors
	Store   Store
	// SpoolOnly stops a capture right after the durable spool write, as a
	// host killing the hook would (tests and the durable-part benchmark).
	SpoolOnly bool
	// Warn, when set, receives what went wrong without failing the capture.
	Warn func(format string, args ...any)
	// TranscriptMaxBytes bounds how much of a transcript one capture reads
	// ([limits] transcript; 0: capture.DefaultMaxBytes).
	TranscriptMaxBytes int64
	// CopilotSessions is Copilot CLI's session-state directory
	// ($COPILOT_HOME/session-state, else ~/.copilot/session-state; "" when
	// unknown), where a session's transcript is <id>/events.jsonl: its
	// sessionEnd payload names none.
	CopilotSessions string
	// DeferOver, when > 0, stops a capture whose transcript has more than
	// that many bytes not yet captured right after its spool write, as
	// SpoolOnly does: a host that cuts its session-end hooks short (Claude
	// Code at 1.5 s) would otherwise kill the capture midway. The next
	// `hook start` finishes it.
	DeferOver int64
	// StepOf names the workflow step agent works in on issue ("" for
	// none), recorded with each observation stored (nil: no step).
	StepOf func(agent string, issue int) string
}

// withStep is o with the step its agent works in on its issue.
func (x *Intake) withStep(o memory.Observation) memory.Observation {
	if x.StepOf != nil {
		o.SetStep(x.StepOf(o.Agent, o.IssueNumber))
	}
	return o
}

func (x *Intake) warn(format string, args ...any) {
	if x.Warn != nil {
		x.Warn(format, args...)
	}
}

// Capture is one capture ready to spool: its entry, its spool key (one per
// session turn, so a turn is captured once) and a name for its source.
type Capture struct {
	Entry  Entry
	Key    string
	Source string
	// payload is the entry's payload as parsed by the caller, so it is not
	// parsed again; nil for a summary.
	payload *capture.Payload
}

// New turns what a hook or `memory capture` received into a capture: a
// host payload or a session summary. session names the session of a
// summary (a payload carries its own).
func New(agent string, issue int, in *capture.Input, session string) (Capture, error) {
	e := Entry{Agent: agent, Issue: issue, Session: session}
	switch {
	case len(in.Raw) > 0:
		if in.PayloadErr != nil {
			return Capture{}, in.PayloadErr
		}
		p := in.Payload
		e.Payload = json.RawMessage(in.Raw)
		return Capture{Entry: e, Key: spool.Key(capture.TurnKey(p), agent, strconv.Itoa(issue)),
			Source: string(p.Host) + " hook payload", payload: &p}, nil
	case in.Summary != "":
		e.Summary = in.Summary
		return Capture{Entry: e, Key: spool.Key("summary", agent, strconv.Itoa(issue), session, in.Summary),
			Source: "session summary"}, nil
	}
	return Capture{}, errcode.New(errcode.InvalidInput, "nothing to capture: no payload or summary")
}

// Durably spools the capture first, then processes it. When processing
// fails or is cut short the entry stays spooled and the next `hook start`
// finishes it, exactly once.
//
// What is spooled is the entry sanitised (Entry.Sanitized): the spool file
// is on disk, and stays there if the hook is killed, so it must hold no
// secret or private region that memory itself would not.
func (x *Intake) Durably(ctx context.Context, c Capture) (*Report, error) {
	clean, err := c.Entry.Sanitized()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(clean)
	if err != nil {
		return nil, err
	}
	if _, err := x.Spool.Put(ctx, c.Key, data); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	rep := &Report{Agent: c.Entry.Agent, Issue: c.Entry.Issue, Source: c.Source, Spooled: true}
	if x.SpoolOnly || x.tooLong(c.payload) || copilotEnd(c.payload) {
		rep.Deferred = true
		return rep, nil
	}
	cl, err := x.Spool.Claim(ctx, c.Key)
	if errors.Is(err, spool.ErrNotPending) {
		rep.Duplicate = true
		return rep, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	// Process what was spooled, as a later hook start would: sanitised as
	// a whole, a secret split over lines (a PEM block) goes as a whole.
	payload := c.payload
	if !bytes.Equal(clean.Payload, c.Entry.Payload) {
		payload = nil // parsed again from the sanitised payload
	}
	done, err := x.process(ctx, clean, payload, c.Source)
	if err != nil {
		// The entry stays spooled for the next hook start: the report
		// says so beside the error (Spooled, not Deferred).
		_ = cl.Release()
		return rep, err
	}
	done.Spooled = true
	return done, cl.Done()
}

// process extracts, filters and stores one capture. payload is e.Payload
// parsed (nil for a summary, or a payload that did not parse).
func (x *Intake) process(ctx context.Context, e Entry, payload *capture.Payload, source string) (*Report, error) {
	if len(e.Payload) > 0 && payload == nil {
		p, err := capture.ParsePayload(e.Payload)
		if err != nil {
			return nil, err
		}
		payload = &p
	}
	rep := &Report{Agent: e.Agent, Issue: e.Issue, Source: source, ByCategory: map[memory.Category]int{}}
	session := e.Session
	var res capture.Result
	saveOffset := func() {}
	if payload != nil {
		if session == "" {
			session = payload.SessionID
			// Stored in every observation of the session: one that is
			// no host's id (a line break, an escape, kilobytes) is left
			// out, and the capture goes on.
			if err := validate.Session("session_id", session); err != nil {
				x.warn("%v; stored without a session id", err)
				session = ""
			}
		}
		var err error
		res, saveOffset, err = x.extract(ctx, *payload)
		if err != nil {
			return nil, err
		}
	} else {
		var err error
		if res, err = capture.ParseSummaryContext(ctx, e.Summary); err != nil {
			return nil, err
		}
	}
	rep.SourceBytes = res.SourceBytes
	rep.Candidates = len(res.Candidates)
	cands, err := x.unknown(ctx, e.Issue, res.Candidates)
	if err != nil {
		return nil, err
	}
	rep.Known = len(res.Candidates) - len(cands)
	if len(cands) == 0 {
		saveOffset()
		return rep, nil
	}
	obs := make([]memory.Observation, 0, len(cands))
	for _, c := range cands {
		obs = append(obs, x.withStep(Observation(e.Agent, e.Issue, session, c)))
	}
	stored, err := x.Store.Store(ctx, obs)
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

// extract captures from a payload, from where the last capture of its
// transcript ended. save records the new position; it is to be called only
// once the capture is stored, so a failed one is retried from the same place.
func (x *Intake) extract(ctx context.Context, p capture.Payload) (res capture.Result, save func(), err error) {
	save = func() {}
	if p.TranscriptPath == "" {
		p.TranscriptPath = x.copilotTranscript(p)
	}
	transcript := p.TranscriptPath
	// ExtractFile's EndOffset is absolute: the next capture of this
	// transcript starts there. A Copilot turn may still be being written
	// when agentStop fires: mid-session, read only the turns that ended.
	res, err = capture.FromPayloadContext(ctx, p, capture.Options{Offset: x.Cursors.Get(p.SessionID, transcript), MaxBytes: x.TranscriptMaxBytes,
		CompleteTurns: p.Host == capture.Copilot && !p.SessionEnd()})
	if errors.Is(err, fs.ErrNotExist) && p.Host == capture.Copilot && !p.SessionEnd() {
		// Copilot writes events.jsonl lazily: at an agentStop it may not
		// exist yet. Nothing to read now; the session end's capture (at the
		// next hook start) reads the whole file from the cursor.
		return capture.Result{}, save, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A transcript that is gone will not come back: capture what the
		// payload itself carries rather than retry forever.
		x.warn("agentx memory: %v; capturing the payload alone", err)
		p.TranscriptPath, transcript = "", ""
		res, err = capture.FromPayloadContext(ctx, p, capture.Options{})
	}
	if err != nil {
		return res, save, err
	}
	if transcript != "" {
		save = func() {
			if err := x.Cursors.Set(ctx, p.SessionID, transcript, res.EndOffset); err != nil {
				x.warn("agentx memory: capture position not saved (the next capture re-reads, skipping what is stored): %v", err)
			}
		}
	}
	return res, save, nil
}

// copilotEnd reports a Copilot CLI sessionEnd payload. Copilot 1.0.102
// writes a session's last turns to its events.jsonl only after its
// sessionEnd hook has returned (it flushes at session.shutdown): a capture
// inside that hook reads a transcript without the turn that holds the
// session's decision, and its cursor then passes the point where that
// turn will land. Spooled instead, the capture runs at the next hook
// start, from the cursor, on the whole transcript (the real-host suite
// lost 1 to 3 decisions in 5 sessions before).
func copilotEnd(p *capture.Payload) bool {
	return p != nil && p.Host == capture.Copilot && p.SessionEnd()
}

// tooLong reports a payload whose transcript holds more than DeferOver
// bytes not yet captured.
func (x *Intake) tooLong(p *capture.Payload) bool {
	if x.DeferOver <= 0 || p == nil {
		return false
	}
	transcript := p.TranscriptPath
	if transcript == "" {
		transcript = x.copilotTranscript(*p)
	}
	if transcript == "" {
		return false
	}
	fi, err := os.Stat(transcript)
	if err != nil {
		return false
	}
	from := x.Cursors.Get(p.SessionID, transcript)
	if from > fi.Size() {
		from = 0
	}
	return fi.Size()-from > x.DeferOver
}

// copilotTranscript finds the transcript of a Copilot payload that names
// none (sessionEnd): the one the session's cursor records, else
// <session-state>/<id>/events.jsonl when it exists. "" for any other
// payload, or when neither is known.
func (x *Intake) copilotTranscript(p capture.Payload) string {
	if p.Host != capture.Copilot || p.SessionID == "" {
		return ""
	}
	if t := x.Cursors.Transcript(p.SessionID); t != "" {
		return t
	}
	if x.CopilotSessions == "" || !safeName(p.SessionID) {
		return ""
	}
	path := filepath.Join(x.CopilotSessions, p.SessionID, "events.jsonl")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// safeName reports a session id usable as one path element: it comes
// from the host's payload.
func safeName(id string) bool {
	if id == "." || id == ".." || len(id) > 200 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// unknown drops the candidates the issue's latest KnownWindow observations
// already hold.
func (x *Intake) unknown(ctx context.Context, issue int, cands []capture.Candidate) ([]capture.Candidate, error) {
	if len(cands) == 0 {
		return cands, nil
	}
	existing, err := x.Store.GetByIssue(ctx, issue)
	if err != nil {
		return nil, err
	}
	if len(existing) > KnownWindow {
		existing = existing[len(existing)-KnownWindow:]
	}
	texts := make([]string, len(existing))
	for i := range existing {
		texts[i] = existing[i].Content
	}
	return capture.Known(cands, texts, capture.DuplicateThreshold), nil
}

// Observation is a candidate as the store takes it; the store adds the id,
// timestamp and token estimate.
func Observation(agent string, issue int, session string, c capture.Candidate) memory.Observation {
	o := memory.Observation{Agent: agent, IssueNumber: issue, Category: c.Category,
		Content: c.Content, Summary: c.Summary, SessionID: session}
	o.SetSourceBytes(c.SourceBytes)
	o.SetFiles(c.Files)
	return o
}

// Doc is `memory capture --json`.
type Doc struct {
	Capture        *Report  `json:"capture"`
	Message        string   `json:"message"`
	ObservationIDs []string `json:"observationIds"`
	jsonfile.Versioned
}

// Doc is the capture as `memory capture --json` prints it, with its line.
func (r *Report) Doc(line string) *Doc {
	if r.ByCategory == nil {
		r.ByCategory = map[memory.Category]int{}
	}
	return &Doc{Capture: r, ObservationIDs: jsonfile.List(r.IDs), Message: line}
}
