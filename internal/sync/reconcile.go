package sync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Drift repair. The sync state is a cache keyed by the ledger: a hand
// edit on GitHub (a mirror deleted or edited, a managed label removed, a
// duplicate a 5xx after a create left behind) changes no ledger, so the
// cache would hide it until the ledger changes. Each monitor run checks a
// rotating slice of issues against what GitHub shows, so every issue is
// checked within ceil(issues / Reconcile) runs without re-reading all.

// DefaultReconcile is the slice a monitor run checks unless configured.
const DefaultReconcile = 1

// prepare picks this run's reconcile slice and records it, and the sweep's
// end, in st. Neither alone makes the state be written: a run with
// nothing else to record costs no commit. The rotation still moves on,
// by the runs counted since the recorded position (RunNumber), so a quiet
// repository has every issue checked within ceil(issues / Reconcile)
// runs all the same.
func (s *Syncer) prepare(issues []int, st *State) {
	if !s.SweptUntil.IsZero() && !s.DryRun {
		if v := s.SweptUntil.UTC().Format(time.RFC3339); v > st.SweptUntil {
			st.SweptUntil = v
			st.markSettings()
		}
	}
	if s.Full || len(issues) == 0 {
		return
	}
	for _, n := range s.Recheck {
		if s.recon == nil {
			s.recon = map[int]bool{}
		}
		s.recon[n] = true
	}
	if s.Reconcile <= 0 {
		return
	}
	skip := 0
	if s.RunNumber > st.ReconcileRun && st.ReconcileRun > 0 {
		skip = (s.RunNumber - st.ReconcileRun - 1) * s.Reconcile
	}
	slice, next := rotate(issues, advance(issues, st.ReconcileAfter, skip), s.Reconcile)
	if s.recon == nil {
		s.recon = map[int]bool{}
	}
	for _, n := range slice {
		s.recon[n] = true
	}
	s.ReconcileSlice, s.ReconcileOf = slice, len(issues)
	if !s.DryRun {
		st.ReconcileAfter = next
		if s.RunNumber > 0 {
			st.ReconcileRun = s.RunNumber
		}
	}
}

// rotate returns up to n of issues, by number, following after, wrapping
// around, and the last one taken (the next run's after).
func rotate(issues []int, after, n int) ([]int, int) {
	issues = append([]int(nil), issues...)
	sort.Ints(issues) // the branch lists them by path: 1, 10, 11, 2
	if n >= len(issues) {
		return issues, issues[len(issues)-1]
	}
	start := sort.SearchInts(issues, after+1)
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, issues[(start+i)%len(issues)])
	}
	return out, out[len(out)-1]
}

// advance returns the issue skip places on from after in the rotation of
// issues (after itself when skip is 0).
func advance(issues []int, after, skip int) int {
	if skip <= 0 || len(issues) == 0 {
		return after
	}
	sorted := append([]int(nil), issues...)
	sort.Ints(sorted)
	start := sort.SearchInts(sorted, after+1)
	return sorted[(start+skip-1)%len(sorted)]
}

// inOrder is the reconcile's check of an issue whose ledger did not
// change: its managed labels and the bot's marked comments, as GitHub
// shows them, against what the sync state recorded (Labels, and Shown,
// the hash of the mirrors' bodies). In order, the issue is reconciled at
// two reads and its ledger is not read; anything else (drift, a state
// recorded before Shown, a failed read) sends it through the full
// reconcile, which reads the ledger and repairs.
func (s *Syncer) inOrder(ctx context.Context, issue int, is IssueState) bool {
	if is.Shown == "" {
		return false
	}
	labels, err := s.GH.IssueLabels(ctx, issue)
	if err != nil {
		return false
	}
	have, err := s.GH.Comments(ctx, issue)
	if err != nil {
		return false
	}
	var bodies []string
	for _, c := range have {
		if _, ok := ParseMarker(c.Body); ok && strings.EqualFold(c.Author, s.Bot) {
			bodies = append(bodies, c.Body)
		}
	}
	managed := map[string]bool{}
	for _, name := range labels {
		if name == s.Labels.Blocked || name == s.Labels.Escalated {
			managed[name] = true
		}
	}
	if shownHash(bodies) != is.Shown || !equalStrings(OnLabels(managed), is.Labels) {
		s.debugf("issue #%d: reconcile found GitHub differs from the sync state; reading its ledger", issue)
		return false
	}
	s.Counts.IssuesReconciled++
	s.debugf("issue #%d: reconciled, in order", issue)
	return true
}

// shownHash is a hash of the mirrors' bodies, in any order.
func shownHash(bodies []string) string {
	sorted := append([]string(nil), bodies...)
	sort.Strings(sorted)
	h := sha256.New()
	for _, b := range sorted {
		fmt.Fprintf(h, "%s\x00", b)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// countRepair counts a reconciled issue, and as repaired when the cache
// said it was in order (hashOK) but this run changed something on it.
func (s *Syncer) countRepair(issue int, hashOK bool, before Counts) {
	if !s.recon[issue] {
		return
	}
	s.Counts.IssuesReconciled++
	c := s.Counts
	if hashOK && c.CommentsCreated+c.CommentsUpdated+c.CommentsDeleted+c.LabelsAdded+c.LabelsRemoved >
		before.CommentsCreated+before.CommentsUpdated+before.CommentsDeleted+before.LabelsAdded+before.LabelsRemoved {
		s.Counts.IssuesRepaired++
	}
}

// ErrWrongBot is a bot-login that is not the login the mirrors were
// posted under: syncing on would post every comment again.
var ErrWrongBot = errors.New("wrong bot-login")

// checkBot stops a run whose bot-login is wrong before it posts anything:
// when none of the issue's marked comments is by Bot but some are by a
// bot account, or by the token's own login, that login is the one to set.
// Markers a person typed are ignored, as PlanComments ignores them.
func (s *Syncer) checkBot(ctx context.Context, issue int, have []Existing) error {
	others := map[string]bool{}
	app := ""
	for _, c := range have {
		if _, ok := ParseMarker(c.Body); !ok {
			continue
		}
		if strings.EqualFold(c.Author, s.Bot) {
			return nil // ours are here: bot-login is right
		}
		if app == "" && strings.HasSuffix(c.Author, "[bot]") { // an app's login, never a person's
			app = c.Author
		}
		others[strings.ToLower(c.Author)] = true
	}
	if app != "" {
		return wrongBot(issue, app, s.Bot)
	}
	if len(others) == 0 {
		return nil
	}
	if s.login == nil {
		login, err := s.GH.Login(ctx)
		if err != nil {
			return err
		}
		s.login = &login
	}
	if *s.login != "" && others[strings.ToLower(*s.login)] {
		return wrongBot(issue, *s.login, s.Bot)
	}
	return nil
}

func wrongBot(issue int, login, bot string) error {
	return fmt.Errorf("%w: the agentx comments on issue #%d were posted by %s, not by bot-login %q; set the action's bot-login input to %s (nothing was posted, so no comment is duplicated)",
		ErrWrongBot, issue, login, bot, login)
}
