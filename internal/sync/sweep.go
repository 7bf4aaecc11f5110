package sync

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// Sweep finds `/clarify` comments no ingest run answered and applies them
// late: a command whose run GitHub cancelled (a newer run for the same
// issue replaced it in the pending queue), or that an outage lost. It
// reads the comments updated since the last sweep in one listing, and
// takes each command without a verdict of ours (👍 or 😕 by the bot,
// given after the comment's last edit) through the ingester, whose
// per-comment record makes a second application impossible.
type Sweep struct {
	Ingester *Ingester
	Clock    clock.Clock
	// Grace leaves the comments updated within it to their own ingest run
	// (still queued or running); 0 means DefaultSweepGrace.
	Grace time.Duration
	// Lookback is how far back the first sweep looks; 0 means
	// DefaultSweepLookback.
	Lookback time.Duration
	Warn     func(format string, args ...any)

	// Found counts the commands without a verdict; the ingester's Counts
	// say what became of them. Listed counts the comments the window held
	// (none: the next sweep may start from the same point at no cost, so
	// the window's end need not be recorded).
	Found  int
	Listed int
	// Duplicated lists the issues where the listing showed a mirror the
	// bot posted twice (the sync reconciles them in this run).
	Duplicated []int
}

// The sweep's defaults.
const (
	DefaultSweepGrace    = 5 * time.Minute
	DefaultSweepLookback = 24 * time.Hour
)

// Run sweeps the comments updated in [since, now-Grace) and returns the
// end of that window, the next sweep's since (since itself when the
// sweep did not finish).
func (sw *Sweep) Run(ctx context.Context, since time.Time) (time.Time, error) {
	grace, lookback := sw.Grace, sw.Lookback
	if grace <= 0 {
		grace = DefaultSweepGrace
	}
	if lookback <= 0 {
		lookback = DefaultSweepLookback
	}
	until := sw.Clock.Now().Add(-grace).UTC().Truncate(time.Second)
	if since.IsZero() {
		since = until.Add(-lookback)
	}
	if !until.After(since) {
		return since, nil
	}
	in := sw.Ingester
	comments, err := in.GH.RepoComments(ctx, since)
	if err != nil {
		return since, err
	}
	if err := sw.dedupe(ctx, comments); err != nil {
		return since, err
	}
	for _, c := range comments {
		if !c.Updated.Before(until) || c.Updated.Before(since) {
			continue
		}
		sw.Listed++
		if strings.EqualFold(c.User, in.Bot) || c.UserType == "Bot" || isReply(c.Body) {
			continue
		}
		if _, found, _ := ParseCommand(c.Body); !found {
			continue
		}
		done, err := sw.answered(ctx, c)
		if err != nil {
			return since, err
		}
		if done {
			continue
		}
		sw.Found++
		ev := Event{Action: "created", Swept: true}
		if c.Updated.After(c.Created) {
			ev.Action = "edited"
		}
		ev.Issue.Number = c.Issue
		ev.Comment.ID, ev.Comment.Body, ev.Comment.AuthorAssociation = c.ID, c.Body, c.Association
		ev.Comment.UpdatedAt = c.Updated.UTC().Format(time.RFC3339)
		ev.Comment.User.Login, ev.Comment.User.Type = c.User, c.UserType
		if _, err := in.Run(ctx, ev); err != nil {
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrIssueRefused) {
				sw.warn("sweep: comment %d on issue #%d: %v", c.ID, c.Issue, err)
				continue
			}
			return since, err
		}
	}
	return until, nil
}

// dedupe removes what the bot posted twice among comments: a reply
// (the later ones are deleted, the oldest kept), and a mirror (its issue
// is handed to the sync's reconcile, which deletes the duplicate and
// checks the rest). A retried create that landed twice (an older
// release, or a check that could not read) is so removed by the first
// monitor whose sweep lists it.
func (sw *Sweep) dedupe(ctx context.Context, comments []RepoComment) error {
	in := sw.Ingester
	ours := make([]RepoComment, 0, len(comments))
	for _, c := range comments {
		if strings.EqualFold(c.User, in.Bot) {
			ours = append(ours, c)
		}
	}
	sort.SliceStable(ours, func(i, j int) bool { return ours[i].ID < ours[j].ID })
	seen := map[string]bool{}
	flagged := map[int]bool{}
	for _, c := range ours {
		key := strconv.Itoa(c.Issue) + "\x00" + c.Body
		if !seen[key] {
			seen[key] = true
			continue
		}
		switch {
		case isReply(c.Body):
			if in.DryRun {
				continue
			}
			if err := in.GH.DeleteComment(ctx, c.ID); err != nil {
				return err
			}
			in.Counts.CommentsDeleted++
		case !flagged[c.Issue]:
			if _, ok := ParseMarker(c.Body); ok {
				flagged[c.Issue] = true
				sw.Duplicated = append(sw.Duplicated, c.Issue)
			}
		}
	}
	return nil
}

// answered reports whether the bot gave c its verdict after c's last edit.
func (sw *Sweep) answered(ctx context.Context, c RepoComment) (bool, error) {
	rs, err := sw.Ingester.GH.Reactions(ctx, c.ID)
	if err != nil {
		return false, err
	}
	for _, r := range rs {
		if strings.EqualFold(r.User, sw.Ingester.Bot) && (r.Content == "+1" || r.Content == "confused") && !r.Created.Before(c.Updated) {
			return true, nil
		}
	}
	return false, nil
}

func (sw *Sweep) warn(format string, args ...any) {
	if sw.Warn != nil {
		sw.Warn(format, args...)
	}
}
