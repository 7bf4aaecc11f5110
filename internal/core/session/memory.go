package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/intake"
	"github.com/agentx-dev/agentx/internal/core/recall"
)

// memorySettings is [memory]; a configuration that did not load means the
// defaults (whoever needs the rest reports it).
func (s *session) memorySettings() config.MemorySettings {
	if s.d.Config == nil {
		return config.MemorySettings{}
	}
	return s.d.Config.Config.Memory
}

func (s *session) memoryEnabled() bool { return s.memorySettings().IsEnabled() && s.d.Intake != nil }

// capture is Finish's memory capture: the host payload, else the summary
// file, else a summary on stdin; ok reports a section to show. spoolOnly
// stops after the durable spool write.
func (s *session) capture(ctx context.Context, spoolOnly bool) (Section, bool, error) {
	if !s.memoryEnabled() {
		return Section{}, false, nil
	}
	// Session end has time to spare once the capture is spooled: fold the
	// recalls journalled by `hook start` into the store's recall counts.
	if !spoolOnly && s.d.Recall != nil {
		defer s.d.Recall.Fold(ctx)
	}
	src := &s.in.Payload
	switch {
	case src.IsPayload():
	case s.in.SummaryFile != "":
		b, err := s.d.ReadFile("--summary-file", s.in.SummaryFile)
		if err != nil {
			return Section{}, false, err
		}
		file := capture.ParseInput(b)
		src = &file
	case src.Empty():
		return Section{}, false, nil
	}
	if !s.in.HasIssue {
		return Section{Title: "Memory Capture", Body: "Not captured: no issue (pass --issue, set $AGENTX_ISSUE, or work on a branch named like 42-fix-login)."}, true, nil
	}
	c, err := intake.New(s.in.Agent, s.in.Issue, src, "")
	if err != nil {
		return Section{}, false, err
	}
	began := time.Now()
	ix := s.d.Intake(spoolOnly)
	budget, host := SessionEndBudget(src)
	if !spoolOnly && budget > 0 {
		ix.DeferOver = InlineCaptureBytes
	}
	rep, err := ix.Durably(ctx, c)
	s.m.CaptureRuns++
	s.m.CaptureMS += time.Since(began).Milliseconds()
	if err != nil {
		s.m.CaptureErrors++
		if rep != nil && rep.Spooled {
			// Cut short after the durable spool write (the deadline, most
			// often): nothing is lost, and the agent is told where it is.
			s.spooledCut = true
			return Section{Title: "Memory Capture", Body: fmt.Sprintf(
				"Spooled the %s for issue #%d; it was not processed before the hook's deadline, so the next `hook start` finishes the capture.", rep.Source, rep.Issue)}, true, err
		}
		return Section{}, false, err
	}
	s.m.Captured += len(rep.IDs)
	if rep.Deferred && !spoolOnly {
		s.warn("agentx hook finish: memory capture deferred: the transcript holds more than %d MB not yet captured, more than fits in %s's %s for session-end hooks; it is spooled (durable) and the next hook start stores it",
			InlineCaptureBytes>>20, host, budget)
	}
	return Section{Title: "Memory Capture", Body: rep.Line()}, true, nil
}

// InlineCaptureBytes is the most unread transcript a session end captures
// within a host's session-end budget; more is spooled and stored by the
// next hook start. Measured (docs/PERFORMANCE.md, issue 31): a 16 MB
// transcript took 0.85 to 1.4 s on a loaded machine, past Claude Code's
// 1.5 s once the host's own work is counted; 2 MB takes a tenth of it.
const InlineCaptureBytes = 2 << 20

// SessionEndBudget is how long the host gives a session-end hook before
// it kills it (0 when it does not cut one short): Claude Code gives its
// SessionEnd hooks 1.5 s together, Codex SessionEnd its timeout (1 s by
// default, at most 3 s, which setup writes).
func SessionEndBudget(in *capture.Input) (time.Duration, string) {
	if !in.IsPayload() || !in.Payload.SessionEnd() || !strings.EqualFold(in.Payload.Event, "SessionEnd") {
		return 0, ""
	}
	switch in.Payload.Host {
	case capture.Claude:
		return 1500 * time.Millisecond, "Claude Code"
	case capture.Codex:
		return 3 * time.Second, "Codex"
	}
	return 0, ""
}

// lateSpoolBudget bounds the spool write of a capture whose hook ran out of
// time first: one small atomic write, past the deadline by design.
const lateSpoolBudget = 2 * time.Second

// spoolLate keeps a session's capture when the hook's deadline passed
// before its capture step (a monitor or status write stalled behind a
// busy lock): the payload or summary is still spooled, sanitised as
// always, and the next `hook start` finishes it. Losing what a session
// learned to a slow side effect would be the worse failure.
func (s *session) spoolLate() {
	ctx, cancel := context.WithTimeout(context.Background(), lateSpoolBudget)
	defer cancel()
	_, ok, err := s.capture(ctx, true)
	switch {
	case err != nil:
		s.warn("agentx hook finish: memory capture not spooled either: %v", err)
	case ok:
		s.run.Rename("memory capture", "memory capture (spooled: the next hook start stores it)")
	}
}

// recall is Start's memory part: finish spooled captures, then recall
// within the host's ceiling. used is how many characters the rest of the
// output takes.
func (s *session) recall(ctx context.Context, used int) []Section {
	if !s.memoryEnabled() || s.d.Recall == nil {
		return nil
	}
	var out []Section
	began := time.Now()
	if reps := s.d.Intake(false).Leftovers(ctx); len(reps) > 0 {
		s.m.CaptureRuns++
		s.m.CaptureMS += time.Since(began).Milliseconds()
		var lines []string
		for _, r := range reps {
			s.m.Captured += len(r.IDs)
			lines = append(lines, "- "+r.Line())
		}
		out = append(out, Section{Title: "Memory Capture", Body: strings.Join(lines, "\n")})
		used += len("\n## Memory Capture\n\n") + len(out[0].Body)
	}
	if s.memorySettings().Budget() <= 0 {
		return out
	}
	if s.d.Recall.Journal.Full() {
		s.d.Recall.Fold(ctx) // no session end has come for a long while
	}
	// While the memory index is rebuilt in the background (a fresh clone's
	// first pull), searching would rebuild it in memory from every issue
	// file, seconds at 100K observations: recall reads the issue's own
	// file only, and says so.
	noIndex := s.d.IndexPending != nil && s.d.IndexPending()
	note := ""
	if noIndex {
		note = NoIndexNote(s.in.Issue, s.in.HasIssue)
		used += len(note) + 1
	}
	began = time.Now()
	res, err := s.d.Recall.Recall(ctx, recall.Request{Agent: s.in.Agent, Issue: s.in.Issue, HasIssue: s.in.HasIssue,
		Host: s.in.Host, InHook: true, Used: used, NoIndex: noIndex})
	s.m.RecallRuns++
	s.m.RecallMS += time.Since(began).Milliseconds()
	if err == nil {
		s.m.Recalled, s.m.RecallTokens, s.m.Displaced = len(res.Shown), res.Tokens, res.Displaced
		s.m.Searches, s.m.SearchMS, s.m.SearchResults = res.Searches, res.SearchTime.Milliseconds(), res.SearchResults
	}
	if err != nil || len(res.Shown) == 0 {
		s.m.RecallMisses++
	}
	if err != nil {
		s.warn("agentx hook start: memory recall: %v", err)
		return out
	}
	body := res.Body
	if note != "" {
		body = strings.TrimRight(body+"\n"+note, "\n")
		body = strings.TrimLeft(body, "\n")
	}
	if body == "" {
		return out
	}
	return append(out, Section{Title: "Memory Recall", Body: body})
}

// NoIndexNote is the line a hook's recall adds when it ran without the
// search index.
func NoIndexNote(issue int, hasIssue bool) string {
	what := "no issue, so nothing was recalled"
	if hasIssue {
		what = fmt.Sprintf("only issue #%d's own observations were read", issue)
	}
	return "Recall ran without the search index, which is being rebuilt in the background after the state branch pull: " +
		what + "; related issues and your recent work come back at the next session (`agentx-hook memory search` works meanwhile, more slowly)."
}
