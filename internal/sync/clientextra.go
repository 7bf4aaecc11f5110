package sync

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// The REST calls of the operational edges: reactions with their authors
// and times (go-github's Reaction has no created_at), a person's
// repository permission, the repository-wide comment listing the sweep
// reads, and the token's own login.

// Reaction is one reaction on a comment.
type Reaction struct {
	ID      int64
	User    string
	Content string
	Created time.Time
}

// Reactions lists the reactions on comment id, following pagination.
func (c *Client) Reactions(ctx context.Context, id int64) ([]Reaction, error) {
	var out []Reaction
	u := fmt.Sprintf("repos/%s/%s/issues/comments/%d/reactions?per_page=100", c.owner, c.repo, id)
	for u != "" {
		// GET /repos/{owner}/{repo}/issues/comments/{id}/reactions
		req, err := c.gh.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		var page []struct {
			ID        int64     `json:"id"`
			Content   string    `json:"content"`
			CreatedAt time.Time `json:"created_at"`
			User      struct {
				Login string `json:"login"`
			} `json:"user"`
		}
		resp, err := c.gh.Do(rl(ctx), req, &page)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list reactions of comment %d", id), resp, err)
		}
		for _, r := range page {
			out = append(out, Reaction{ID: r.ID, User: r.User.Login, Content: r.Content, Created: r.CreatedAt})
		}
		u = ""
		if resp.NextPage != 0 {
			u = fmt.Sprintf("repos/%s/%s/issues/comments/%d/reactions?per_page=100&page=%d", c.owner, c.repo, id, resp.NextPage)
		}
	}
	return out, nil
}

// DeleteReaction removes one reaction; one already gone is not an error.
func (c *Client) DeleteReaction(ctx context.Context, comment, reaction int64) error {
	resp, err := c.gh.Reactions.DeleteIssueCommentReaction(rl(ctx), c.owner, c.repo, comment, reaction)
	if status(resp) == http.StatusNotFound {
		return nil
	}
	return wrap(fmt.Sprintf("delete reaction %d of comment %d", reaction, comment), resp, err)
}

// Permission returns login's role on the repository: admin, maintain,
// write, triage, read or none (not a collaborator). GitHub's role_name is
// preferred to permission, which folds maintain into write and triage
// into read.
func (c *Client) Permission(ctx context.Context, login string) (string, error) {
	// GET /repos/{owner}/{repo}/collaborators/{user}/permission
	p, resp, err := c.gh.Repositories.GetPermissionLevel(rl(ctx), c.owner, c.repo, url.PathEscape(login))
	if status(resp) == http.StatusNotFound {
		return "none", nil
	}
	if err != nil {
		return "", wrap("read the repository permission of "+login, resp, err)
	}
	if r := strings.ToLower(p.GetRoleName()); roleRank(r) >= 0 {
		return r, nil
	}
	return strings.ToLower(p.GetPermission()), nil
}

// roleRank orders GitHub's repository roles; -1 for an unknown name.
func roleRank(role string) int {
	switch strings.ToLower(role) {
	case "none":
		return 0
	case "read", "pull":
		return 1
	case "triage":
		return 2
	case "write", "push":
		return 3
	case "maintain":
		return 4
	case "admin":
		return 5
	}
	return -1
}

// RepoComment is a comment from the repository-wide listing.
type RepoComment struct {
	Issue       int
	ID          int64
	Body        string
	User        string
	UserType    string
	Association string
	Created     time.Time
	Updated     time.Time
}

// RepoComments lists every issue comment of the repository updated at or
// after since, oldest update first, following pagination.
func (c *Client) RepoComments(ctx context.Context, since time.Time) ([]RepoComment, error) {
	var out []RepoComment
	opt := &github.IssueListCommentsOptions{Sort: github.String("updated"), Direction: github.String("asc"),
		Since: &since, ListOptions: github.ListOptions{PerPage: 100}}
	for {
		// GET /repos/{owner}/{repo}/issues/comments?since=...&sort=updated&direction=asc
		cs, resp, err := c.gh.Issues.ListComments(rl(ctx), c.owner, c.repo, 0, opt)
		if err != nil {
			return nil, wrap("list the repository's comments", resp, err)
		}
		for _, cm := range cs {
			u := cm.GetIssueURL()
			n, err := strconv.Atoi(u[strings.LastIndex(u, "/")+1:])
			if err != nil {
				continue // not an issue's comment
			}
			out = append(out, RepoComment{Issue: n, ID: cm.GetID(), Body: cm.GetBody(), User: cm.GetUser().GetLogin(),
				UserType: cm.GetUser().GetType(), Association: cm.GetAuthorAssociation(),
				Created: cm.GetCreatedAt().Time, Updated: cm.GetUpdatedAt().Time})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// Login returns the token's own login, or "" when the token may not read
// it (the workflow token gets 403 from GET /user).
func (c *Client) Login(ctx context.Context) (string, error) {
	u, resp, err := c.gh.Users.Get(rl(ctx), "")
	switch s := status(resp); {
	case err == nil:
		return u.GetLogin(), nil
	case s == http.StatusForbidden || s == http.StatusUnauthorized || s == http.StatusNotFound:
		return "", nil
	}
	return "", wrap("read the token's login", resp, err)
}

// ValidRole reports whether role names a repository role (admin,
// maintain, write, triage, read; push and pull as GitHub's older names).
func ValidRole(role string) bool { return roleRank(role) > 0 }
