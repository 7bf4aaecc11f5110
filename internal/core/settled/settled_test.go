package settled

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

const ghp = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

func resolved(thread ...ledger.Entry) ledger.Record {
	at := "2026-11-20T10:30:00.000Z"
	round := 1
	for _, e := range thread {
		round = max(round, e.Round)
	}
	return ledger.Record{ID: "CLR-42-003", IssueNumber: 42, From: "engineer", To: "architect", Topic: "token storage",
		Status: ledger.Resolved, Round: round, MaxRounds: 5, Created: "2026-11-20T09:00:00.000Z",
		StaleAfter: "2026-11-20T09:30:00.000Z", ResolvedAt: &at, Thread: thread}
}

func entry(round int, from string, typ ledger.EntryType, body string) ledger.Entry {
	return ledger.Entry{Round: round, From: from, Type: typ, Body: body, Timestamp: "2026-11-20T09:10:00.000Z"}
}

func TestObservation(t *testing.T) {
	long := strings.Repeat("We weigh cookies against local storage once more. ", 200)
	tests := []struct {
		name    string
		rec     ledger.Record
		want    []string // in the content
		summary string   // the one line recall shows
		absent  []string // in neither content, summary nor provenance
	}{{
		name: "one round, stated decision",
		rec: resolved(entry(1, "engineer", ledger.Question, "Cookies or local storage for the session token?"),
			entry(1, "architect", ledger.Answer, "HttpOnly cookies."),
			entry(1, "engineer", ledger.Resolution, "Session token goes in an HttpOnly cookie.")),
		want: []string{"CLR-42-003 settled (token storage): Session token goes in an HttpOnly cookie.",
			"engineer asked architect; 1 round(s); answered by architect; resolved by engineer at 2026-11-20T10:30:00.000Z.",
			"Question: Cookies or local storage for the session token?", "Last answer: HttpOnly cookies."},
		summary: "CLR-42-003 settled (token storage): Session token goes in an HttpOnly cookie.",
	}, {
		name: "bare Resolved. settles on the last answer",
		rec: resolved(entry(1, "engineer", ledger.Question, "Cookies?"), entry(1, "architect", ledger.Answer, "No, headers."),
			entry(2, "engineer", ledger.Question, "Which header?"), entry(2, "architect", ledger.Answer, "Authorization: Bearer."),
			entry(2, "engineer", ledger.Resolution, "Resolved.")),
		want:    []string{"settled (token storage): Authorization: Bearer.", "2 round(s)", "Question: Cookies?"},
		summary: "CLR-42-003 settled (token storage): Authorization: Bearer.",
		absent:  []string{"Last answer:"},
	}, {
		name: "long thread is condensed within the limits",
		rec: resolved(entry(1, "engineer", ledger.Question, long), entry(1, "architect", ledger.Answer, long),
			entry(2, "engineer", ledger.Question, long), entry(2, "architect", ledger.Answer, long),
			entry(3, "engineer", ledger.Question, long), entry(3, "architect", ledger.Answer, long),
			entry(3, "engineer", ledger.Resolution, long)),
		want: []string{"3 round(s)", "...\n"},
	}, {
		name: "secrets are redacted",
		rec: resolved(entry(1, "engineer", ledger.Question, "Use token "+ghp+" for CI?"),
			entry(1, "architect", ledger.Answer, "No: rotate "+ghp+" now."),
			entry(1, "engineer", ledger.Resolution, "CI reads its token from a secret, never "+ghp)),
		want:   []string{"[REDACTED:"},
		absent: []string{ghp},
	}, {
		name: "private regions are removed",
		rec: resolved(entry(1, "engineer", ledger.Question, "Which host? <private>db.internal:5432 pw hunter2</private>"),
			entry(1, "architect", ledger.Answer, "<private>the customer list</private>Use the replica."),
			entry(1, "engineer", ledger.Resolution, "Reads go to the replica.<private>ask Bob</private>")),
		want:    []string{"Reads go to the replica.", "Question: Which host?"},
		summary: "CLR-42-003 settled (token storage): Reads go to the replica.",
		absent:  []string{"hunter2", "db.internal", "customer list", "Bob", "private>"},
	}, {
		name: "an all-private decision still says what it is",
		rec: resolved(entry(1, "engineer", ledger.Question, "<private>x</private>"),
			entry(1, "engineer", ledger.Resolution, "<private>y</private>")),
		want:    []string{"CLR-42-003 settled (token storage): resolved without a stated decision", "answered by nobody"},
		absent:  []string{"Question:"},
		summary: "CLR-42-003 settled (token storage): resolved without a stated decision",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs, ok := Observation(&tc.rec)
			if !ok {
				t.Fatal("a resolved record gave no observation")
			}
			if obs.Category != memory.Decision || obs.Agent != "engineer" || obs.IssueNumber != 42 || obs.Timestamp != "2026-11-20T10:30:00.000Z" {
				t.Errorf("observation = %+v", obs)
			}
			if n := utf8.RuneCountInString(obs.Content); n > sanitize.MaxChars {
				t.Errorf("content is %d characters, over %d", n, sanitize.MaxChars)
			}
			if n := utf8.RuneCountInString(obs.Summary); n > memory.MaxSummary || strings.Contains(obs.Summary, "\n") {
				t.Errorf("summary is not one line within %d: %q", memory.MaxSummary, obs.Summary)
			}
			if !strings.HasPrefix(obs.Summary, "CLR-42-003 settled") {
				t.Errorf("summary does not lead with the CLR id: %q", obs.Summary)
			}
			if tc.summary != "" && obs.Summary != tc.summary {
				t.Errorf("summary = %q, want %q", obs.Summary, tc.summary)
			}
			for _, w := range tc.want {
				if !strings.Contains(obs.Content, w) {
					t.Errorf("content lacks %q:\n%s", w, obs.Content)
				}
			}
			var p Provenance
			if len(obs.Extra) != 1 || obs.Extra[0].Key != Field || json.Unmarshal(obs.Extra[0].Value, &p) != nil {
				t.Fatalf("provenance = %v", obs.Extra)
			}
			if p.ID != "CLR-42-003" || p.AskedBy != "engineer" || p.AskedOf != "architect" || p.Rounds != tc.rec.Round ||
				p.ResolvedAt != "2026-11-20T10:30:00.000Z" || p.ResolvedBy != "engineer" {
				t.Errorf("provenance = %+v", p)
			}
			for _, a := range tc.absent {
				if strings.Contains(obs.Content, a) || strings.Contains(obs.Summary, a) || strings.Contains(string(obs.Extra[0].Value), a) {
					t.Errorf("%q kept:\n%s\n%s", a, obs.Content, obs.Summary)
				}
			}
			// What the store writes is what this gives: sanitising again
			// changes nothing.
			if sanitize.Text(obs.Content) != obs.Content {
				t.Error("content is not stable under the store's sanitiser")
			}
		})
	}
}

func TestObservationOnlyResolved(t *testing.T) {
	for _, st := range []ledger.Status{ledger.Pending, ledger.Answered, ledger.Stale, ledger.Escalated, ledger.Abandoned} {
		rec := resolved(entry(1, "engineer", ledger.Question, "q"))
		rec.Status = st
		if _, ok := Observation(&rec); ok {
			t.Errorf("a %s record became a decision", st)
		}
	}
}

func TestIDIsDerived(t *testing.T) {
	a := resolved(entry(1, "engineer", ledger.Question, "q"))
	b := a
	later := "2026-12-01T00:00:00.000Z"
	b.ResolvedAt = &later // another clone resolved it later: same decision
	if ID(&a) != ID(&b) {
		t.Errorf("id depends on the resolution time: %s, %s", ID(&a), ID(&b))
	}
	if issue, ok := memory.IssueOfID(ID(&a)); !ok || issue != 42 {
		t.Errorf("id %s is not in the reference form", ID(&a))
	}
	c := a
	c.ID = "CLR-42-004"
	if ID(&a) == ID(&c) {
		t.Error("two records share a decision id")
	}
}

func newStore(t testing.TB) *memory.Store {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC))
	s := memory.New(t.TempDir(), lock.New(lock.Options{Clock: clk}), clk)
	s.NoSync = true
	return s
}

type fakeLedgers map[int]*ledger.Ledger

func (f fakeLedgers) Load(issue int) (*ledger.Ledger, error) {
	if l := f[issue]; l != nil {
		return l, nil
	}
	return &ledger.Ledger{IssueNumber: issue}, nil
}

func TestRememberOnce(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	rec := resolved(entry(1, "engineer", ledger.Question, "Cookies?"), entry(1, "architect", ledger.Answer, "Yes."),
		entry(1, "engineer", ledger.Resolution, "Cookies it is."))
	open := resolved(entry(1, "engineer", ledger.Question, "Still open?"))
	open.ID, open.Status, open.ResolvedAt = "CLR-42-004", ledger.Pending, nil
	led := fakeLedgers{42: {IssueNumber: 42, Clarifications: []ledger.Record{rec, open}}}

	got, err := Remember(ctx, s, rec)
	if err != nil || len(got) != 1 || got[0].ID != ID(&rec) {
		t.Fatalf("Remember = %v, %v", got, err)
	}
	// The resolve's side effect again (a re-run), then the catch-up: nothing new.
	if got, err := Remember(ctx, s, rec); err != nil || len(got) != 0 {
		t.Fatalf("second Remember = %v, %v", got, err)
	}
	if got, err := CatchUp(ctx, led, s, 42); err != nil || len(got) != 0 {
		t.Fatalf("CatchUp = %v, %v", got, err)
	}
	all, err := s.GetByIssue(ctx, 42)
	if err != nil || len(all) != 1 {
		t.Fatalf("issue 42 holds %d observations (%v), want 1", len(all), err)
	}
	if h, ok := all[0].StoredHash(); !ok || h == "" {
		t.Error("the decision was stored without its content hash")
	}

	// A deliberate removal is not undone by the next catch-up.
	if ok, err := s.Remove(ctx, ID(&rec)); err != nil || !ok {
		t.Fatalf("Remove = %v, %v", ok, err)
	}
	if got, err := CatchUp(ctx, led, s, 42); err != nil || len(got) != 0 {
		t.Fatalf("CatchUp after a removal = %v, %v", got, err)
	}
}

func TestCatchUpStoresWhatIsMissing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := resolved(entry(1, "engineer", ledger.Question, "A?"), entry(1, "engineer", ledger.Resolution, "A."))
	b := a
	b.ID, b.Topic = "CLR-42-005", "retries"
	led := fakeLedgers{42: {IssueNumber: 42, Clarifications: []ledger.Record{a, b}}}
	if _, err := Remember(ctx, s, a); err != nil {
		t.Fatal(err)
	}
	got, err := CatchUp(ctx, led, s, 42)
	if err != nil || len(got) != 1 || got[0].ID != ID(&b) {
		t.Fatalf("CatchUp = %v, %v; want only %s", got, err, ID(&b))
	}
	if got, err := CatchUp(ctx, fakeLedgers{}, s, 7); err != nil || got != nil {
		t.Fatalf("CatchUp of an issue with no ledger = %v, %v", got, err)
	}
}

// TestRememberConcurrently: the resolve's side effect and a hook's
// catch-up (or two clones' hooks on one workspace) at once keep one
// observation: the store checks the derived id again under its lock.
func TestRememberConcurrently(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	rec := resolved(entry(1, "engineer", ledger.Question, "Cookies?"), entry(1, "engineer", ledger.Resolution, "Cookies."))
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := Remember(ctx, s, rec)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.GetByIssue(ctx, 42)
	if err != nil || len(all) != 1 {
		t.Fatalf("issue 42 holds %d observations (%v), want 1", len(all), err)
	}
}
