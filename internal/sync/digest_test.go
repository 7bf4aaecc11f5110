package sync

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-github/v66/github"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

// TestPostDigestOneIssueAWeek: the week's issue is found by its exact
// title among the label's issues (paginated, open or closed) and edited;
// another title opens a new one; issues without the label never match.
func TestPostDigestOneIssueAWeek(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	ctx := context.Background()

	// An unlabelled issue with the same title is not the digest's.
	fake.AddIssue(1)
	first, err := c.PostDigest(ctx, DigestLabel, "AgentX digest 2026-W01", "week one")
	if err != nil || !first.Created || first.Issue != 2 {
		t.Fatalf("first post %+v %v", first, err)
	}
	// 120 later weeks push week one to the second page of the list.
	for w := 2; w <= 121; w++ {
		if _, err := c.PostDigest(ctx, DigestLabel, fmt.Sprintf("AgentX digest 20%02d-W%02d", 26+w/53, w%53+1), "x"); err != nil {
			t.Fatal(err)
		}
	}
	// A person closed week one after reading it.
	if _, _, err := c.gh.Issues.Edit(ctx, "o", "r", first.Issue, closedState()); err != nil {
		t.Fatal(err)
	}
	fake.ResetCounts()
	again, err := c.PostDigest(ctx, DigestLabel, "AgentX digest 2026-W01", "week one, re-run")
	if err != nil || again.Created || again.Issue != first.Issue {
		t.Fatalf("re-run %+v %v", again, err)
	}
	iss, _ := fake.Issue(first.Issue)
	if iss.Body != "week one, re-run" || iss.Title != "AgentX digest 2026-W01" {
		t.Fatalf("issue after re-run %+v", iss)
	}
	calls := fake.Calls()
	if calls["GET /repos/{owner}/{repo}/issues"] != 2 || calls["PATCH /repos/{owner}/{repo}/issues/{number}"] != 1 || fake.Writes() != 1 {
		t.Fatalf("re-run calls %v", calls)
	}
	if n := len(fake.IssuesLabelled(DigestLabel)); n != 121 {
		t.Fatalf("%d digest issues, want 121", n)
	}
}

func TestDigestBodyCapped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxIssueBody+10)
	got := capBody(long)
	if n := utf8.RuneCountInString(got); n != maxIssueBody || !utf8.ValidString(got) || !strings.HasSuffix(got, "have it all)\n") {
		t.Fatalf("capped to %d runes, valid %v", n, utf8.ValidString(got))
	}
	if short := "fits"; capBody(short) != short {
		t.Fatal("a short body was changed")
	}
}

func closedState() *github.IssueRequest { return &github.IssueRequest{State: github.String("closed")} }
