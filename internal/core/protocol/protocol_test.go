package protocol

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

var t0 = time.Date(2026, 3, 1, 17, 4, 15, 123e6, time.UTC)

func defaultConfig(t testing.TB) *config.Set {
	t.Helper()
	dir := t.TempDir()
	for name, content := range config.DefaultFiles() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := config.Load(filepath.Join(dir, "agentx.toml"), filepath.Join(dir, "workflows"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// record is a pending record of issue 42 opened at t0 with a 30-minute SLA.
func record(status ledger.Status, round int) ledger.Record {
	r := ledger.Record{ID: "CLR-42-001", IssueNumber: 42, From: "engineer", To: "architect", Topic: "auth",
		Blocking: true, Status: status, Round: round, MaxRounds: 2,
		Created: "2026-03-01T17:04:15.123Z", StaleAfter: "2026-03-01T17:34:15.123Z"}
	for i := 1; i <= round; i++ {
		r.Thread = append(r.Thread, ledger.Entry{Round: i, From: "engineer", Type: ledger.Question, Body: "Middleware or controller?"})
		if i < round || status != ledger.Pending && status != ledger.Stale {
			r.Thread = append(r.Thread, ledger.Entry{Round: i, From: "architect", Type: ledger.Answer, Body: "Middleware."})
		}
	}
	r.SetExtra(slaKey, json.RawMessage("30"))
	return r
}

func TestApplyRequest(t *testing.T) {
	t.Parallel()
	l := &ledger.Ledger{IssueNumber: 42}
	env := Env{Now: t0, Config: defaultConfig(t)}
	eff, err := Apply(l, Op{Verb: Request, Issue: 42, From: "engineer", To: "architect", Topic: "auth", Text: "Middleware?", Blocking: true}, env)
	if err != nil {
		t.Fatal(err)
	}
	rec := l.Clarifications[0]
	if rec.ID != "CLR-42-001" || rec.Status != ledger.Pending || rec.StaleAfter != "2026-03-01T17:34:15.123Z" || rec.MaxRounds != 5 {
		t.Fatalf("record = %+v", rec)
	}
	want := &Effects{Record: rec, Events: []string{events.ClarificationRequested}, Blocked: "engineer", Route: true}
	if !reflect.DeepEqual(eff, want) {
		t.Fatalf("effects = %+v, want %+v", eff, want)
	}
}

// The errors users see are pinned: code and message.
func TestApplyRefusals(t *testing.T) {
	t.Parallel()
	cfg := defaultConfig(t)
	tests := []struct {
		name string
		rec  ledger.Record
		op   Op
		code errcode.Code
		msg  string
	}{
		{"scope", record(ledger.Pending, 1), Op{Verb: Request, Issue: 42, From: "engineer", To: "reviewer", Topic: "t", Text: "q", Blocking: true},
			errcode.ScopeViolation, "agent 'engineer' cannot clarify with 'reviewer' (workflow feature, step implement). Allowed: [architect, product-manager]"},
		{"unknown agent", record(ledger.Pending, 1), Op{Verb: Request, Issue: 42, From: "engineer", To: "wizard", Topic: "t", Text: "q"},
			errcode.InvalidInput, `unknown agent "wizard" (known: `},
		{"bad id", record(ledger.Pending, 1), Op{Verb: Answer, ID: "CLR-x", Text: "a"},
			errcode.InvalidInput, `clarification id "CLR-x" must look like CLR-<issue>-<NNN>`},
		{"not found", record(ledger.Pending, 1), Op{Verb: Answer, ID: "CLR-42-009", Text: "a"},
			errcode.NotFound, "Clarification CLR-42-009 not found in ledger"},
		{"answer twice", record(ledger.Answered, 1), Op{Verb: Answer, ID: "CLR-42-001", Text: "a"},
			errcode.InvalidInput, "cannot answer CLR-42-001: its status is answered (must be pending or stale)"},
		{"empty answer", record(ledger.Pending, 1), Op{Verb: Answer, ID: "CLR-42-001"},
			errcode.InvalidInput, "answer"},
		{"ask pending", record(ledger.Pending, 1), Op{Verb: Ask, ID: "CLR-42-001", Text: "q"},
			errcode.InvalidInput, "cannot ask a follow-up on CLR-42-001: its status is pending (must be answered)"},
		{"resolve twice", record(ledger.Resolved, 1), Op{Verb: Resolve, ID: "CLR-42-001"},
			errcode.InvalidInput, "cannot resolve CLR-42-001: its status is resolved (must be pending, answered, stale or escalated)"},
		{"abandon twice", record(ledger.Abandoned, 1), Op{Verb: Abandon, ID: "CLR-42-001"},
			errcode.InvalidInput, "cannot abandon CLR-42-001: its status is abandoned (must be pending, answered, stale or escalated)"},
		{"escalate escalated", record(ledger.Escalated, 1), Op{Verb: Escalate, ID: "CLR-42-001"},
			errcode.InvalidInput, "cannot escalate CLR-42-001: its status is escalated (must be pending, answered or stale)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{tt.rec}}
			before, _ := json.Marshal(l)
			eff, err := Apply(l, tt.op, Env{Now: t0, Config: cfg})
			if eff != nil || !errcode.Is(err, tt.code) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, %v; want %s containing %q", eff, err, tt.code, tt.msg)
			}
			if after, _ := json.Marshal(l); string(after) != string(before) {
				t.Fatalf("a refused operation changed the ledger:\n%s\n%s", before, after)
			}
		})
	}
}

func TestApplyTransitions(t *testing.T) {
	t.Parallel()
	later := t0.Add(10 * time.Minute)
	tests := []struct {
		name   string
		rec    ledger.Record
		op     Op
		status ledger.Status
		last   ledger.Entry
		want   Effects // Record is not compared
	}{
		{"answer", record(ledger.Pending, 1), Op{Verb: Answer, ID: "CLR-42-001", Text: "Middleware."}, ledger.Answered,
			ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Middleware."},
			Effects{Events: []string{events.ClarificationAnswered}, Release: true}},
		{"ask", record(ledger.Answered, 1), Op{Verb: Ask, ID: "CLR-42-001", By: "human:alice", Text: "Which one?"}, ledger.Pending,
			ledger.Entry{Round: 2, From: "alice", Type: ledger.Question, Body: "Which one?"},
			Effects{Events: []string{events.ClarificationFollowup}, Blocked: "engineer", Route: true}},
		{"resolve", record(ledger.Answered, 1), Op{Verb: Resolve, ID: "CLR-42-001"}, ledger.Resolved,
			ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "Resolved."},
			Effects{Events: []string{events.ClarificationResolved}, Release: true}},
		{"abandon", record(ledger.Escalated, 1), Op{Verb: Abandon, ID: "CLR-42-001", By: "cli", Text: "moot"}, ledger.Abandoned,
			ledger.Entry{Round: 1, From: "cli", Type: ledger.Resolution, Body: "Abandoned: moot"},
			Effects{Events: []string{events.ClarificationAbandoned}, Release: true}},
		{"mark stale", record(ledger.Pending, 1), Op{Verb: MarkStale, Issue: 42, ID: "CLR-42-001"}, ledger.Stale,
			ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Middleware or controller?"},
			Effects{Events: []string{events.ClarificationStale}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{tt.rec}}
			now := later
			if tt.op.Verb == MarkStale {
				now = t0.Add(31 * time.Minute)
			}
			eff, err := Apply(l, tt.op, Env{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			rec := l.Clarifications[0]
			if rec.Status != tt.status || !reflect.DeepEqual(eff.Record, rec) {
				t.Fatalf("status %s, effects record %+v", rec.Status, eff.Record)
			}
			last := rec.Thread[len(rec.Thread)-1]
			if h, ok := last.StoredHash(); tt.op.Verb != MarkStale && (!ok || h != last.ComputeHash()) {
				t.Fatalf("new entry's stored hash %q (ok=%v), want %s", h, ok, last.ComputeHash())
			}
			last.Timestamp, last.Extra = "", nil
			if !reflect.DeepEqual(last, tt.last) {
				t.Fatalf("last entry = %+v, want %+v", last, tt.last)
			}
			got := *eff
			got.Record = ledger.Record{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("effects = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAskPastMaxRoundsEscalates(t *testing.T) {
	t.Parallel()
	l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{record(ledger.Answered, 2)}}
	eff, err := Apply(l, Op{Verb: Ask, ID: "CLR-42-001", Text: "again?"}, Env{Now: t0, CLI: "agentx"})
	if !errcode.Is(err, errcode.MaxRoundsExceeded) || err.Error() != "CLR-42-001 reached max rounds (2). Auto-escalated" {
		t.Fatalf("err = %v", err)
	}
	if eff == nil || !eff.Escalated || !eff.Release || l.Clarifications[0].Status != ledger.Escalated {
		t.Fatalf("effects = %+v", eff)
	}
	body := l.Clarifications[0].LastOf(ledger.Escalation).Body
	if !strings.Contains(body, "reached the round limit (2 of 2 rounds used)") || !strings.Contains(body, "agentx clarify resolve CLR-42-001") {
		t.Fatalf("summary = %s", body)
	}
}

// The monitor's verbs re-check their condition on the record as it is.
func TestMonitorVerbsRecheck(t *testing.T) {
	t.Parallel()
	firstDue := t0.Add(31 * time.Minute)
	stale := record(ledger.Pending, 1)
	if _, err := Apply(&ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{stale}}, Op{Verb: MarkStale, Issue: 42, ID: stale.ID}, Env{Now: t0}); !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("mark stale within the SLA: %v", err)
	}
	l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{stale}}
	if _, err := Apply(l, Op{Verb: MarkStale, Issue: 42, ID: stale.ID}, Env{Now: firstDue}); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(l, Op{Verb: MarkStale, Issue: 42, ID: stale.ID}, Env{Now: firstDue.Add(31 * time.Minute)}); !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("second mark stale: %v", err)
	}
	eff, err := Apply(l, Op{Verb: EscalateStale, Issue: 42, ID: stale.ID, Reason: "two windows", Detail: "more"}, Env{Now: firstDue.Add(31 * time.Minute)})
	if err != nil || !eff.Escalated || MonitorReason(&l.Clarifications[0]) != ReasonStale {
		t.Fatalf("escalate stale: %v %+v", err, eff)
	}
	if body := l.Clarifications[0].LastOf(ledger.Escalation).Body; !strings.HasSuffix(body, "\nmore") || !strings.Contains(body, "could not be resolved: two windows.") {
		t.Fatalf("summary = %s", body)
	}
	for _, v := range []Verb{EscalateStale, EscalateStuck, EscalateDeadlock} {
		if _, err := Apply(l, Op{Verb: v, Issue: 42, ID: stale.ID}, Env{Now: firstDue}); !errors.Is(err, ErrNotApplicable) {
			t.Errorf("%s on an escalated record: %v", v, err)
		}
	}
	flipped := record(ledger.Answered, 1)
	fl := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{flipped}}
	if _, err := Apply(fl, Op{Verb: EscalateStuck, Issue: 42, ID: flipped.ID}, Env{Now: t0}); !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("stuck without a repeat: %v", err)
	}
	if _, err := Apply(fl, Op{Verb: EscalateStuck, Issue: 42, ID: flipped.ID, Flipped: true}, Env{Now: t0}); err != nil {
		t.Fatalf("stuck by a flip: %v", err)
	}
}

// The comment parser's reply quotes this syntax; it is a contract.
func TestSlashUsage(t *testing.T) {
	t.Parallel()
	want := "`/clarify answer|ask CLR-<issue>-<NNN> <text>` or `/clarify resolve|escalate|abandon CLR-<issue>-<NNN> [text]`"
	if got := SlashUsage(); got != want {
		t.Fatalf("SlashUsage() = %s", got)
	}
	for _, v := range Verbs {
		if got, ok := Lookup(string(v.Verb)); !ok || got.Verb != v.Verb {
			t.Errorf("Lookup(%s) = %v, %v", v.Verb, got, ok)
		}
	}
	if _, ok := Lookup("request"); ok {
		t.Error("request is not typed after an id")
	}
}
