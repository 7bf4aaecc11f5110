package sync

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/go-github/v66/github"
)

// fullListAbove is how many issues a full resync reconciles before it
// reads the repository's issues and comments in listings rather than
// issue by issue.
const fullListAbove = 20

// RepoListing is every issue's labels and every comment of a repository,
// read in pages of 100: what a full resync of n issues otherwise reads in
// 2n calls (each issue's labels, each issue's comments).
type RepoListing struct {
	Labels map[int][]string
	// Comments holds every issue's comments, oldest first; an issue
	// without any has none here, which the complete listing vouches for.
	Comments map[int][]Existing
}

// ListRepo reads the listing when it costs at most maxPages calls in all
// (each listing's first page names its last); ok is false when it would
// cost more, and the caller reads issue by issue.
func (c *Client) ListRepo(ctx context.Context, maxPages int) (*RepoListing, bool, error) {
	out := &RepoListing{Labels: map[int][]string{}, Comments: map[int][]Existing{}}
	spent := 0
	iopt := &github.IssueListByRepoOptions{State: "all", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		// GET /repos/{owner}/{repo}/issues?state=all&per_page=100
		page, resp, err := c.gh.Issues.ListByRepo(rl(ctx), c.owner, c.repo, iopt)
		if err != nil {
			return nil, false, wrap("list the repository's issues", resp, err)
		}
		spent++
		if spent == 1 && resp.LastPage > maxPages/2 {
			return nil, false, nil // more pages than reading issue by issue
		}
		for _, is := range page {
			names := []string{}
			for _, l := range is.Labels {
				names = append(names, l.GetName())
			}
			out.Labels[is.GetNumber()] = names
		}
		if resp.NextPage == 0 {
			break
		}
		iopt.Page = resp.NextPage
	}
	copt := &github.IssueListCommentsOptions{Sort: github.String("created"), Direction: github.String("asc"),
		ListOptions: github.ListOptions{PerPage: 100}}
	first := true
	for {
		// GET /repos/{owner}/{repo}/issues/comments?sort=created&direction=asc&per_page=100
		cs, resp, err := c.gh.Issues.ListComments(rl(ctx), c.owner, c.repo, 0, copt)
		if err != nil {
			return nil, false, wrap("list the repository's comments", resp, err)
		}
		spent++
		if first && spent+resp.LastPage > maxPages {
			return nil, false, nil
		}
		first = false
		for _, cm := range cs {
			u := cm.GetIssueURL()
			n, err := strconv.Atoi(u[strings.LastIndex(u, "/")+1:])
			if err != nil {
				continue
			}
			out.Comments[n] = append(out.Comments[n], Existing{ID: cm.GetID(), Author: cm.GetUser().GetLogin(),
				Body: cm.GetBody(), Created: cm.GetCreatedAt().Time})
		}
		if resp.NextPage == 0 {
			return out, true, nil
		}
		copt.Page = resp.NextPage
	}
}
