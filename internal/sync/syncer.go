package sync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Counts is what a run did (or, dry, would do). Only counts leave the
// action as outputs: no text from a ledger or a comment ever does.
type Counts struct {
	IssuesSynced     int
	IssuesUnchanged  int
	CommentsCreated  int
	CommentsUpdated  int
	CommentsDeleted  int
	LabelsAdded      int
	LabelsRemoved    int
	CommandsApplied  int
	CommandsRejected int
	// CommandsSwept are commands no ingest run answered, found by the
	// monitor's sweep; IssuesReconciled the issues checked against GitHub
	// despite the cache, IssuesRepaired those of them that had drifted.
	CommandsSwept    int
	IssuesReconciled int
	IssuesRepaired   int
}

// Add sums other into c.
func (c *Counts) Add(o Counts) {
	c.IssuesSynced += o.IssuesSynced
	c.IssuesUnchanged += o.IssuesUnchanged
	c.CommentsCreated += o.CommentsCreated
	c.CommentsUpdated += o.CommentsUpdated
	c.CommentsDeleted += o.CommentsDeleted
	c.LabelsAdded += o.LabelsAdded
	c.LabelsRemoved += o.LabelsRemoved
	c.CommandsApplied += o.CommandsApplied
	c.CommandsRejected += o.CommandsRejected
	c.CommandsSwept += o.CommandsSwept
	c.IssuesReconciled += o.IssuesReconciled
	c.IssuesRepaired += o.IssuesRepaired
}

// Syncer mirrors ledgers to issues.
type Syncer struct {
	GH     *Client
	Labels Labels
	// Bot is the login our comments are written by; only its comments
	// count as mirrors (GET /user is refused to the workflow token).
	Bot   string
	Clean Sanitizer
	// Mention, when set, mentions the person a question is addressed to
	// ([people] in agentx.toml, issue 34).
	Mention Mentions
	// DryRun reads and plans but writes nothing.
	DryRun bool
	// Full ignores the state's hashes and reconciles every issue.
	Full bool
	Warn func(format string, args ...any)
	// Budget bounds the run's writes (operations-per-run); 0: no bound.
	Budget int
	// Debug, when set, gets a line per decision.
	Debug func(format string, args ...any)

	// Reconcile is how many issues a run checks against what GitHub
	// shows despite the cache, in rotation (reconcile.go); 0: none.
	// SweptUntil, when set, is recorded in the sync state as where the
	// monitor's sweep of comments ended.
	Reconcile  int
	SweptUntil time.Time
	// RunNumber is the workflow's run number (GITHUB_RUN_NUMBER; 0 when
	// unknown): the rotation moves on by Reconcile issues per run even
	// when a run had nothing else to record (reconcile.go).
	RunNumber int
	// MarkMirrored records a complete mirror even when nothing in the
	// sync state changed, when the branch was read in full (its tip is
	// not this syncer's record of a mirror: another writer committed,
	// say memory, changing no ledger): one commit, after which the runs
	// that follow see their record at the tip and cost one call, instead
	// of reading the branch every time until something else is written.
	MarkMirrored bool
	// listing is the repository's issues and comments a full resync
	// read in pages (fullread.go), nil otherwise.
	listing *RepoListing
	// Recheck lists issues to reconcile in this run besides the slice
	// (the sweep saw a mirror there twice).
	Recheck []int
	// Learned is what the monitor learned of the ledgers it read
	// (Monitor.Learned), recorded where the state lacks it.
	Learned map[int]BlobWatch
	// ReconcileSlice lists the issues this run reconciled, of
	// ReconcileOf ledgers, for the run's summary.
	ReconcileSlice []int
	ReconcileOf    int
	recon          map[int]bool
	login          *string // the token's login, once asked (reconcile.go)

	Counts Counts
	// Workflows, when set, are the workflows the stage mirror derives
	// each issue's stage and status label from (stage.go); nil: no stage
	// mirror.
	Workflows      *config.Set
	workflowsPrint string
	// Planned lists every write of a dry run (runbudget.go).
	Planned []PlannedOp
	// Failures are the issues that failed; the run went on past them.
	Failures []IssueFailure
	// Waiting counts the issues left for the next run when the run
	// stopped early (budget, rate limit).
	Waiting int
	writes  int
	// dryLabels are the labels a dry run planned to create (runbudget.go).
	dryLabels map[string]bool
}

// LabelSpecs are the colours and descriptions labels are created with.
func (s *Syncer) labelSpec(name string) LabelSpec {
	if strings.HasPrefix(name, StatusLabelPrefix) && name != s.Labels.Blocked {
		return LabelSpec{Name: name, Color: "0e8a16", Description: "The issue's status, from its workflow step (agentx)"}
	}
	if name == s.Labels.Escalated {
		return LabelSpec{Name: name, Color: "b60205", Description: "A clarification between agents needs a person's decision (agentx)"}
	}
	return LabelSpec{Name: name, Color: "d93f0b", Description: "A blocking clarification between agents waits for an answer (agentx)"}
}

func (s *Syncer) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(format, args...)
	}
}

// Run syncs every loaded ledger, ascending by issue. An issue missing on
// GitHub or locked is reported and skipped; a corrupt ledger or any other
// failure of one issue is recorded in Failures and the run goes on, so
// one issue never holds up the others (the run then ends in a
// *FailedIssues). What stops every issue alike (stopsRun: the budget, the
// rate limit, a missing permission) ends the run at once, with Waiting
// counting the issues left for the next run.
func (s *Syncer) Run(ctx context.Context, loaded []ledger.Loaded, st *State) error {
	if s.Full && len(loaded) > fullListAbove {
		// Every issue is read: in listings of 100 when they cost less
		// than the 2 calls an issue (1,000 issues: 3,003 calls before).
		listing, ok, err := s.GH.ListRepo(ctx, len(loaded))
		if err != nil {
			return err
		}
		if ok {
			s.listing = listing
		}
		defer func() { s.listing = nil }()
	}
	for i, ld := range loaded {
		if ld.Err != nil {
			s.Failures = append(s.Failures, IssueFailure{Issue: ld.Issue, Err: ld.Err})
			continue
		}
		err := s.Issue(ctx, ld.Ledger, st)
		switch {
		case err == nil:
		case errors.Is(err, ErrNotFound) || errors.Is(err, ErrIssueRefused):
			s.warn("skipping issue #%d: %v", ld.Issue, err)
		case stopsRun(err):
			s.Waiting = len(loaded) - i
			return err
		default:
			s.Failures = append(s.Failures, IssueFailure{Issue: ld.Issue, Err: err})
		}
	}
	if len(s.Failures) > 0 {
		return &FailedIssues{Failures: s.Failures}
	}
	return nil
}

// Issue reconciles one issue with its ledger. With a state entry whose
// hash matches, it makes no call. With a stale entry it reads the comments
// once (the labels are known from the state, unless ingest mirrored the
// issue since); with none it also reads the issue's labels.
func (s *Syncer) Issue(ctx context.Context, l *ledger.Ledger, st *State) error {
	want := DesiredFor(l, s.Labels, s.Clean, s.Mention)
	if len(want.Tampered) > 0 {
		s.warn("issue #%d: %d thread entries changed since they were written and were not mirrored (%s); `agentx-hook verify --state-branch` says what changed",
			l.IssueNumber, len(want.Tampered), strings.Join(want.Tampered, ", "))
	}
	hash := want.Hash(s.Bot)
	prev, known := st.Get(l.IssueNumber)
	full := s.Full || s.recon[l.IssueNumber]
	if known && prev.Hash == hash && !full {
		s.Counts.IssuesUnchanged++
		s.debugf("issue #%d: unchanged since the last sync (state hash %s)", l.IssueNumber, hash)
		return nil
	}
	if !known && len(want.Comments) == 0 && len(OnLabels(want.Labels)) == 0 {
		if !s.DryRun { // nothing to show and nothing we ever put there
			st.Set(l.IssueNumber, IssueState{Hash: hash, Labels: OnLabels(want.Labels), Ingested: ingestedEntries(l), Shown: want.shown()})
		}
		return nil
	}
	// The cached labels hold only while sync was the last to mirror the
	// issue: ingest mirrors it too (a person's /clarify ask puts the
	// blocked label on) without the cache, and each command it applied
	// left an entry carrying its comment. More such entries than recorded:
	// the labels are read.
	ingested := ingestedEntries(l)
	var haveLabels []string
	listed, inListing := []string(nil), false
	if s.listing != nil {
		listed, inListing = s.listing.Labels[l.IssueNumber]
	}
	switch {
	case known && !full && prev.Ingested == ingested:
		haveLabels = prev.Labels
	case inListing:
		haveLabels = listed
	default:
		var err error
		if haveLabels, err = s.GH.IssueLabels(ctx, l.IssueNumber); err != nil {
			return err
		}
	}
	var have []Existing
	if inListing {
		have = s.listing.Comments[l.IssueNumber]
	} else {
		var err error
		if have, err = s.GH.Comments(ctx, l.IssueNumber); err != nil {
			return err
		}
	}
	s.debugf("issue #%d: %d comments on GitHub, %d to show, labels %v", l.IssueNumber, len(have), len(want.Comments), haveLabels)
	if err := s.checkBot(ctx, l.IssueNumber, have); err != nil {
		return err
	}
	before := s.Counts
	// From here on the issue's state is unknown until it is recorded again.
	if !s.DryRun {
		st.Forget(l.IssueNumber)
	}
	for _, op := range PlanComments(want.Comments, have, s.Bot) {
		if err := s.apply(ctx, l.IssueNumber, op); err != nil {
			return err
		}
	}
	if err := s.labels(ctx, l.IssueNumber, want.Labels, haveLabels, st); err != nil {
		return err
	}
	s.Counts.IssuesSynced++
	s.countRepair(l.IssueNumber, known && prev.Hash == hash, before)
	if !s.DryRun {
		st.Set(l.IssueNumber, IssueState{Hash: hash, Labels: OnLabels(want.Labels), Ingested: ingested, Shown: want.shown()})
	}
	return nil
}

// shown is the hash of the mirrors' bodies the issue should carry.
func (w IssueWant) shown() string {
	bodies := make([]string, len(w.Comments))
	for i, c := range w.Comments {
		bodies[i] = c.Body
	}
	return shownHash(bodies)
}

// ingestedEntries counts l's thread entries that came from commands on
// the issue (ingest marks each with its comment).
func ingestedEntries(l *ledger.Ledger) int {
	n := 0
	for i := range l.Clarifications {
		for _, e := range l.Clarifications[i].Thread {
			if hasKey(e.Extra, CommentKey) {
				n++
			}
		}
	}
	return n
}

// labels adds and removes the managed labels so the issue carries want,
// creating a label in the repository the first time it is used.
func (s *Syncer) labels(ctx context.Context, issue int, want map[string]bool, have []string, st *State) error {
	add, remove := PlanLabels(want, have)
	if len(add) > 0 {
		for _, name := range add {
			if err := s.ensureLabel(ctx, issue, name, st); err != nil {
				return err
			}
		}
		if err := s.spend(issue, "add labels", strings.Join(add, ", ")); err != nil {
			return err
		}
		if !s.DryRun {
			if err := s.GH.AddLabels(ctx, issue, add); err != nil {
				return err
			}
		}
		s.Counts.LabelsAdded += len(add)
	}
	for _, name := range remove {
		if err := s.spend(issue, "remove label", name); err != nil {
			return err
		}
		removed := s.DryRun
		if !s.DryRun {
			var err error
			if removed, err = s.GH.Unlabel(ctx, issue, name); err != nil {
				return err
			}
		}
		if removed { // a 404 (already gone) removed nothing
			s.Counts.LabelsRemoved++
		}
	}
	return nil
}

func (s *Syncer) apply(ctx context.Context, issue int, op Op) error {
	target := ""
	if op.CommentID != 0 {
		target = strconv.FormatInt(op.CommentID, 10)
	}
	if err := s.spend(issue, fmt.Sprintf("%s comment", op.Kind), target); err != nil {
		return err
	}
	var err error
	switch op.Kind {
	case Create:
		if !s.DryRun {
			_, err = s.GH.CreateComment(ctx, issue, op.Want.Body)
		}
	case Edit:
		if !s.DryRun {
			err = s.GH.EditComment(ctx, op.CommentID, op.Want.Body)
		}
	case Delete:
		if !s.DryRun {
			err = s.GH.DeleteComment(ctx, op.CommentID)
		}
	}
	if err != nil {
		return fmt.Errorf("%s comment on #%d: %w", op.Kind, issue, err)
	}
	// Counted once done: a refused write is not.
	switch op.Kind {
	case Create:
		s.Counts.CommentsCreated++
	case Edit:
		s.Counts.CommentsUpdated++
	case Delete:
		s.Counts.CommentsDeleted++
	}
	return nil
}
