package sync

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotSaved is a valid command that could not be saved: whatever the
// cause (even a rate limit, which ends a sync cleanly), the run failed
// the person, and says so.
var ErrNotSaved = errors.New("command not saved")

// notSaved tells the person their command was valid but could not be
// saved, and why, with a 😕 reaction, and returns err for the run's
// annotation. It answers even when the run is being cancelled (the
// runner's SIGTERM): a person must never be left believing a command
// landed.
func (in *Ingester) notSaved(ctx context.Context, ev Event, err error) error {
	err = fmt.Errorf("%w: %w", ErrNotSaved, err)
	if in.DryRun {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	body := fmt.Sprintf("**Not saved:** your command could not be saved: %s\n\n%scomment=%d -->",
		notSavedWhy(err, in.State.Branch), replyMarker, ev.Comment.ID)
	if _, cerr := in.GH.CreateComment(ctx, ev.Issue.Number, body); cerr != nil {
		return errors.Join(err, cerr)
	}
	return errors.Join(err, in.finalReaction(ctx, ev, "confused"))
}

// notSavedWhy is the cause as the person can act on it. No error text
// goes into the comment: the run's log has it, and the comment is public.
func notSavedWhy(err error, branch string) string {
	switch {
	case errors.Is(err, ErrProtected):
		return fmt.Sprintf("the state branch `%s` refuses this workflow's writes "+
			"(a protected branch, or a token without `contents: write`). A maintainer must fix the workflow; then post the command again.", branch)
	case errors.Is(err, ErrRateLimited):
		return "GitHub's rate limit stopped this run before it could save it. Post the command again in a while."
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "the workflow run was cancelled before it could save it. Post the command again."
	}
	return "an error stopped the workflow run before it could save it (the run's log says which). Post the command again, or ask a maintainer to re-run the workflow."
}
