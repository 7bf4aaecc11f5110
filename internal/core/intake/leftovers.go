package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/spool"
)

// Leftovers finishes what earlier hooks spooled but did not process,
// within LeftoverLimit and LeftoverTime.
func (x *Intake) Leftovers(ctx context.Context) []*Report {
	pending, err := x.Spool.Pending()
	if err != nil {
		x.warn("agentx memory: spool: %v", err)
		return nil
	}
	var out []*Report
	start := time.Now() // real time: this bounds real work, whatever the clock says
	for i, p := range pending {
		if i == LeftoverLimit || time.Since(start) > LeftoverTime {
			break
		}
		if rep := x.leftover(ctx, p.Key); rep != nil {
			out = append(out, rep)
		}
	}
	return out
}

// leftover finishes one spooled capture; nil when it is not finished now.
func (x *Intake) leftover(ctx context.Context, key string) *Report {
	cl, err := x.Spool.Claim(ctx, key)
	var qe *spool.QuarantinedError
	if errors.As(err, &qe) {
		x.warn("agentx memory: %v", qe)
		return nil
	}
	if err != nil {
		return nil // done meanwhile, or another process works on it
	}
	var e Entry
	if err := json.Unmarshal(cl.Payload(), &e); err != nil || e.Agent == "" || e.Issue <= 0 {
		// Unreadable: nothing could ever process it; keep it out of the
		// way without losing it.
		x.giveUp(cl, fmt.Sprintf("spooled capture %s is unreadable", key))
		return nil
	}
	source := "session summary"
	var payload *capture.Payload
	if len(e.Payload) > 0 {
		source = "hook payload"
		if p, err := capture.ParsePayload(e.Payload); err == nil {
			source = string(p.Host) + " hook payload"
			payload = &p
		}
	}
	// A leftover has half of what remains of the hook's deadline: the
	// session's recall comes after it.
	lctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		lctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		defer cancel()
	}
	rep, err := x.process(lctx, e, payload, source)
	if err != nil {
		what := fmt.Sprintf("spooled capture for issue #%d: %v", e.Issue, err)
		if lctx.Err() != nil && cl.Attempt() > 1 {
			// Cut off by this hook's deadline after an earlier process
			// died on it (the host's kill): it cannot finish within a
			// hook. Moved aside now, not after two more starts each
			// spent on it.
			x.giveUpNow(cl, what)
			return nil
		}
		x.giveUp(cl, what)
		return nil
	}
	if err := cl.Done(); err != nil {
		x.warn("agentx memory: spool: %v", err)
	}
	rep.Leftover = true
	return rep
}

// giveUp records a failed attempt at a spooled capture; after
// spool.MaxAttempts it is moved aside and the warning says where.
func (x *Intake) giveUp(cl *spool.Claim, what string) {
	moved, err := cl.Fail()
	switch {
	case err != nil:
		x.warn("agentx memory: %s (kept for the next hook start; %v)", what, err)
	case moved != "":
		x.warn("agentx memory: %s; given up after %d attempts and moved to %s", what, spool.MaxAttempts, moved)
	default:
		x.warn("agentx memory: %s (kept for the next hook start)", what)
	}
}

// giveUpNow moves a claimed spooled capture aside at once, saying where.
func (x *Intake) giveUpNow(cl *spool.Claim, what string) {
	moved, err := cl.GiveUp()
	if err != nil {
		x.warn("agentx memory: %s (kept for the next hook start; %v)", what, err)
		return
	}
	x.warn("agentx memory: %s; it was cut off in %d hooks in a row and was moved to %s", what, cl.Attempt(), moved)
}
