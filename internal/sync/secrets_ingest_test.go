package sync

import (
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// TestIngestStoresNoSecret: a /clarify comment carrying a secret or a
// private region is applied, and the ledger committed to the state holds
// neither (the protocol core sanitises what it stores, whatever the
// surface). One-line examples: a comment command is one paragraph.
func TestIngestStoresNoSecret(t *testing.T) {
	t.Parallel()
	for _, k := range sanitize.Kinds() {
		for _, ex := range k.Examples {
			if strings.Contains(ex.In, "\n") {
				continue
			}
			t.Run(k.ID, func(t *testing.T) {
				fake := newFakeWithIssues(42)
				defer fake.Close()
				fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
				ev := event(fake, "alice", "OWNER", "/clarify answer CLR-42-001 Use "+ex.In+" <private>not this</private> then.")
				out, err := newIngester(newTestClient(t, fake, &sleeps{})).Run(context.Background(), ev)
				if err != nil || !out.Applied {
					t.Fatalf("outcome %+v, %v", out, err)
				}
				data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
				if strings.Contains(string(data), ex.Secret()) || strings.Contains(string(data), "not this") {
					t.Fatalf("the ledger keeps %q:\n%s", ex.Secret(), data)
				}
				if !strings.Contains(string(data), "[REDACTED:") {
					t.Fatalf("no mark in the ledger:\n%s", data)
				}
			})
		}
	}
}

// A rejection reply quotes the comment's first line shortened to 200
// characters: redacted first, so a token straddling the cut does not
// leave its head in a public reply.
func TestRejectionReplyRedactsBeforeItShortens(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	body := "/clarify answer CLR-42-099 " + strings.Repeat("x", 160) + " " + token
	ing := newIngester(newTestClient(t, fake, &sleeps{}))
	ing.Clean = sanitize.Text // the Action's egress sanitiser, less the mention guard
	out, err := ing.Run(context.Background(), event(fake, "alice", "OWNER", body))
	if err != nil || out.Rejected == "" {
		t.Fatalf("outcome %+v, %v; want a rejection", out, err)
	}
	replies := 0
	for _, c := range fake.Comments(42) {
		if c.User != githubfake.BotLogin {
			continue // the person's own comment
		}
		replies++
		if strings.Contains(c.Body, "ghp_") {
			t.Fatalf("the reply keeps the token's head:\n%s", c.Body)
		}
	}
	if replies != 1 {
		t.Fatalf("%d replies, want 1", replies)
	}
}

// A token written where the verb or the id goes is echoed in the
// rejection: redacted before it is shortened, so no head of it is left.
func TestRejectionReplyRedactsAnEchoedVerbOrID(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	for _, body := range []string{"/clarify " + token + " CLR-42-001 yes", "/clarify answer " + token + " yes"} {
		fake := newFakeWithIssues(42)
		fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
		ing := newIngester(newTestClient(t, fake, &sleeps{}))
		ing.Clean = sanitize.Text
		out, err := ing.Run(context.Background(), event(fake, "alice", "OWNER", body))
		if err != nil || out.Rejected == "" {
			t.Fatalf("%q: outcome %+v, %v; want a rejection", body, out, err)
		}
		for _, c := range fake.Comments(42) {
			if c.User == githubfake.BotLogin && strings.Contains(c.Body, "ghp_") {
				t.Fatalf("the reply keeps the token's head:\n%s", c.Body)
			}
		}
		fake.Close()
	}
}

// A rejection reply quotes the commenter's line as code: an image, a link
// or a mention in it is shown, never rendered, so the bot cannot be made
// to post someone's content or ping anyone. Backticks in the text cannot
// close the code span early.
func TestRejectionReplyQuotesTheCommentAsCode(t *testing.T) {
	t.Parallel()
	live := []string{"![x](http://evil/img.png)", "[click](http://evil)", "@someone", "``tick`` and ```three```"}
	for _, body := range []string{
		"/clarify answer CLR-42-099 " + strings.Join(live, " "),
		"/clarify " + live[0] + " " + live[1],
		"/clarify answer " + live[1] + " " + live[2],
	} {
		fake := newFakeWithIssues(42)
		fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
		ing := newIngester(newTestClient(t, fake, &sleeps{}))
		out, err := ing.Run(context.Background(), event(fake, "alice", "OWNER", body))
		if err != nil || out.Rejected == "" {
			t.Fatalf("%q: outcome %+v, %v; want a rejection", body, out, err)
		}
		for _, c := range fake.Comments(42) {
			if c.User != githubfake.BotLogin {
				continue
			}
			prose := outsideCode(t, c.Body)
			for _, bad := range []string{"http://evil", "](", "@someone", "tick"} {
				if strings.Contains(prose, bad) {
					t.Fatalf("%q: the reply renders %q outside code:\n%s\n(prose: %q)", body, bad, c.Body, prose)
				}
			}
		}
		fake.Close()
	}
}

// outsideCode is body less its inline code spans (CommonMark: a run of n
// backticks closes only at the next run of exactly n). An unclosed run is
// literal text, kept.
func outsideCode(t *testing.T, body string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(body); {
		if body[i] != '`' {
			b.WriteByte(body[i])
			i++
			continue
		}
		n := 0
		for i+n < len(body) && body[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(body); {
			if body[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(body) && body[j+m] == '`' {
				m++
			}
			if m == n {
				closeAt = j
				break
			}
			j += m
		}
		if closeAt < 0 {
			b.WriteString(body[i : i+n])
			i += n
			continue
		}
		i = closeAt + n
	}
	return b.String()
}
