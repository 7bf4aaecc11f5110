package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Request is one mid-session hook asking for what arrived.
type Request struct {
	// Agent is the session's agent: the requester whose news it is.
	Agent string
	// Session is the host's session id (the stamp's name and the receipt's).
	Session string
	// Host names the host in the receipt (claude, codex, copilot).
	Host string
	// BlockingOnly delivers only news of the agent's blocking questions
	// (a Stop hook: the answer the agent must not stop without). Other
	// news stays for the next prompt or tool hook.
	BlockingOnly bool
}

// Item is one entry delivered.
type Item struct {
	ID       string           `json:"id"`
	Issue    int              `json:"issue"`
	Topic    string           `json:"topic"`
	To       string           `json:"to"`
	Blocking bool             `json:"blocking"`
	Status   ledger.Status    `json:"status"`
	Question string           `json:"question,omitempty"`
	Type     ledger.EntryType `json:"type"`
	By       string           `json:"by"`
	Body     string           `json:"body"`
	At       string           `json:"at"`
}

// Outcome is what one check found and delivered.
type Outcome struct {
	// Checked is false when the quick check found nothing new (no ledger
	// was read).
	Checked bool `json:"checked"`
	// Items were delivered now, their receipts written.
	Items []Item `json:"items"`
	// Left counts news held back by BlockingOnly.
	Left int `json:"left"`
}

// Doc is `hook deliver --json`: whether the ledgers were read, what was
// delivered, what a stop held back, and the text the host got.
type Doc struct {
	jsonfile.Versioned
	Checked bool   `json:"checked"`
	Items   []Item `json:"items"`
	Left    int    `json:"left"`
	Text    string `json:"text,omitempty"`
}

// Deliverer delivers from one workspace's ledgers.
type Deliverer struct {
	WS      workspace.Workspace
	Ledgers *ledger.Store
	Clock   clock.Clock
}

// errNothing aborts a ledger update that found nothing left to deliver
// (another session took it first): nothing is written.
var errNothing = errors.New("nothing to deliver")

// Deliver is a mid-session hook's check: the quick comparison of stamps,
// then, only when the inbox generation moved, the ledgers read and what
// is news for the agent since the session began delivered, each receipt
// written under its ledger's lock in the step that takes the entry.
func (d *Deliverer) Deliver(ctx context.Context, req Request) (*Outcome, error) {
	if !validSession(req.Session) {
		return nil, ErrSession
	}
	gen, seen, hasSeen, news := News(d.WS, req.Session)
	out := &Outcome{}
	if !news {
		return out, nil
	}
	out.Checked = true
	now := d.Clock.Now()
	if !hasSeen {
		// No start hook marked the session: what is there already
		// predates it here; from now on is news.
		seen = Seen{Generation: gen, Since: clock.Format(now), Agent: req.Agent}
	}
	since := seen.SinceTime()
	loaded, err := d.Ledgers.LoadAll()
	if err != nil {
		return out, err
	}
	receipt := ledger.Receipt{At: clock.Format(now), Session: req.Session, Host: req.Host, Agent: req.Agent}
	var errs []error
	for _, l := range loaded {
		if l.Err != nil || l.Ledger == nil {
			continue
		}
		if n, left := pick(l.Ledger, req, since); n == 0 {
			out.Left += left
			continue
		}
		var items []Item
		left := 0
		_, err := d.Ledgers.Update(ctx, l.Issue, func(fresh *ledger.Ledger) error {
			var n int
			items = nil
			n, left = pick(fresh, req, since)
			if n == 0 {
				return errNothing
			}
			items = take(fresh, req, since, receipt)
			return nil
		})
		if err != nil && !errors.Is(err, errNothing) {
			errs = append(errs, fmt.Errorf("deliver from issue %d: %w", l.Issue, err))
			continue
		}
		out.Left += left
		out.Items = append(out.Items, items...)
	}
	if len(errs) == 0 && out.Left == 0 {
		seen.Generation = gen
		if seen.Agent == "" {
			seen.Agent = req.Agent
		}
		if err := WriteSeen(d.WS, req.Session, seen); err != nil {
			errs = append(errs, err)
		}
	}
	if len(out.Items) > 0 {
		Prune(d.WS, now)
	}
	return out, errors.Join(errs...)
}

// due reports whether entry i of rec is news for req since the session
// began: news for the requester, no receipt, written at or after since.
func due(rec *ledger.Record, i int, since time.Time) bool {
	e := &rec.Thread[i]
	if !rec.ForRequester(e) {
		return false
	}
	if _, ok := e.Receipt(); ok {
		return false
	}
	at, err := clock.Parse(e.Timestamp)
	return err == nil && !at.Before(since)
}

// pick counts the entries of l due for req, and those BlockingOnly holds
// back.
func pick(l *ledger.Ledger, req Request, since time.Time) (n, left int) {
	for ri := range l.Clarifications {
		rec := &l.Clarifications[ri]
		if rec.From != req.Agent {
			continue
		}
		for i := range rec.Thread {
			if !due(rec, i, since) {
				continue
			}
			if req.BlockingOnly && !rec.Blocking {
				left++
			} else {
				n++
			}
		}
	}
	return n, left
}

// take writes the receipt on every entry of l due for req and returns
// them as items.
func take(l *ledger.Ledger, req Request, since time.Time, receipt ledger.Receipt) []Item {
	var items []Item
	for ri := range l.Clarifications {
		rec := &l.Clarifications[ri]
		if rec.From != req.Agent || (req.BlockingOnly && !rec.Blocking) {
			continue
		}
		for i := range rec.Thread {
			if !due(rec, i, since) {
				continue
			}
			e := &rec.Thread[i]
			e.SetReceipt(receipt)
			it := Item{ID: rec.ID, Issue: rec.IssueNumber, Topic: rec.Topic, To: rec.To, Blocking: rec.Blocking,
				Status: rec.Status, Type: e.Type, By: e.From, Body: e.Body, At: e.Timestamp}
			if q := questionOf(rec, e.Round); q != "" {
				it.Question = q
			}
			items = append(items, it)
		}
	}
	return items
}

// questionOf is the round's question, the one an answer answers.
func questionOf(rec *ledger.Record, round int) string {
	for i := len(rec.Thread) - 1; i >= 0; i-- {
		if e := &rec.Thread[i]; e.Type == ledger.Question && e.Round <= round {
			return e.Body
		}
	}
	return ""
}

// MarkShown writes the receipts of what a session's start showed the
// agent: the latest answer of each of its open requests (hook start's
// "Your open requests"), when no receipt is there yet. Without it an
// answer read at the start would stay "undelivered" and the monitor
// would flag it. Only ledgers with such an answer are written.
func (d *Deliverer) MarkShown(ctx context.Context, req Request, shown []ledger.Record) error {
	byIssue := map[int][]string{}
	for i := range shown {
		rec := &shown[i]
		if rec.From != req.Agent {
			continue
		}
		if unreceipted(rec) != nil {
			byIssue[rec.IssueNumber] = append(byIssue[rec.IssueNumber], rec.ID)
		}
	}
	if len(byIssue) == 0 || !validSession(req.Session) {
		return nil
	}
	receipt := ledger.Receipt{At: clock.Format(d.Clock.Now()), Session: req.Session, Host: req.Host, Agent: req.Agent}
	var errs []error
	for issue, ids := range byIssue {
		_, err := d.Ledgers.Update(ctx, issue, func(l *ledger.Ledger) error {
			n := 0
			for _, id := range ids {
				if rec := l.Find(id); rec != nil {
					if e := unreceipted(rec); e != nil {
						e.SetReceipt(receipt)
						n++
					}
				}
			}
			if n == 0 {
				return errNothing
			}
			return nil
		})
		if err != nil && !errors.Is(err, errNothing) {
			errs = append(errs, fmt.Errorf("receipts on issue %d: %w", issue, err))
		}
	}
	return errors.Join(errs...)
}

// unreceipted is the record's latest answer when it is news for the
// requester and has no receipt yet, else nil.
func unreceipted(rec *ledger.Record) *ledger.Entry {
	e := rec.LastOf(ledger.Answer)
	if e == nil || !rec.ForRequester(e) {
		return nil
	}
	if _, ok := e.Receipt(); ok {
		return nil
	}
	return e
}
