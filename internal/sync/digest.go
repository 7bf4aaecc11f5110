package sync

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/google/go-github/v66/github"
)

// DigestLabel marks the weekly digest issues.
const DigestLabel = "agentx-digest"

// maxIssueBody is GitHub's limit on an issue body, in characters.
const maxIssueBody = 65536

// DigestPost is what posting a digest did.
type DigestPost struct {
	Issue   int
	Created bool
}

// PostDigest publishes a week's digest as the issue titled title carrying
// label: the first run of a week opens it, a re-run edits its body, so a
// week has one issue however often the workflow runs. The match is on the
// exact title among the label's issues, open or closed (a person may have
// closed last week's after reading it).
func (c *Client) PostDigest(ctx context.Context, label, title, body string) (DigestPost, error) {
	body = capBody(body)
	n, err := c.findIssue(ctx, label, title)
	if err != nil {
		return DigestPost{}, err
	}
	if n != 0 {
		// PATCH /repos/{owner}/{repo}/issues/{number}
		_, resp, err := c.gh.Issues.Edit(rl(ctx), c.owner, c.repo, n, &github.IssueRequest{Body: github.String(body)})
		return DigestPost{Issue: n}, wrap(fmt.Sprintf("edit digest issue #%d", n), resp, err)
	}
	if err := c.EnsureLabel(ctx, LabelSpec{Name: label, Color: "5319e7", Description: "Weekly agentx digest"}); err != nil {
		return DigestPost{}, err
	}
	// GitHub may open the issue and lose the answer (a 5xx, a dropped
	// connection): before the create is sent again, the label's issues
	// are read, as CreateComment reads the comments, and the week's issue
	// found there is the first attempt's, never opened twice.
	ctx = withCreateCheck(ctx, func(ctx context.Context) (*http.Response, error) {
		n, err := c.findIssue(ctx, label, title)
		if err != nil || n == 0 {
			return nil, err
		}
		return createdResponse(map[string]any{"number": n, "title": title})
	})
	// POST /repos/{owner}/{repo}/issues
	iss, resp, err := c.gh.Issues.Create(rl(ctx), c.owner, c.repo, &github.IssueRequest{
		Title: github.String(title), Body: github.String(body), Labels: &[]string{label}})
	if err != nil {
		return DigestPost{}, wrap("open digest issue", resp, err)
	}
	return DigestPost{Issue: iss.GetNumber(), Created: true}, nil
}

// findIssue returns the number of the issue with label and exactly title
// (0 when none), reading the label's issues newest first.
func (c *Client) findIssue(ctx context.Context, label, title string) (int, error) {
	opt := &github.IssueListByRepoOptions{Labels: []string{label}, State: "all",
		ListOptions: github.ListOptions{PerPage: 100}}
	for {
		// GET /repos/{owner}/{repo}/issues?labels=L&state=all
		page, resp, err := c.gh.Issues.ListByRepo(rl(ctx), c.owner, c.repo, opt)
		if err != nil {
			return 0, wrap("list digest issues", resp, err)
		}
		for _, iss := range page {
			if iss.GetTitle() == title && !iss.IsPullRequest() {
				return iss.GetNumber(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opt.Page = resp.NextPage
	}
}

// capBody keeps a body under GitHub's limit, cutting at a rune boundary.
func capBody(s string) string {
	const note = "\n\n… (cut to GitHub's issue size limit; the step summary and `agentx-hook digest --format json` have it all)\n"
	if utf8.RuneCountInString(s) <= maxIssueBody {
		return s
	}
	r := []rune(s)
	return string(r[:maxIssueBody-utf8.RuneCountInString(note)]) + note
}
