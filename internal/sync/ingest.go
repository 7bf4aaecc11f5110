package sync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Event is the part of an issue_comment payload ingest reads.
type Event struct {
	Action string `json:"action"`
	Issue  struct {
		Number int `json:"number"`
	} `json:"issue"`
	Comment struct {
		ID                int64  `json:"id"`
		Body              string `json:"body"`
		AuthorAssociation string `json:"author_association"`
		User              struct {
			Login string `json:"login"`
			Type  string `json:"type"`
		} `json:"user"`

		// UpdatedAt is the comment's last edit time (its creation time
		// until edited), recorded with the entry it produced.
		UpdatedAt string `json:"updated_at"`
	} `json:"comment"`

	// Swept is an event the monitor's sweep made for a command it found
	// without a verdict: the verdict is given even when an earlier
	// delivery applied the command.
	Swept bool `json:"-"`
}

// ParseEvent decodes an issue_comment event payload.
func ParseEvent(data []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, fmt.Errorf("event payload: %w", err)
	}
	return ev, nil
}

// DefaultAssociations may run commands unless the workflow says otherwise.
var DefaultAssociations = []string{"OWNER", "MEMBER", "COLLABORATOR"}

// Ingester applies `/clarify` commands from issue comments through the
// protocol core (in memory, on the ledger read from the repository), as
// the person who typed them.
type Ingester struct {
	GH *Client
	// Config is the workspace configuration (from the checkout).
	Config *config.Set
	// State is the state branch the ledgers are read from and committed to.
	State *StateBranch
	// Open, when set, reads the branch for the first attempt (and may
	// seed it); nil reads it plainly.
	Open func(ctx context.Context) (*StateSnapshot, error)
	Bot  string
	// Associations and Users are who may run commands.
	Associations []string
	Users        []string
	Clock        clock.Clock
	Clean        Sanitizer
	DryRun       bool
	// Syncer, when set, mirrors the issue right after a command landed
	// (labels, an escalation the command caused): the ledger commit is made
	// with the workflow token, which starts no sync workflow of its own.
	Syncer *Syncer
	Warn   func(format string, args ...any)

	// Anyone not allowed by Associations or Users is asked about through
	// the collaborator-permission endpoint (private organisation members
	// show as CONTRIBUTOR or NONE) and allowed with MinPermission or
	// higher ("" means write). ReplyToOutsiders answers the others with a
	// reply; otherwise they get a 😕 reaction only, so nobody can make the
	// bot post at will.
	MinPermission    string
	ReplyToOutsiders bool
	// Rerun is a re-run of the event's job (GITHUB_RUN_ATTEMPT above 1):
	// the comment's reactions are read before 👀 is given, and an 👀 of
	// ours there is not posted again.
	Rerun bool

	Counts Counts
}

// Outcome is what ingest did with one comment.
type Outcome struct {
	// Skipped says why the comment was not a command for us ("" otherwise).
	Skipped string
	// Applied is a command written to the ledger by this run (or, dry,
	// that would be); AlreadyApplied one an earlier delivery wrote.
	Applied        bool
	AlreadyApplied bool
	// Rejected holds the reason given to the person; EarlierApplied
	// marks an edited comment whose earlier version the ledger holds.
	Rejected       string
	EarlierApplied bool
	// Attempts is how many contents writes it took (conflicts retried).
	Attempts int
}

// Run handles one issue_comment event.
func (in *Ingester) Run(ctx context.Context, ev Event) (Outcome, error) {
	if ev.Action != "created" && ev.Action != "edited" {
		return Outcome{Skipped: "action " + ev.Action}, nil
	}
	c := ev.Comment
	if strings.EqualFold(c.User.Login, in.Bot) || c.User.Type == "Bot" || isReply(c.Body) {
		return Outcome{Skipped: "written by a bot"}, nil
	}
	cmd, found, perr := ParseCommand(c.Body)
	if !found {
		return Outcome{Skipped: "no /clarify command"}, nil
	}
	// 👀 at once: the person sees the command was taken, before any read.
	seen, err := in.eyes(ctx, c.ID)
	if errors.Is(err, ErrNotFound) {
		return Outcome{Skipped: "the comment was deleted"}, nil // its author took it back
	}
	if err != nil {
		return Outcome{}, err
	}
	ok, why := in.permitted(ctx, c.User.Login, c.AuthorAssociation)
	if !ok {
		return in.outsider(ctx, ev, why)
	}
	if perr != nil {
		return in.reject(ctx, ev, perr.Error())
	}
	issue, _ := validate.ClarificationID(cmd.ID) // ParseCommand checked it
	if issue != ev.Issue.Number {
		return in.reject(ctx, ev, fmt.Sprintf("%s belongs to issue #%d, not this one", cmd.ID, issue))
	}
	out, final, landed, err := in.apply(ctx, ev, cmd, issue)
	if err != nil || out.Rejected != "" {
		if err != nil {
			return out, in.notSaved(ctx, ev, err) // notsaved.go
		}
		if out.EarlierApplied {
			return out, in.earlierStands(ctx, ev, cmd, out.Rejected)
		}
		o, rerr := in.reject(ctx, ev, out.Rejected)
		o.Attempts = out.Attempts
		return o, rerr
	}
	if out.Applied {
		in.Counts.CommandsApplied++
	}
	if !in.DryRun {
		// 👍 also for a command an earlier delivery applied: it is in the
		// ledger, and that run may have died before it reacted. Not when
		// this very comment already had our 👀 (the same event delivered
		// again): that run reacted, or the sweep finds the command without
		// a verdict and gives it then.
		redelivered := out.AlreadyApplied && seen && ev.Action == "created" && !ev.Swept
		if err := in.verdict(ctx, ev, "+1", redelivered); err != nil {
			return out, err
		}
		if in.Syncer != nil && final != nil {
			if err := in.mirror(ctx, issue, final, landed); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// eyes gives 👀 and reports whether the comment already had ours (the
// same event delivered again). A re-run of the job reads the reactions
// first and posts nothing when ours is there.
func (in *Ingester) eyes(ctx context.Context, id int64) (seen bool, err error) {
	if in.DryRun {
		return false, nil
	}
	if in.Rerun {
		rs, err := in.GH.Reactions(ctx, id)
		if err != nil {
			return false, err
		}
		for _, r := range rs {
			if strings.EqualFold(r.User, in.Bot) && r.Content == "eyes" {
				return true, nil
			}
		}
	}
	return in.GH.ReactOnce(ctx, id, "eyes")
}

// verdict gives the final reaction unless skip.
func (in *Ingester) verdict(ctx context.Context, ev Event, content string, skip bool) error {
	if skip {
		return nil
	}
	return in.finalReaction(ctx, ev, content)
}

// earlierStands answers an edited comment whose new text cannot be
// applied while its earlier version was (a typo fixed in an answer the
// record already holds): the earlier version stands, so the verdict stays
// 👍, and the reply says so rather than "nothing was written".
func (in *Ingester) earlierStands(ctx context.Context, ev Event, cmd Command, why string) error {
	if in.DryRun {
		return nil
	}
	body := fmt.Sprintf("**Edit not applied:** the earlier version of this comment was applied to %s and stands; this edit was not (%s). To add to the thread, post a new command. Commands: %s\n\n%scomment=%d -->",
		codeSpan(cmd.ID), codeSpan(visibleControls(in.clean(why))), protocol.SlashUsage(), replyMarker, ev.Comment.ID)
	if _, err := in.GH.CreateComment(ctx, ev.Issue.Number, body); err != nil {
		return err
	}
	return in.finalReaction(ctx, ev, "+1")
}

func (in *Ingester) clean(s string) string {
	if in.Clean == nil {
		return s
	}
	return in.Clean(s)
}

// visibleControls shows control characters (C0 but newline, DEL, C1) as
// \xNN escapes: a reply echoes a person's text, and never a raw NUL or BEL.
func visibleControls(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// finalReaction leaves content (👍 or 😕) as this run's verdict on the
// comment. For an edited comment the verdicts given to its earlier text
// are taken back first: the reaction then dates from after the edit,
// which is how the sweep knows the edit was handled, and a comment never
// shows 👍 and 😕 at once.
func (in *Ingester) finalReaction(ctx context.Context, ev Event, content string) error {
	if ev.Action == "edited" {
		rs, err := in.GH.Reactions(ctx, ev.Comment.ID)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if strings.EqualFold(r.User, in.Bot) && (r.Content == "+1" || r.Content == "confused") {
				if err := in.GH.DeleteReaction(ctx, ev.Comment.ID, r.ID); err != nil {
					return err
				}
			}
		}
	}
	return in.GH.React(ctx, ev.Comment.ID, content)
}

// permitted says whether login may run commands: an allowed association
// or login, else a repository role of at least MinPermission. It returns
// why not otherwise.
func (in *Ingester) permitted(ctx context.Context, login, assoc string) (bool, string) {
	if in.allowed(login, assoc) {
		return true, ""
	}
	least := in.minPermission()
	role, err := in.GH.Permission(ctx, login)
	if err != nil {
		// Refused or failed: never allowed on a guess.
		if in.Warn != nil {
			in.Warn("could not read the repository permission of %s, so the command was not applied: %v", login, err)
		}
		return false, fmt.Sprintf("not allowed: the repository permission of this comment's author could not be read (%v)", err)
	}
	if roleRank(role) >= roleRank(least) {
		return true, ""
	}
	return false, fmt.Sprintf("not allowed: only %s, or people with %s permission or higher, may run /clarify commands here (this comment's author is %s with %s permission)",
		strings.Join(in.associations(), ", "), least, strings.ToUpper(orNone(assoc)), role)
}

func (in *Ingester) minPermission() string {
	if roleRank(in.MinPermission) < 0 {
		return "write"
	}
	return strings.ToLower(in.MinPermission)
}

// outsider answers a command from someone not allowed: a 😕 reaction,
// and a reply only when ReplyToOutsiders is set.
func (in *Ingester) outsider(ctx context.Context, ev Event, reason string) (Outcome, error) {
	if in.ReplyToOutsiders {
		return in.reject(ctx, ev, reason)
	}
	in.Counts.CommandsRejected++
	out := Outcome{Rejected: reason}
	if in.DryRun {
		return out, nil
	}
	return out, in.finalReaction(ctx, ev, "confused")
}

// mirror shows the issue as the ledger l (as committed in tip) says,
// then checks that no other run committed since (one ref read): that run
// may have mirrored its newer ledger already, and ours must not be the
// last word on the issue's labels. When the branch moved on, the issue is
// mirrored again from its ledger as it is now.
func (in *Ingester) mirror(ctx context.Context, issue int, l *ledger.Ledger, tip string) error {
	for attempt := 1; ; attempt++ {
		if err := in.Syncer.Issue(ctx, l, NewState()); err != nil {
			return err
		}
		now, err := in.State.Tip(ctx)
		if err != nil || now == tip {
			return err
		}
		if attempt == commitAttempts {
			return fmt.Errorf("mirror issue #%d: its ledger kept changing after %d attempts", issue, attempt)
		}
		snap, err := in.State.Read(ctx)
		if err != nil {
			return err
		}
		p := BranchLedgerPath(issue)
		if _, ok := snap.Blobs[p]; !ok {
			return nil
		}
		if l, _, err = in.State.readLedger(ctx, snap, issue, p); err != nil {
			return err
		}
		tip = snap.Commit
	}
}

func orNone(s string) string {
	if s == "" {
		return "NONE"
	}
	return s
}

func (in *Ingester) associations() []string {
	if len(in.Associations) == 0 {
		return DefaultAssociations
	}
	return in.Associations
}

func (in *Ingester) allowed(login, assoc string) bool {
	for _, u := range in.Users {
		if strings.EqualFold(u, login) {
			return true
		}
	}
	for _, a := range in.associations() {
		if strings.EqualFold(a, assoc) {
			return true
		}
	}
	return false
}

// apply runs the command on the issue's ledger as it is on the state
// branch now and commits the result (StateBranch.Update): when another run
// committed first, the operation is re-applied to the fresh ledger. It
// returns the ledger as landed and the branch tip it is in.
func (in *Ingester) apply(ctx context.Context, ev Event, cmd Command, issue int) (Outcome, *ledger.Ledger, string, error) {
	var out Outcome
	var final *ledger.Ledger
	errRejected := errors.New("rejected")
	msg := fmt.Sprintf("agentx: /clarify %s %s by %s (issue comment %d) [skip ci]", cmd.Verb, cmd.ID, ev.Comment.User.Login, ev.Comment.ID)
	p := BranchLedgerPath(issue)
	var start *StateSnapshot
	if in.Open != nil {
		var err error
		if start, err = in.Open(ctx); err != nil {
			return out, nil, "", err
		}
	}
	attempts, snap, err := in.State.UpdateFrom(ctx, start, msg, func(_ context.Context, _ *StateSnapshot, read func(string) ([]byte, error)) (map[string][]byte, error) {
		current, err := read(p)
		if err != nil {
			return nil, err
		}
		if current == nil {
			out.Rejected = fmt.Sprintf("unknown id: issue #%d has no clarification ledger on %s, so %s does not exist", issue, in.State.Branch, cmd.ID)
			return nil, errRejected
		}
		next, l, rejected, err := in.applyLocal(current, cmd, issue, ev)
		switch {
		case err != nil:
			return nil, err
		case rejected != "":
			out.Rejected = rejected
			out.EarlierApplied = ev.Action == "edited" && commentApplied(current, issue, ev.Comment.ID)
			return nil, errRejected
		}
		final = l
		out.AlreadyApplied = next == nil
		if next == nil || in.DryRun { // applied by an earlier delivery, or a dry run
			return nil, errNoChange
		}
		return in.withAudit(read, map[string][]byte{p: next}, current, l, cmd, issue, ev.Comment.User.Login)
	})
	out.Attempts = attempts
	if errors.Is(err, errRejected) {
		return out, nil, "", nil
	}
	if err != nil {
		return out, nil, "", err
	}
	out.Applied = !out.AlreadyApplied
	return out, final, snap.Commit, nil
}

// applyLocal applies the command to data, the issue's ledger as read from
// the repository, in memory through the protocol core, with the command's
// author as `by`. It returns the new file content (nil when the comment
// was already applied) or a rejection. No responder runs: the action never
// runs agents, so a follow-up question waits in the ledger for the agent's
// next session like any other; agent statuses and the event log are local
// state the action does not keep.
func (in *Ingester) applyLocal(data []byte, cmd Command, issue int, ev Event) ([]byte, *ledger.Ledger, string, error) {
	l, err := ledger.Parse(in.State.Branch+":"+BranchLedgerPath(issue), data, issue)
	if err != nil {
		return nil, nil, fmt.Sprintf("the ledger of issue #%d is unreadable, so nothing was written", issue), nil
	}
	if appliedBefore(l, ev, cmd) {
		return nil, l, "", nil
	}
	login := ev.Comment.User.Login
	// A commenter whose permission was checked is a person: any party's
	// verb is theirs (protocol.Authorize).
	op := protocol.Op{Verb: cmd.Verb, ID: cmd.ID, By: login, Text: cmd.Text, Person: true}
	eff, opErr := protocol.Apply(l, op, protocol.Env{Now: in.Clock.Now(), Config: in.Config})
	if eff == nil {
		// Every refusal of the protocol is typed; anything else is ours.
		if errcode.CodeOf(opErr) == "" {
			return nil, nil, "", opErr
		}
		return nil, nil, opErr.Error(), nil
	}
	// Record the comment, its edit time and the command on the entry it
	// produced, so sync does not mirror it back, a re-delivered event is
	// not applied twice, and an edit is applied once.
	if rec := l.Find(cmd.ID); rec != nil && len(rec.Thread) > 0 {
		e := &rec.Thread[len(rec.Thread)-1]
		if e.From == login {
			e.Extra = append(e.Extra, jsonfile.Field{Key: CommentKey, Value: commentIDValue(ev.Comment.ID)})
			if t, ok := editTime(ev.Comment.UpdatedAt); ok {
				e.Extra = append(e.Extra, jsonfile.Field{Key: CommentUpdatedKey, Value: jsonString(t.Format(time.RFC3339))})
			}
			e.Extra = append(e.Extra, jsonfile.Field{Key: CommandKey, Value: jsonString(cmd.fingerprint())})
		}
	}
	next, err := jsonfile.Marshal(l)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encode ledger of issue #%d: %w", issue, err)
	}
	return next, l, "", nil
}

// reject answers the comment with why nothing was written, and a reaction.
func (in *Ingester) reject(ctx context.Context, ev Event, reason string) (Outcome, error) {
	in.Counts.CommandsRejected++
	out := Outcome{Rejected: reason}
	if in.DryRun {
		return out, nil
	}
	first, _, _ := strings.Cut(strings.TrimSpace(ev.Comment.Body), "\n")
	clean := in.Clean
	if clean == nil {
		clean = func(s string) string { return s }
	}
	// The reason may echo the comment, and the comment is anyone's text:
	// both are shown as code, so no link, image or mention in them renders
	// under the bot's name. Redacted first, then shortened.
	body := fmt.Sprintf("**Not applied:** %s\n\n> %s\n\nNothing was written to the ledger. Commands: %s\n\n%scomment=%d -->",
		codeSpan(visibleControls(clean(reason))), codeSpan(shorten.Ellipsis(visibleControls(clean(first)), 200)), protocol.SlashUsage(), replyMarker, ev.Comment.ID)
	if _, err := in.GH.CreateComment(ctx, ev.Issue.Number, body); err != nil {
		return out, err
	}
	return out, in.finalReaction(ctx, ev, "confused")
}
