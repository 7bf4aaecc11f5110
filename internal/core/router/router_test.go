package router

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/responder"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

type fakeResponder struct {
	agents map[string]func(responder.Request) (string, error)
	calls  []responder.Request
}

func (f *fakeResponder) Has(agent string) bool { _, ok := f.agents[agent]; return ok }

func (f *fakeResponder) Respond(_ context.Context, agent string, req responder.Request) (string, error) {
	f.calls = append(f.calls, req)
	return f.agents[agent](req)
}

func newRouter(t testing.TB) (*Router, *clock.Fake, *fakeResponder) {
	t.Helper()
	dir := t.TempDir()
	ws := workspace.Workspace{Root: dir}
	for name, content := range config.DefaultFiles() {
		p := filepath.Join(ws.AgentxDir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		t.Fatal(err)
	}
	fc := clock.NewFake(time.Date(2026, 3, 1, 17, 4, 15, 123e6, time.UTC))
	locks := lock.New(lock.Options{Clock: fc})
	fr := &fakeResponder{agents: map[string]func(responder.Request) (string, error){}}
	return New(Options{WS: ws, Locks: locks, NoSync: true, Config: set, Clock: fc,
		Events: &events.Log{Path: ws.EventsFile(), Locks: locks, Clock: fc}, Responder: fr}), fc, fr
}

func request(t testing.TB, r *Router, in RequestInput) *Result {
	t.Helper()
	if in.Issue == 0 {
		in.Issue = 42
	}
	if in.Topic == "" {
		in.Topic = "authentication flow"
	}
	if in.Question == "" {
		in.Question = "Middleware or controller?"
	}
	res, err := r.Request(context.Background(), in)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	return res
}

func TestRequestWritesReferenceRecord(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	res := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true})
	rec := res.Record
	if rec.ID != "CLR-42-001" || rec.Status != ledger.Pending || rec.Round != 1 || rec.MaxRounds != 5 || !rec.Blocking {
		t.Fatalf("record = %+v", rec)
	}
	if rec.Created != "2026-03-01T17:04:15.123Z" || rec.StaleAfter != "2026-03-01T17:34:15.123Z" || rec.ResolvedAt != nil {
		t.Fatalf("timestamps = %s %s", rec.Created, rec.StaleAfter)
	}
	if len(rec.Thread) != 1 || rec.Thread[0].Type != ledger.Question || rec.Thread[0].Round != 1 {
		t.Fatalf("thread = %+v", rec.Thread)
	}
	st, _ := agentstatus.Load(r.WS.AgentStatusFile())
	eng := st.Get("engineer")
	if eng == nil || eng.Status != agentstatus.BlockedClarification || *eng.WaitingOn != "architect" || *eng.ClarificationID != "CLR-42-001" {
		t.Fatalf("engineer status = %+v", eng)
	}
	res2 := request(t, r, RequestInput{From: "engineer", To: "product-manager", Blocking: false})
	if res2.Record.ID != "CLR-42-002" || res2.Record.MaxRounds != 5 {
		// The implement step sets clarify_max_rounds = 5 explicitly.
		t.Fatalf("second record = %s max %d", res2.Record.ID, res2.Record.MaxRounds)
	}
}

func TestRequestRejections(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	tests := []struct {
		name string
		in   RequestInput
		code errcode.Code
		msg  string
	}{
		{"not in can_clarify", RequestInput{From: "engineer", To: "reviewer", Blocking: true}, errcode.ScopeViolation, "Allowed: [architect, product-manager]"},
		{"blocking not allowed", RequestInput{From: "reviewer", To: "engineer", Blocking: true}, errcode.ScopeViolation, "does not allow blocking"},
		{"unknown agent", RequestInput{From: "engineer", To: "wizard", Blocking: true}, errcode.InvalidInput, "unknown agent"},
		{"bad agent name", RequestInput{From: "Engineer", To: "architect"}, errcode.InvalidInput, "must match"},
		{"self", RequestInput{From: "architect", To: "architect"}, errcode.InvalidInput, "itself"},
		{"topic too long", RequestInput{From: "engineer", To: "architect", Topic: strings.Repeat("t", 201)}, errcode.InvalidInput, "limit is 200"},
		{"question too long", RequestInput{From: "engineer", To: "architect", Question: strings.Repeat("q", 2001)}, errcode.InvalidInput, "limit is 2000"},
		{"issue out of range", RequestInput{Issue: -3, From: "engineer", To: "architect"}, errcode.InvalidInput, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			if in.Issue == 0 {
				in.Issue = 42
			}
			if in.Topic == "" {
				in.Topic = "t"
			}
			if in.Question == "" {
				in.Question = "q"
			}
			_, err := r.Request(context.Background(), in)
			if !errcode.Is(err, tt.code) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want %s containing %q", err, tt.code, tt.msg)
			}
		})
	}
	if _, err := os.Stat(r.WS.LedgerFile(42)); !os.IsNotExist(err) {
		t.Fatal("a rejected request wrote a ledger")
	}
}

func TestTransitionsCheckStatus(t *testing.T) {
	t.Parallel()
	type op func(r *Router, id string) error
	answer := func(r *Router, id string) error {
		_, err := r.Answer(context.Background(), id, "", "an answer")
		return err
	}
	ask := func(r *Router, id string) error {
		_, err := r.Ask(context.Background(), id, "", "a follow-up")
		return err
	}
	resolve := func(r *Router, id string) error { _, err := r.Resolve(context.Background(), id, "cli", ""); return err }
	escalate := func(r *Router, id string) error {
		_, err := r.Escalate(context.Background(), id, "cli", "")
		return err
	}
	abandon := func(r *Router, id string) error { _, err := r.Abandon(context.Background(), id, "cli", ""); return err }
	setup := map[ledger.Status][]op{
		ledger.Pending:   nil,
		ledger.Answered:  {answer},
		ledger.Resolved:  {resolve},
		ledger.Escalated: {escalate},
		ledger.Abandoned: {abandon},
	}
	ops := map[string]op{"answer": answer, "ask": ask, "resolve": resolve, "escalate": escalate, "abandon": abandon}
	allowed := map[ledger.Status]map[string]bool{
		ledger.Pending:   {"answer": true, "resolve": true, "escalate": true, "abandon": true},
		ledger.Answered:  {"ask": true, "resolve": true, "escalate": true, "abandon": true},
		ledger.Resolved:  {},
		ledger.Escalated: {"resolve": true, "abandon": true},
		ledger.Abandoned: {},
	}
	for status, steps := range setup {
		for name, o := range ops {
			t.Run(string(status)+"/"+name, func(t *testing.T) {
				r, _, _ := newRouter(t)
				id := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true}).Record.ID
				for _, s := range steps {
					if err := s(r, id); err != nil {
						t.Fatalf("setup: %v", err)
					}
				}
				before, _ := os.ReadFile(r.WS.LedgerFile(42))
				err := o(r, id)
				if allowed[status][name] {
					if err != nil {
						t.Fatalf("%s on %s: %v", name, status, err)
					}
					return
				}
				if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "its status is "+string(status)) {
					t.Fatalf("%s on %s: got %v", name, status, err)
				}
				after, _ := os.ReadFile(r.WS.LedgerFile(42))
				if string(before) != string(after) {
					t.Fatal("a refused transition changed the ledger")
				}
			})
		}
	}
}

func TestMaxRoundsEscalates(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	ctx := context.Background()
	id := request(t, r, RequestInput{Workflow: "bug", From: "engineer", To: "product-manager", Blocking: true}).Record.ID
	for round := 1; round <= 3; round++ {
		if _, err := r.Answer(ctx, id, "", "answer"); err != nil {
			t.Fatal(err)
		}
		if round < 3 {
			if _, err := r.Ask(ctx, id, "", "again"); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := r.Ask(ctx, id, "", "one more")
	if !errcode.Is(err, errcode.MaxRoundsExceeded) {
		t.Fatalf("got %v", err)
	}
	rec := res.Record
	if rec.Status != ledger.Escalated || rec.Round != 3 {
		t.Fatalf("record = %s round %d", rec.Status, rec.Round)
	}
	esc := rec.LastOf(ledger.Escalation)
	if esc == nil || esc.From != ledger.HubName {
		t.Fatalf("escalation entry = %+v", esc)
	}
	for _, want := range []string{"authentication flow", "Rounds used: 3 of 3", "latest question: again", "latest answer: answer",
		"clarify resolve " + id, "clarify abandon " + id} {
		if !strings.Contains(esc.Body, want) {
			t.Errorf("escalation summary lacks %q:\n%s", want, esc.Body)
		}
	}
	// A person resolves it.
	if _, err := r.Resolve(ctx, id, "human:alice", "Print 15 minutes."); err != nil {
		t.Fatal(err)
	}
}

func TestResponderAnswersAndFailures(t *testing.T) {
	t.Parallel()
	r, _, fr := newRouter(t)
	fr.agents["architect"] = func(req responder.Request) (string, error) {
		if req.Round == 2 {
			return "", errcode.New(errcode.AgentError, "responder for \"architect\" exited with status 3")
		}
		return "Middleware. " + strings.Repeat("x", 3000), nil
	}
	res := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true})
	if res.Record.Status != ledger.Answered || res.Answer == "" {
		t.Fatalf("responder answer not recorded: %+v", res.Record)
	}
	if n := len([]rune(res.Record.LastOf(ledger.Answer).Body)); n != 2000 {
		t.Errorf("long answer kept %d characters, want 2000", n)
	}
	if fr.calls[0].Question != "Middleware or controller?" || fr.calls[0].ID != "CLR-42-001" || len(fr.calls[0].Thread) != 1 {
		t.Errorf("responder request = %+v", fr.calls[0])
	}
	st, _ := agentstatus.Load(r.WS.AgentStatusFile())
	if s := st.Get("engineer"); s.Status != agentstatus.Working {
		t.Errorf("engineer after answer = %s", s.Status)
	}
	if s := st.Get("architect"); s.Status != agentstatus.Working {
		t.Errorf("architect after answering = %s", s.Status)
	}
	res, err := r.Ask(context.Background(), res.Record.ID, "", "and refresh?")
	if !errcode.Is(err, errcode.AgentError) {
		t.Fatalf("got %v", err)
	}
	if res.Record.Status != ledger.Escalated || !strings.Contains(res.Record.LastOf(ledger.Escalation).Body, "exited with status 3") {
		t.Fatalf("failed responder did not escalate: %+v", res.Record)
	}
}

func TestEventsCarryReferencePayloads(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	ctx := context.Background()
	id := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true}).Record.ID
	if _, err := r.Answer(ctx, id, "", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(ctx, id, "", ""); err != nil {
		t.Fatal(err)
	}
	id2 := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true}).Record.ID
	if _, err := r.Escalate(ctx, id2, "", "needs a person"); err != nil {
		t.Fatal(err)
	}
	evs, skipped, err := r.Events.Read(time.Time{})
	if err != nil || skipped != 0 {
		t.Fatal(err, skipped)
	}
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	want := "clarification-requested,clarification-answered,clarification-resolved,clarification-requested,clarification-escalated"
	if strings.Join(types, ",") != want {
		t.Fatalf("events = %v", types)
	}
	if !strings.Contains(string(evs[0].Payload), `"clarificationId":"CLR-42-001","issueNumber":42,"fromAgent":"engineer","toAgent":"architect","topic":"authentication flow","blocking":true,"timestamp":1772384655123`) {
		t.Fatalf("payload = %s", evs[0].Payload)
	}
}

func TestConcurrentRequestsInProcess(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		go func() {
			_, err := r.Request(context.Background(), RequestInput{Issue: 9, From: "engineer", To: "architect", Topic: "t", Question: "q", Blocking: false})
			errs <- err
		}()
	}
	for i := 0; i < 40; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	l, err := r.Ledgers.Load(9)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rec := range l.Clarifications {
		if seen[rec.ID] {
			t.Fatalf("duplicate id %s", rec.ID)
		}
		seen[rec.ID] = true
	}
	if len(seen) != 40 || !seen["CLR-9-040"] {
		t.Fatalf("ids = %d", len(seen))
	}
}

// BenchmarkRequest50 is one request against a ledger of 50 records, in
// process, with fsync (the whole-process figure is in docs/PERFORMANCE.md).
func BenchmarkRequest50(b *testing.B) {
	r, _, _ := newRouter(b)
	benchRequest50(b, r)
}

// benchRequest50 times r.Request on a ledger of 50 records, fsynced as in
// the CLI, the ledger put back before each run.
func benchRequest50(b *testing.B, r *Router) {
	r.Ledgers.NoSync = false
	ctx := context.Background()
	in := RequestInput{Issue: 7, From: "engineer", To: "architect", Topic: "t", Question: "q?"}
	for i := 0; i < 50; i++ {
		if _, err := r.Request(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	path := r.WS.LedgerFile(7)
	seed, _ := os.ReadFile(path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		_ = os.WriteFile(path, seed, 0o644)
		b.StartTimer()
		if _, err := r.Request(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// New fills the documented defaults, and the store shares the hub's one
// lock manager.
func TestNewDefaults(t *testing.T) {
	t.Parallel()
	ws := workspace.Workspace{Root: t.TempDir()}
	r := New(Options{WS: ws})
	if r.Config == nil || r.Clock == nil || r.Locks == nil || r.Ledgers == nil || r.Ledgers.Locks != r.Locks || r.Ledgers.WS != ws {
		t.Fatalf("router = %+v", r)
	}
	if r.Events != nil || r.Responder != nil {
		t.Fatal("no event log and no responder unless asked for")
	}
	locks := lock.New(lock.Options{})
	if r := New(Options{WS: ws, Locks: locks, NoSync: true}); r.Ledgers.Locks != locks || !r.Ledgers.NoSync {
		t.Fatalf("store = %+v", r.Ledgers)
	}
	_, err := r.Request(context.Background(), RequestInput{Issue: 1, From: "engineer", To: "architect", Topic: "t", Question: "q"})
	if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), `unknown agent "engineer" (known: )`) {
		t.Fatalf("request without config: %v", err)
	}
}

// A responder's answer over the body limit is cut, but redacted first: a
// token straddling the limit would otherwise keep its head in the ledger
// (cut first, the pattern no longer matches what is left).
func TestResponderAnswerRedactedBeforeTheCut(t *testing.T) {
	t.Parallel()
	r, _, fr := newRouter(t)
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	fr.agents["architect"] = func(responder.Request) (string, error) {
		return strings.Repeat("x", 1990) + " " + token + " and more", nil
	}
	res := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true})
	data, err := os.ReadFile(r.WS.LedgerFile(42))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "ghp_") || strings.Contains(res.Answer, "ghp_") {
		t.Fatalf("the head of the token survived the cut: ...%s", res.Answer[len(res.Answer)-40:])
	}
	if n := len([]rune(res.Answer)); n > 2000 {
		t.Fatalf("answer is %d characters, over the 2,000 limit", n)
	}
}

// ctxResponder waits for its caller's context, as a responder the caller
// gave up on does, and fails with what responder.Exec returns then.
type ctxResponder struct{}

func (ctxResponder) Has(string) bool { return true }
func (ctxResponder) Respond(ctx context.Context, agent string, _ responder.Request) (string, error) {
	<-ctx.Done()
	return "", errcode.Wrap(errcode.AgentError, ctx.Err(), "responder for %q was stopped", agent)
}

// A hook's deadline that passes while a responder works (the monitor's
// retry inside `hook start`) is the caller running out of time, not the
// responder failing: nothing is escalated, the record stays as it was for
// the next check, and the target's status is restored (issue 15).
func TestCallerDeadlineDoesNotEscalate(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	res := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true})
	r.Responder = ctxResponder{}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	got, err := r.Retry(ctx, &res.Record)
	if err == nil || (got != nil && got.Escalated) {
		t.Fatalf("retry = %+v, %v; want an error and no escalation", got, err)
	}
	rec, gerr := r.Get(res.Record.ID)
	if gerr != nil || rec.Status != ledger.Pending || rec.LastOf(ledger.Escalation) != nil {
		t.Fatalf("record after the deadline: %+v, %v", rec, gerr)
	}
	st, _ := agentstatus.Load(r.WS.AgentStatusFile())
	if s := st.Get("architect"); s == nil || s.Status == agentstatus.Clarifying || s.RespondingTo != nil {
		t.Fatalf("architect left %+v", s)
	}
}

// Ctrl-C while a responder works (SIGINT cancels the command's context)
// is an operator's interrupt, not the responder failing: nothing is
// escalated to a person, the record stays for the next check and the
// target's status is restored (issue 26 item 8).
func TestInterruptDoesNotEscalate(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	res := request(t, r, RequestInput{From: "engineer", To: "architect", Blocking: true})
	r.Responder = ctxResponder{}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel) // the signal handler's cancel
	got, err := r.Retry(ctx, &res.Record)
	if err == nil || (got != nil && got.Escalated) {
		t.Fatalf("retry = %+v, %v; want an error and no escalation", got, err)
	}
	rec, gerr := r.Get(res.Record.ID)
	if gerr != nil || rec.Status != ledger.Pending || rec.LastOf(ledger.Escalation) != nil {
		t.Fatalf("record after the interrupt: %+v, %v", rec, gerr)
	}
	st, _ := agentstatus.Load(r.WS.AgentStatusFile())
	if s := st.Get("architect"); s == nil || s.Status == agentstatus.Clarifying || s.RespondingTo != nil {
		t.Fatalf("architect left %+v", s)
	}
}
