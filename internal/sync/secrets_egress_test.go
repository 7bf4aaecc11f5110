package sync

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	gosync "sync"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// egressClean is the Action's egress sanitiser (actioncmd.Clean, which
// this package cannot import): secrets and private parts, then mentions.
func egressClean(s string) string { return sanitize.Mentions(sanitize.Text(s)) }

// recorder stands between the client and the fake GitHub and keeps the
// body of every request that writes, so a test sees all that left, edits
// and deleted comments included, not only what the fake holds at the end.
type recorder struct {
	mu     gosync.Mutex
	bodies []string
	srv    *httptest.Server
}

func newRecorder(t *testing.T, fake *githubfake.Server) *recorder {
	t.Helper()
	target, err := url.Parse(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Body != nil {
			data, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(data))
			r.mu.Lock()
			r.bodies = append(r.bodies, req.Method+" "+req.URL.Path+"\n"+string(data))
			r.mu.Unlock()
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) client(t *testing.T) *Client {
	t.Helper()
	c, err := NewClient(ClientConfig{APIURL: r.srv.URL, Token: "t", Repository: "o/r", WriteInterval: -1, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// leaks returns the recorded bodies holding secret, as sent: JSON escapes
// '<', '>' and '&' in strings, so the secret is looked for in both forms.
func (r *recorder) leaks(secret string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	escaped := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "\n", `\n`, `"`, `\"`).Replace(secret)
	var out []string
	for _, b := range r.bodies {
		if strings.Contains(b, secret) || strings.Contains(b, escaped) {
			out = append(out, b)
		}
	}
	return out
}

type planted struct{ kind, in, secret string }

func plantedSecrets(oneLine bool) []planted {
	var out []planted
	for _, k := range sanitize.Kinds() {
		for _, ex := range k.Examples {
			if oneLine && strings.Contains(ex.In, "\n") {
				continue
			}
			out = append(out, planted{k.ID, ex.In, ex.Secret()})
		}
	}
	return append(out, planted{"private", "<PRIVATE >the private part</private>", "the private part"})
}

// TestMirrorSendsNoSecret: ledgers whose question, answer, resolution and
// escalation bodies and topics carry one example of every kind of secret
// in sanitize's table (a ledger written before the core sanitised, or by
// another tool) are mirrored to issue comments; no request GitHub receives
// holds any of them (issue 15).
func TestMirrorSendsNoSecret(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(1)
	defer fake.Close()
	rec := newRecorder(t, fake)
	ts := "2026-01-01T00:00:00.000Z"
	var loaded []ledger.Loaded
	plants := plantedSecrets(false)
	l := &ledger.Ledger{IssueNumber: 1}
	for i, p := range plants {
		text := "see " + p.in + " there"
		r := ledger.Record{ID: fmt.Sprintf("CLR-1-%03d", i+1), IssueNumber: 1, From: "engineer", To: "architect",
			Topic: "topic " + strings.ReplaceAll(p.in, "\n", " "), Blocking: i%2 == 0, Status: ledger.Escalated, Round: 1, MaxRounds: 3, Created: ts, StaleAfter: ts,
			Thread: []ledger.Entry{
				{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q: " + text, Timestamp: ts},
				{Round: 1, From: "architect", Type: ledger.Answer, Body: "A: " + text, Timestamp: ts},
				{Round: 1, From: "agent-x", Type: ledger.Escalation, Body: "[ESCALATED] " + text, Timestamp: ts},
			}}
		if i%3 == 0 {
			r.Status = ledger.Resolved
			r.Thread[2] = ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "R: " + text, Timestamp: ts}
		}
		l.Clarifications = append(l.Clarifications, r)
	}
	loaded = append(loaded, ledger.Loaded{Ledger: l})
	s := &Syncer{GH: rec.client(t), Labels: testLabels, Bot: githubfake.BotLogin, Clean: egressClean}
	if err := s.Run(context.Background(), loaded, NewState()); err != nil {
		t.Fatal(err)
	}
	if fake.CommentCount() != 3*len(plants) {
		t.Fatalf("%d comments mirrored, want %d", fake.CommentCount(), 3*len(plants))
	}
	for _, p := range plants {
		if got := rec.leaks(p.secret); len(got) > 0 {
			t.Errorf("%s: GitHub received %q in:\n%s", p.kind, p.secret, got[0])
		}
	}
}

// TestRepliesSendNoSecret: a /clarify comment carrying a secret of each
// kind where the reply quotes it (the verb, the id, the text of a command
// that is rejected) gets a reply that holds none of it.
func TestRepliesSendNoSecret(t *testing.T) {
	t.Parallel()
	for _, p := range plantedSecrets(true) {
		for _, body := range []string{
			"/clarify answer CLR-1-099 use " + p.in + " here",
			"/clarify " + p.in + " CLR-1-001 yes",
			"/clarify answer " + p.in,
		} {
			fake := newFakeWithIssues(1)
			rec := newRecorder(t, fake)
			ing := &Ingester{GH: rec.client(t), Bot: githubfake.BotLogin, Clean: egressClean}
			ing.State = NewStateBranch(ing.GH, "")
			out, err := ing.Run(context.Background(), event1(fake, body))
			if err != nil || out.Rejected == "" {
				t.Fatalf("%s: %q: outcome %+v, %v; want a rejection", p.kind, body, out, err)
			}
			if got := rec.leaks(p.secret); len(got) > 0 {
				t.Errorf("%s: the reply to %q sent %q:\n%s", p.kind, body, p.secret, got[0])
			}
			fake.Close()
		}
	}
}

func event1(fake *githubfake.Server, body string) Event {
	c := fake.AddComment(1, "alice", "OWNER", body)
	var ev Event
	ev.Action, ev.Issue.Number = "created", 1
	ev.Comment.ID, ev.Comment.Body, ev.Comment.AuthorAssociation = c.ID, body, "OWNER"
	ev.Comment.User.Login, ev.Comment.User.Type = "alice", "User"
	return ev
}
