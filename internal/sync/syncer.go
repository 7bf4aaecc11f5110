package sync

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	// DryRun reads and plans but writes nothing.
	DryRun bool
	// Full ignores the state's hashes and reconciles every issue.
	Full bool
	Warn func(format string, args ...any)

	// Reconcile is how many issues a run checks against what GitHub
	// shows despite the cache, in rotation (reconcile.go); 0: none.
	// SweptUntil, when set, is recorded in the sync state as where the
	// monitor's sweep of comments ended.
	Reconcile  int
	SweptUntil time.Time
	recon      map[int]bool
	login      *string // the token's login, once asked (reconcile.go)

	Counts Counts
}

// LabelSpecs are the colours and descriptions labels are created with.
func (s *Syncer) labelSpec(name string) LabelSpec {
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

// Run syncs every loaded ledger, ascending by issue. A corrupt ledger or an
// issue missing on GitHub is reported and skipped; any other failure stops
// the run (the next run converges from wherever this one stopped).
func (s *Syncer) Run(ctx context.Context, loaded []ledger.Loaded, st *State) error {
	for _, ld := range loaded {
		if ld.Err != nil {
			s.warn("skipping issue #%d: %v", ld.Issue, ld.Err)
			continue
		}
		err := s.Issue(ctx, ld.Ledger, st)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrIssueRefused) {
			s.warn("skipping issue #%d: %v", ld.Issue, err)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Issue reconciles one issue with its ledger. With a state entry whose
// hash matches, it makes no call. With a stale entry it reads the comments
// once (the labels are known from the state); with none it also reads the
// issue's labels.
func (s *Syncer) Issue(ctx context.Context, l *ledger.Ledger, st *State) error {
	want := Desired(l, s.Labels, s.Clean)
	hash := want.Hash(s.Bot)
	prev, known := st.Get(l.IssueNumber)
	full := s.Full || s.recon[l.IssueNumber]
	if known && prev.Hash == hash && !full {
		s.Counts.IssuesUnchanged++
		return nil
	}
	if !known && len(want.Comments) == 0 && len(OnLabels(want.Labels)) == 0 {
		return nil // nothing to show and nothing we ever put there
	}
	var haveLabels []string
	if known && !full {
		haveLabels = prev.Labels
	} else {
		var err error
		if haveLabels, err = s.GH.IssueLabels(ctx, l.IssueNumber); err != nil {
			return err
		}
	}
	have, err := s.GH.Comments(ctx, l.IssueNumber)
	if err != nil {
		return err
	}
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
		st.Set(l.IssueNumber, IssueState{Hash: hash, Labels: OnLabels(want.Labels)})
	}
	return nil
}

// labels adds and removes the managed labels so the issue carries want,
// creating a label in the repository the first time it is used.
func (s *Syncer) labels(ctx context.Context, issue int, want map[string]bool, have []string, st *State) error {
	add, remove := PlanLabels(want, have)
	if len(add) > 0 {
		for _, name := range add {
			if st.LabelEnsured(name) || s.DryRun {
				continue
			}
			if err := s.GH.EnsureLabel(ctx, s.labelSpec(name)); err != nil {
				return err
			}
			st.MarkLabel(name)
		}
		if !s.DryRun {
			if err := s.GH.AddLabels(ctx, issue, add); err != nil {
				return err
			}
		}
		s.Counts.LabelsAdded += len(add)
	}
	for _, name := range remove {
		if !s.DryRun {
			if err := s.GH.RemoveLabel(ctx, issue, name); err != nil {
				return err
			}
		}
		s.Counts.LabelsRemoved++
	}
	return nil
}

func (s *Syncer) apply(ctx context.Context, issue int, op Op) error {
	var err error
	switch op.Kind {
	case Create:
		s.Counts.CommentsCreated++
		if !s.DryRun {
			_, err = s.GH.CreateComment(ctx, issue, op.Want.Body)
		}
	case Edit:
		s.Counts.CommentsUpdated++
		if !s.DryRun {
			err = s.GH.EditComment(ctx, op.CommentID, op.Want.Body)
		}
	case Delete:
		s.Counts.CommentsDeleted++
		if !s.DryRun {
			err = s.GH.DeleteComment(ctx, op.CommentID)
		}
	}
	if err != nil {
		return fmt.Errorf("%s comment on #%d: %w", op.Kind, issue, err)
	}
	return nil
}
