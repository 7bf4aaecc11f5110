package sync

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// CommentKey is the entry key ingest sets on a thread entry that came from
// an issue comment (its value is the comment id): that comment already shows
// the entry, so sync does not mirror it back.
const CommentKey = "githubCommentId"

// IssueWant is everything one issue should show.
type IssueWant struct {
	Issue    int
	Comments []Want
	// Tampered names the thread entries left unmirrored because their
	// text changed since they were written ("CLR-42-001#2"): what the
	// issue shows must be what agents and people wrote.
	Tampered []string
	// Labels maps each label this tool manages to whether it should be on.
	Labels map[string]bool
}

// Labels names the two labels sync manages.
type Labels struct {
	Blocked   string
	Escalated string
}

// Desired computes what issue l.IssueNumber should show. The blocked label
// is on while a blocking record waits for an answer (pending or stale), the
// escalated label while a record is escalated and not yet settled. Both come
// from the ledger alone, never from GitHub's timestamps.
func Desired(l *ledger.Ledger, labels Labels, clean Sanitizer) IssueWant {
	return DesiredFor(l, labels, clean, nil)
}

// DesiredFor is Desired with the questions to a person mentioning them
// (mention may be nil: nobody is mentioned).
func DesiredFor(l *ledger.Ledger, labels Labels, clean Sanitizer, mention Mentions) IssueWant {
	w := IssueWant{Issue: l.IssueNumber, Labels: map[string]bool{labels.Blocked: false, labels.Escalated: false}}
	for i := range l.Clarifications {
		rec := &l.Clarifications[i]
		if rec.Blocking && rec.Status.Waiting() {
			w.Labels[labels.Blocked] = true
		}
		if rec.Status == ledger.Escalated {
			w.Labels[labels.Escalated] = true
		}
		for seq := range rec.Thread {
			if hasKey(rec.Thread[seq].Extra, CommentKey) {
				continue
			}
			if rec.Thread[seq].Integrity() == contenthash.Tampered {
				w.Tampered = append(w.Tampered, fmt.Sprintf("%s#%d", rec.ID, seq))
				continue
			}
			w.Comments = append(w.Comments, RenderFor(rec, seq, clean, mention))
		}
	}
	return w
}

func hasKey(extra []jsonfile.Field, key string) bool {
	for _, f := range extra {
		if f.Key == key {
			return true
		}
	}
	return false
}

// Hash is a content hash of everything the issue should show; the sync
// state stores it so an unchanged issue costs no API call at all.
func (w IssueWant) Hash(bot string) string {
	h := sha256.New()
	fmt.Fprintf(h, "v1\x00%s\x00", bot)
	for _, c := range w.Comments {
		fmt.Fprintf(h, "%s\x00", c.Body)
	}
	names := make([]string, 0, len(w.Labels))
	for n := range w.Labels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s=%t\x00", n, w.Labels[n])
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Existing is a comment already on the issue.
type Existing struct {
	ID      int64
	Author  string
	Body    string
	Created time.Time
}

// Op is one planned comment change.
type Op struct {
	Kind      OpKind
	CommentID int64 // edit, delete
	Want      *Want // create, edit
}

// OpKind is what an Op does.
type OpKind int

const (
	Create OpKind = iota
	Edit
	Delete
)

func (k OpKind) String() string { return [...]string{"create", "edit", "delete"}[k] }

// PlanComments decides the comment changes that make have show want. Only
// comments written by bot count as ours: a marker typed by anyone else is
// ignored. Where two of ours carry one key (two overlapping runs), the
// oldest stays and the rest are deleted; a kept comment whose body differs
// is edited; a missing one is created, in thread order.
func PlanComments(want []Want, have []Existing, bot string) []Op {
	ours := map[Key][]Existing{}
	for _, c := range have {
		if !strings.EqualFold(c.Author, bot) {
			continue
		}
		m, ok := ParseMarker(c.Body)
		if !ok {
			continue
		}
		ours[m.Key] = append(ours[m.Key], c)
	}
	var ops, deletes []Op
	for i := range want {
		w := &want[i]
		cs := ours[w.Key]
		if len(cs) == 0 {
			ops = append(ops, Op{Kind: Create, Want: w})
			continue
		}
		sort.Slice(cs, func(a, b int) bool {
			if !cs[a].Created.Equal(cs[b].Created) {
				return cs[a].Created.Before(cs[b].Created)
			}
			return cs[a].ID < cs[b].ID
		})
		if cs[0].Body != w.Body {
			ops = append(ops, Op{Kind: Edit, CommentID: cs[0].ID, Want: w})
		}
		for _, dup := range cs[1:] {
			deletes = append(deletes, Op{Kind: Delete, CommentID: dup.ID})
		}
	}
	return append(ops, deletes...)
}

// PlanLabels returns the managed labels to add and to remove, given the
// labels the issue has now.
func PlanLabels(want map[string]bool, have []string) (add, remove []string) {
	on := map[string]bool{}
	for _, h := range have {
		on[strings.ToLower(h)] = true
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		switch has := on[strings.ToLower(n)]; {
		case want[n] && !has:
			add = append(add, n)
		case !want[n] && has:
			remove = append(remove, n)
		}
	}
	return add, remove
}

// OnLabels lists the labels want switches on, sorted.
func OnLabels(want map[string]bool) []string {
	var out []string
	for n, on := range want {
		if on {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// commentIDValue renders a comment id as the entry key's value.
func commentIDValue(id int64) json.RawMessage { return json.RawMessage(fmt.Sprint(id)) }
