package actioncmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

const (
	pullsRoute   = "GET /repos/{owner}/{repo}/pulls"
	reviewsRoute = "GET /repos/{owner}/{repo}/pulls/{number}/reviews"
)

// runDigestOnce runs the digest command at monday and returns the digest
// issue's body and the run's log.
func runDigestOnce(t *testing.T, fake *githubfake.Server, r *runner, monday time.Time) (body, log string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &App{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return r.env[k] }, Cwd: r.workspace, Clock: clock.NewFake(monday)}
	if code := a.Run(context.Background(), nil); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	issues := fake.IssuesLabelled(sync.DigestLabel)
	if len(issues) != 1 {
		t.Fatalf("digest issues %v", issues)
	}
	iss, _ := fake.Issue(issues[0])
	return iss.Body, stdout.String() + stderr.String()
}

// Issue 22 item 4: the digest's review figures from the pull requests
// closed in the window that close an issue, split by whether the issue had
// clarification rounds (issue 4 has a ledger, issue 9 none). Ten closed
// pull requests cost 1 list call and one reviews call per pull request
// that closes an issue.
func TestActionDigestReviewRejections(t *testing.T) {
	t.Parallel()
	fake, r, monday := digestRunner(t)
	in := monday.Add(-5 * 24 * time.Hour)
	add := func(n int, body string, reviews ...string) {
		fake.AddPull(githubfake.Pull{Number: n, Body: body, State: "closed", Merged: true, ClosedAt: in.Add(time.Duration(n) * time.Minute), Reviews: reviews})
	}
	add(101, "Closes #4", "CHANGES_REQUESTED", "APPROVED")
	add(102, "Adds the cache.\n\nfixes #4", "APPROVED")
	add(103, "Resolves #4", "COMMENTED", "CHANGES_REQUESTED")
	add(104, "Closes #4 and closes #9")
	add(105, "Fixes #9", "CHANGES_REQUESTED")
	add(106, "Fixes #9", "APPROVED")
	add(107, "fixed #9")
	add(108, "Closes #9")
	add(109, "No issue named", "CHANGES_REQUESTED")
	fake.AddPull(githubfake.Pull{Number: 110, Body: "Closes #4", State: "closed", ClosedAt: monday.Add(-10 * 24 * time.Hour), Reviews: []string{"CHANGES_REQUESTED"}})
	fake.AddPull(githubfake.Pull{Number: 111, Body: "Closes #4", State: "open", Updated: in})
	fake.ResetCounts()

	body, _ := runDigestOnce(t, fake, r, monday)
	for _, want := range []string{
		"## Review rejections (target: under 15% rejected for misunderstanding)",
		"| Issue had clarification rounds | 4 | 2 | 50% |",
		"| Issue had none | 4 | 1 | 25% |",
		"| All | 8 | 3 | 37.5% |",
		"GitHub does not record whether a rejection was due to a misunderstanding",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("digest lacks %q:\n%s", want, body)
		}
	}
	// 9 pull requests closed in the window, 8 closing an issue: 1 + 8 calls.
	if calls := fake.Calls(); calls[pullsRoute] != 1 || calls[reviewsRoute] != 8 {
		t.Errorf("API calls: %d list, %d reviews; want 1 and 8", calls[pullsRoute], calls[reviewsRoute])
	}
}

// A hundred pull requests closing an issue (and older ones after them)
// cost 2 list pages and 100 reviews calls; more than MaxReviewedPulls are
// counted as not examined rather than read.
func TestActionDigestReviewCallsBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pulls, lists, reviews, unexamined int }{
		{10, 1, 10, 0}, {100, 2, 100, 0}, {150, 2, sync.MaxReviewedPulls, 50},
	} {
		t.Run(fmt.Sprint(c.pulls), func(t *testing.T) {
			t.Parallel()
			fake, r, monday := digestRunner(t)
			for i := range c.pulls {
				fake.AddPull(githubfake.Pull{Number: 1000 + i, Body: "Closes #4", State: "closed",
					ClosedAt: monday.Add(-time.Duration(i+1) * time.Minute), Reviews: []string{"APPROVED"}})
			}
			for i := range 5 { // closed before the window
				fake.AddPull(githubfake.Pull{Number: 5000 + i, Body: "Closes #4", State: "closed", ClosedAt: monday.Add(-30 * 24 * time.Hour)})
			}
			fake.ResetCounts()
			body, _ := runDigestOnce(t, fake, r, monday)
			calls := fake.Calls()
			if calls[pullsRoute] != c.lists || calls[reviewsRoute] != c.reviews {
				t.Errorf("%d pulls: %d list and %d reviews calls; want %d and %d", c.pulls, calls[pullsRoute], calls[reviewsRoute], c.lists, c.reviews)
			}
			if c.unexamined > 0 && !strings.Contains(body, fmt.Sprintf("%d more pull requests closing an issue were not examined", c.unexamined)) {
				t.Errorf("no note of the %d not examined:\n%s", c.unexamined, body)
			}
		})
	}
}

// When GitHub refuses the pull request calls, the digest is posted all
// the same and says the review figures are not available.
func TestActionDigestReviewsNotAvailable(t *testing.T) {
	t.Parallel()
	fake, r, monday := digestRunner(t)
	fake.Fault = func(c githubfake.Call) *githubfake.Response {
		if c.Route == pullsRoute {
			return &githubfake.Response{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
		}
		return nil
	}
	body, log := runDigestOnce(t, fake, r, monday)
	if !strings.Contains(body, "Not available: list closed pull requests") || !strings.Contains(body, "| Opened | 1 |") {
		t.Errorf("digest:\n%s", body)
	}
	if !strings.Contains(log, "review figures not available") {
		t.Errorf("no warning:\n%s", log)
	}
}
