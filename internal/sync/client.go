package sync

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// ClientConfig wires a Client.
type ClientConfig struct {
	// APIURL is the REST root (GITHUB_API_URL); empty means api.github.com.
	APIURL string
	Token  string
	// Repository is "owner/name".
	Repository string
	// WriteInterval paces writes (0 means DefaultWriteInterval; negative
	// means no pacing, for tests and the demo).
	WriteInterval time.Duration
	Sleep         Sleeper
	Now           func() time.Time
	// Base is the transport under the pacing and retries (tests).
	Base http.RoundTripper
	// MaxWait bounds the run's waits on rate limits (0: DefaultMaxWait).
	MaxWait time.Duration
	// Debug, when set, gets a line per API call and per wait.
	Debug func(format string, args ...any)
	// Log, when set, gets a line per wait on a rate limit or an error.
	Log func(format string, args ...any)
}

// Client is the part of the GitHub REST API that GitHub Mode uses, over
// go-github with the paced, retrying Transport underneath.
type Client struct {
	gh          *github.Client
	owner, repo string
	Transport   *Transport
}

// NewClient builds a client.
func NewClient(cfg ClientConfig) (*Client, error) {
	owner, repo, ok := strings.Cut(cfg.Repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("repository %q must be owner/name", cfg.Repository)
	}
	interval := cfg.WriteInterval
	switch {
	case interval == 0:
		interval = DefaultWriteInterval
	case interval < 0:
		interval = 0
	}
	tr := &Transport{Base: cfg.Base, WriteInterval: interval, Sleep: cfg.Sleep, Now: cfg.Now, MaxWait: cfg.MaxWait, Debug: cfg.Debug, Log: cfg.Log}
	// No http.Client Timeout: it would count the Transport's waits for
	// Retry-After too; each attempt has its own (Transport.AttemptTimeout).
	gh := github.NewClient(&http.Client{Transport: tr})
	if cfg.Token != "" {
		gh = gh.WithAuthToken(cfg.Token)
	}
	if cfg.APIURL != "" && strings.TrimRight(cfg.APIURL, "/") != "https://api.github.com" {
		u, err := url.Parse(strings.TrimRight(cfg.APIURL, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("api url %q: %w", cfg.APIURL, err)
		}
		gh.BaseURL = u
	}
	return &Client{gh: gh, owner: owner, repo: repo, Transport: tr}, nil
}

// ErrConflict is a contents write refused because the file changed since
// it was read (409, or 422 for a missing or stale sha).
var ErrConflict = errors.New("file changed since it was read")

// ErrNotFound is a 404.
var ErrNotFound = errors.New("not found")

func status(resp *github.Response) int {
	if resp == nil || resp.Response == nil {
		return 0
	}
	return resp.StatusCode
}

// ErrIssueRefused is an issue that takes no change: locked (403 naming
// the lock), gone (410) or deleted. The run reports and skips it.
var ErrIssueRefused = errors.New("issue refuses changes")

func wrap(what string, resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	switch s := status(resp); {
	case s == http.StatusNotFound:
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	case s == http.StatusGone, s == http.StatusForbidden && strings.Contains(strings.ToLower(err.Error()), "locked"):
		return fmt.Errorf("%s: %w (%w)", what, ErrIssueRefused, err)
	case s == http.StatusForbidden:
		if perr := permissionError(resp, err); perr != nil {
			return fmt.Errorf("%s: %w", what, perr)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// IssueLabels returns the labels on an issue.
func (c *Client) IssueLabels(ctx context.Context, issue int) ([]string, error) {
	// GET /repos/{owner}/{repo}/issues/{number}
	is, resp, err := c.gh.Issues.Get(rl(ctx), c.owner, c.repo, issue)
	if err != nil {
		return nil, wrap(fmt.Sprintf("get issue #%d", issue), resp, err)
	}
	var out []string
	for _, l := range is.Labels {
		out = append(out, l.GetName())
	}
	return out, nil
}

// Comments lists every comment of an issue, following pagination.
func (c *Client) Comments(ctx context.Context, issue int) ([]Existing, error) {
	var out []Existing
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		// GET /repos/{owner}/{repo}/issues/{number}/comments?per_page=100&page=N
		cs, resp, err := c.gh.Issues.ListComments(rl(ctx), c.owner, c.repo, issue, opt)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list comments of #%d", issue), resp, err)
		}
		for _, cm := range cs {
			out = append(out, Existing{ID: cm.GetID(), Author: cm.GetUser().GetLogin(), Body: cm.GetBody(), Created: cm.GetCreatedAt().Time})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// CreateComment posts a comment and returns its id. GitHub may answer a
// 5xx after it created the comment: before the post is sent again, the
// issue's comments are read, and a comment with exactly this body (every
// body this tool posts carries a marker naming what it is) is taken as
// the first attempt's, never posted twice.
func (c *Client) CreateComment(ctx context.Context, issue int, body string) (int64, error) {
	ctx = withCreateCheck(ctx, func(ctx context.Context) (*http.Response, error) {
		have, err := c.Comments(ctx, issue)
		if err != nil {
			return nil, err
		}
		for _, cm := range have {
			if cm.Body == body {
				return createdResponse(map[string]any{"id": cm.ID, "body": cm.Body, "user": map[string]string{"login": cm.Author}})
			}
		}
		return nil, nil
	})
	cm, resp, err := c.gh.Issues.CreateComment(rl(ctx), c.owner, c.repo, issue, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return 0, wrap(fmt.Sprintf("comment on #%d", issue), resp, err)
	}
	return cm.GetID(), nil
}

// EditComment replaces a comment's body.
func (c *Client) EditComment(ctx context.Context, id int64, body string) error {
	_, resp, err := c.gh.Issues.EditComment(rl(ctx), c.owner, c.repo, id, &github.IssueComment{Body: github.String(body)})
	return wrap(fmt.Sprintf("edit comment %d", id), resp, err)
}

// DeleteComment deletes a comment; one already gone is not an error.
func (c *Client) DeleteComment(ctx context.Context, id int64) error {
	resp, err := c.gh.Issues.DeleteComment(rl(ctx), c.owner, c.repo, id)
	if status(resp) == http.StatusNotFound {
		return nil
	}
	return wrap(fmt.Sprintf("delete comment %d", id), resp, err)
}

// React adds a reaction ("+1", "confused", ...) to a comment.
func (c *Client) React(ctx context.Context, id int64, content string) error {
	_, err := c.ReactOnce(ctx, id, content)
	return err
}

// ReactOnce is React, and reports whether the token had already given
// that reaction (GitHub answers 200 rather than 201).
func (c *Client) ReactOnce(ctx context.Context, id int64, content string) (existed bool, err error) {
	_, resp, err := c.gh.Reactions.CreateIssueCommentReaction(rl(ctx), c.owner, c.repo, id, content)
	return status(resp) == http.StatusOK, wrap(fmt.Sprintf("react to comment %d", id), resp, err)
}

// LabelSpec is a label to create on first use.
type LabelSpec struct {
	Name, Color, Description string
}

// EnsureLabel creates the repository label unless it exists.
func (c *Client) EnsureLabel(ctx context.Context, l LabelSpec) error {
	exists, err := c.LabelExists(ctx, l.Name)
	if err != nil || exists {
		return err
	}
	return c.CreateLabel(ctx, l)
}

// LabelExists reports whether the repository has label name (a read: a
// dry run asks it too, to plan the label's creation).
func (c *Client) LabelExists(ctx context.Context, name string) (bool, error) {
	_, resp, err := c.gh.Issues.GetLabel(rl(ctx), c.owner, c.repo, labelPath(name))
	if err == nil {
		return true, nil
	}
	if status(resp) != http.StatusNotFound {
		return false, wrap("get label "+name, resp, err)
	}
	return false, nil
}

// CreateLabel creates a repository label; one created meanwhile by an
// overlapping run (422) is as good.
func (c *Client) CreateLabel(ctx context.Context, l LabelSpec) error {
	_, resp, err := c.gh.Issues.CreateLabel(rl(ctx), c.owner, c.repo, &github.Label{
		Name: github.String(l.Name), Color: github.String(l.Color), Description: github.String(l.Description)})
	if status(resp) == http.StatusUnprocessableEntity {
		return nil // created meanwhile by an overlapping run
	}
	return wrap("create label "+l.Name, resp, err)
}

// AddLabels adds labels to an issue in one call.
func (c *Client) AddLabels(ctx context.Context, issue int, names []string) error {
	_, resp, err := c.gh.Issues.AddLabelsToIssue(rl(ctx), c.owner, c.repo, issue, names)
	return wrap(fmt.Sprintf("label #%d", issue), resp, err)
}

// RemoveLabel removes a label; GitHub's 404 for an absent label means the
// goal is reached.
func (c *Client) RemoveLabel(ctx context.Context, issue int, name string) error {
	_, err := c.Unlabel(ctx, issue, name)
	return err
}

// Unlabel removes a label and says whether it was there: a 404 (the label
// was not on the issue) reaches the goal but removed nothing, and is not
// counted as a removal.
func (c *Client) Unlabel(ctx context.Context, issue int, name string) (bool, error) {
	resp, err := c.gh.Issues.RemoveLabelForIssue(rl(ctx), c.owner, c.repo, issue, labelPath(name))
	if status(resp) == http.StatusNotFound {
		return false, nil
	}
	return err == nil, wrap(fmt.Sprintf("unlabel #%d", issue), resp, err)
}

// labelPath escapes a label name for a URL path: go-github v66 puts the
// name into the path as it is, so "needs info?" would end at the "?" and
// "a#b" at the "#", and a "/" would split the segment.
func labelPath(name string) string { return url.PathEscape(name) }

// GetFile reads a repository file through the contents API: its content
// and blob sha. ErrNotFound when absent.
func (c *Client) GetFile(ctx context.Context, path, ref string) ([]byte, string, error) {
	var opt *github.RepositoryContentGetOptions
	if ref != "" {
		opt = &github.RepositoryContentGetOptions{Ref: ref}
	}
	fc, _, resp, err := c.gh.Repositories.GetContents(rl(ctx), c.owner, c.repo, path, opt)
	if err != nil {
		return nil, "", wrap("read "+path, resp, err)
	}
	if fc == nil {
		return nil, "", fmt.Errorf("read %s: not a file", path)
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	return []byte(s), fc.GetSHA(), nil
}

// PutFile commits content to path with optimistic concurrency: sha is the
// blob the change was computed from ("" for a new file). A file changed in
// between gives ErrConflict, and the caller re-applies its operation to the
// fresh content.
func (c *Client) PutFile(ctx context.Context, path, branch, message string, content []byte, sha string) error {
	opt := &github.RepositoryContentFileOptions{Message: github.String(message), Content: content}
	if branch != "" {
		opt.Branch = github.String(branch)
	}
	var resp *github.Response
	var err error
	if sha == "" {
		_, resp, err = c.gh.Repositories.CreateFile(rl(ctx), c.owner, c.repo, path, opt)
	} else {
		opt.SHA = github.String(sha)
		_, resp, err = c.gh.Repositories.UpdateFile(rl(ctx), c.owner, c.repo, path, opt)
	}
	if s := status(resp); s == http.StatusConflict || s == http.StatusUnprocessableEntity {
		return fmt.Errorf("write %s: %w", path, ErrConflict)
	}
	return wrap("write "+path, resp, err)
}

// rl marks a call's context. It used to let go-github sleep until the
// primary quota's reset, which was unbounded and on the real clock; now
// the Transport does all waiting on rate limits, within max-wait, and
// hides an exhausted quota from go-github (Transport.noteQuota), so rl
// adds nothing: it stays as the one place to change should that return.
func rl(ctx context.Context) context.Context { return ctx }
