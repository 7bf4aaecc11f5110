package sync

import (
	"context"
	"regexp"
	"strconv"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/agentx-dev/agentx/internal/core/digest"
)

// The digest's review figures (issue 22 item 4): pull requests closed in
// a window that close an issue, and whether a reviewer requested changes.

// Bounds on the API calls ReviewsClosed makes: MaxPullPages pages of 100
// closed pull requests (newest first, stopping at the window's start) and
// one reviews call for each of at most MaxReviewedPulls pull requests that
// close an issue. A window's figures cost 1 list call plus one per such
// pull request, MaxPullPages+MaxReviewedPulls at most.
const (
	MaxPullPages     = 3
	MaxReviewedPulls = 100
)

// closingRef finds GitHub's closing keywords with an issue of this
// repository: "Closes #12", "fixed #3", "Resolves: #7".
var closingRef = regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+#(\d+)\b`)

// ClosingIssues lists the issues body says it closes, in order, once each.
func ClosingIssues(body string) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range closingRef.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || n <= 0 || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// ReviewsClosed reads the pull requests closed in [since, until) that
// close an issue and whether any review requested changes, within the
// bounds above. It never fails: what went wrong is in the input's Err,
// and the digest says the figures are not available.
func (c *Client) ReviewsClosed(ctx context.Context, since, until time.Time) *digest.ReviewInput {
	in := &digest.ReviewInput{}
	var closing []digest.PullReview
	opt := &github.PullRequestListOptions{State: "closed", Sort: "updated", Direction: "desc",
		ListOptions: github.ListOptions{PerPage: 100}}
	for pages := 0; ; pages++ {
		if pages == MaxPullPages {
			in.Truncated = true // older ones in the window were not listed
			break
		}
		// GET /repos/{owner}/{repo}/pulls?state=closed&sort=updated&direction=desc
		list, resp, err := c.gh.PullRequests.List(rl(ctx), c.owner, c.repo, opt)
		if err != nil {
			in.Err = wrap("list closed pull requests", resp, err).Error()
			return in
		}
		done := false
		for _, pr := range list {
			if pr.GetUpdatedAt().Time.Before(since) {
				done = true // closed no later than updated: the rest are older
				break
			}
			closed := pr.GetClosedAt().Time
			if closed.IsZero() || closed.Before(since) || !closed.Before(until) {
				continue
			}
			in.Closed++
			if issues := ClosingIssues(pr.GetBody()); len(issues) > 0 {
				closing = append(closing, digest.PullReview{Number: pr.GetNumber(), Issues: issues})
			}
		}
		if done || resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if len(closing) > MaxReviewedPulls {
		in.Unexamined += len(closing) - MaxReviewedPulls
		closing = closing[:MaxReviewedPulls]
	}
	for i := range closing {
		requested, err := c.changesRequested(ctx, closing[i].Number)
		if err != nil {
			in.Err = err.Error()
			return in
		}
		closing[i].ChangesRequested = requested
	}
	in.Pulls = closing
	return in
}

// changesRequested reads pull request n's first 100 reviews (one call).
func (c *Client) changesRequested(ctx context.Context, n int) (bool, error) {
	// GET /repos/{owner}/{repo}/pulls/{number}/reviews
	reviews, resp, err := c.gh.PullRequests.ListReviews(rl(ctx), c.owner, c.repo, n, &github.ListOptions{PerPage: 100})
	if err != nil {
		return false, wrap("list reviews of pull request #"+strconv.Itoa(n), resp, err)
	}
	for _, r := range reviews {
		if r.GetState() == "CHANGES_REQUESTED" {
			return true, nil
		}
	}
	return false, nil
}
