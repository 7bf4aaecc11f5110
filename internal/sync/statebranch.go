package sync

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
)

// The GitHub client side of the state branch: GitHub Mode's shared state
// (ledgers, memory issue files, the sync state) lives on one branch that
// no code branch carries, read and written through the Git Data API (refs,
// trees, blobs, commits). No checkout is needed, a run makes one commit
// whatever the number of files, and the ref only moves fast-forward: a run
// that lost a race re-reads and re-applies its operation.

// DefaultStateBranch is where the state lives unless [github]
// state_branch says otherwise.
const DefaultStateBranch = statebranch.DefaultBranch

// ErrProtected is a state branch GitHub refuses to move for this token:
// a protected branch, or a token without contents: write. Retrying cannot
// help, so it is never treated as a conflict.
var ErrProtected = errors.New("state branch refuses updates")

// inlineLimit is the size up to which a file goes into the tree request
// itself; larger ones are uploaded as blobs first (the contents API stops
// at 1 MB, tree entries are not meant for large payloads).
const inlineLimit = 256 << 10

// StateSnapshot is the state branch as one run read it.
type StateSnapshot struct {
	// Commit is the branch's tip ("" when the branch does not exist yet).
	Commit string
	// Tree is the tip's root tree (the base of the next tree written).
	Tree string
	// Blobs maps each file's path in the branch to its blob id.
	Blobs map[string]string
	// Partial: Blobs lists the ledgers and the sync state only (read from
	// the tip's sync state, not its tree; Syncer.QuickSnapshot).
	Partial bool
}

// Paths returns the snapshot's file paths with prefix, sorted.
func (s *StateSnapshot) Paths(prefix string) []string {
	var out []string
	for p := range s.Blobs {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// StateBranch reads and writes one state branch.
type StateBranch struct {
	GH     *Client
	Branch string
	// blobs caches blob contents by id: blobs never change, so a re-read
	// after a lost race fetches only what the other run wrote.
	blobs map[string][]byte
}

// NewStateBranch returns the store for branch (DefaultStateBranch when
// empty).
func NewStateBranch(gh *Client, branch string) *StateBranch {
	if branch == "" {
		branch = DefaultStateBranch
	}
	return &StateBranch{GH: gh, Branch: branch, blobs: map[string][]byte{}}
}

func (b *StateBranch) ref() string { return "heads/" + b.Branch }

// Read returns the branch's tip and file list: one ref read and one
// recursive tree read (none more when the branch does not exist).
func (b *StateBranch) Read(ctx context.Context) (*StateSnapshot, error) {
	// GET /repos/{owner}/{repo}/git/ref/heads/{branch}
	ref, resp, err := b.GH.gh.Git.GetRef(rl(ctx), b.GH.owner, b.GH.repo, b.ref())
	if status(resp) == http.StatusNotFound {
		return &StateSnapshot{Blobs: map[string]string{}}, nil
	}
	if err != nil {
		return nil, wrap("read state branch "+b.Branch, resp, err)
	}
	snap := &StateSnapshot{Commit: ref.GetObject().GetSHA(), Blobs: map[string]string{}}
	// GET /repos/{owner}/{repo}/git/trees/{commit}?recursive=1 (a commit is
	// a tree-ish: no separate commit read is needed)
	tree, resp, err := b.GH.gh.Git.GetTree(rl(ctx), b.GH.owner, b.GH.repo, snap.Commit, true)
	if err != nil {
		return nil, wrap("read state branch tree "+snap.Commit, resp, err)
	}
	if tree.GetTruncated() {
		return nil, fmt.Errorf("read state branch %s: the tree listing was truncated by GitHub (over 100,000 entries)", b.Branch)
	}
	snap.Tree = tree.GetSHA()
	for _, e := range tree.Entries {
		if e.GetType() == "blob" {
			snap.Blobs[e.GetPath()] = e.GetSHA()
		}
	}
	return snap, nil
}

// Tip returns the branch's tip commit with one ref read ("" when the
// branch does not exist).
func (b *StateBranch) Tip(ctx context.Context) (string, error) {
	// GET /repos/{owner}/{repo}/git/ref/heads/{branch}
	ref, resp, err := b.GH.gh.Git.GetRef(rl(ctx), b.GH.owner, b.GH.repo, b.ref())
	if status(resp) == http.StatusNotFound {
		return "", nil
	}
	if err != nil {
		return "", wrap("read state branch "+b.Branch, resp, err)
	}
	return ref.GetObject().GetSHA(), nil
}

// Head returns the branch's tip commit and its message in one call
// ("" when the branch does not exist): the branches endpoint carries the
// tip's message, which tells a sync whether the last commit was its own
// record of a complete mirror.
func (b *StateBranch) Head(ctx context.Context) (sha, message string, err error) {
	sha, _, message, err = b.head(ctx)
	return sha, message, err
}

// head is Head with the tip's root tree.
func (b *StateBranch) head(ctx context.Context) (sha, tree, message string, err error) {
	// GET /repos/{owner}/{repo}/branches/{branch}
	br, resp, err := b.GH.gh.Repositories.GetBranch(rl(ctx), b.GH.owner, b.GH.repo, b.Branch, 0)
	if status(resp) == http.StatusNotFound {
		return "", "", "", nil
	}
	if err != nil {
		return "", "", "", wrap("read state branch "+b.Branch, resp, err)
	}
	c := br.GetCommit()
	return c.GetSHA(), c.GetCommit().GetTree().GetSHA(), c.GetCommit().GetMessage(), nil
}

// ReadFile returns a file's content in snap (nil, nil when absent).
func (b *StateBranch) ReadFile(ctx context.Context, snap *StateSnapshot, path string) ([]byte, error) {
	sha, ok := snap.Blobs[path]
	if !ok {
		return nil, nil
	}
	if data, ok := b.blobs[sha]; ok {
		return data, nil
	}
	// GET /repos/{owner}/{repo}/git/blobs/{sha}: base64, any size up to
	// 100 MB (the contents API stops at 1 MB)
	blob, resp, err := b.GH.gh.Git.GetBlob(rl(ctx), b.GH.owner, b.GH.repo, sha)
	if err != nil {
		return nil, wrap("read "+path+" from "+b.Branch, resp, err)
	}
	data, err := decodeBlob(blob)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", path, b.Branch, err)
	}
	b.blobs[sha] = data
	return data, nil
}

func decodeBlob(blob *github.Blob) ([]byte, error) {
	if blob.GetEncoding() != "base64" {
		return []byte(blob.GetContent()), nil
	}
	return decodeBase64Lines(blob.GetContent())
}

// Commit writes changes (path -> content; nil content deletes the path) as
// one commit on top of snap.Commit and moves the branch to it,
// fast-forward only. It returns the new tip. ErrConflict means the branch
// moved since snap was read: read again and re-apply. ErrProtected means
// it will never move for this token.
func (b *StateBranch) Commit(ctx context.Context, snap *StateSnapshot, changes map[string][]byte, message string) (*StateSnapshot, error) {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var entries []*github.TreeEntry
	for _, p := range paths {
		content := changes[p]
		e := &github.TreeEntry{Path: github.String(p), Mode: github.String("100644"), Type: github.String("blob")}
		switch {
		case content == nil:
			if _, ok := snap.Blobs[p]; !ok {
				continue // deleting what is not there
			}
			// go-github sends "sha": null for an entry with neither sha nor
			// content, which deletes the path.
		case len(content) > inlineLimit:
			sha, err := b.createBlob(ctx, p, content)
			if err != nil {
				return nil, err
			}
			e.SHA = github.String(sha)
		default:
			e.Content = github.String(string(content))
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return snap, nil
	}
	base := snap.Tree
	// POST /repos/{owner}/{repo}/git/trees with base_tree: only the changed
	// paths travel
	tree, resp, err := b.GH.gh.Git.CreateTree(rl(ctx), b.GH.owner, b.GH.repo, base, entries)
	if err != nil {
		return nil, b.writeErr("write the state tree", resp, err)
	}
	commit := &github.Commit{Message: github.String(message), Tree: &github.Tree{SHA: tree.SHA}}
	if snap.Commit != "" {
		commit.Parents = []*github.Commit{{SHA: github.String(snap.Commit)}}
	}
	// POST /repos/{owner}/{repo}/git/commits
	c, resp, err := b.GH.gh.Git.CreateCommit(rl(ctx), b.GH.owner, b.GH.repo, commit, nil)
	if err != nil {
		return nil, b.writeErr("write the state commit", resp, err)
	}
	if snap.Commit == "" {
		// POST /repos/{owner}/{repo}/git/refs: the branch starts as an
		// orphan history; another run creating it first is a lost race.
		_, resp, err = b.GH.gh.Git.CreateRef(rl(ctx), b.GH.owner, b.GH.repo, &github.Reference{
			Ref: github.String("refs/" + b.ref()), Object: &github.GitObject{SHA: c.SHA}})
	} else {
		// PATCH /repos/{owner}/{repo}/git/refs/heads/{branch} force=false
		_, resp, err = b.GH.gh.Git.UpdateRef(rl(ctx), b.GH.owner, b.GH.repo, &github.Reference{
			Ref: github.String("refs/" + b.ref()), Object: &github.GitObject{SHA: c.SHA}}, false)
	}
	if err != nil {
		return nil, b.writeErr("move "+b.Branch, resp, err)
	}
	next := &StateSnapshot{Commit: c.GetSHA(), Tree: tree.GetSHA(), Blobs: make(map[string]string, len(snap.Blobs)+len(changes))}
	for p, sha := range snap.Blobs {
		next.Blobs[p] = sha
	}
	for p, content := range changes {
		if content == nil {
			delete(next.Blobs, p)
			continue
		}
		sha := blobSHA(content)
		next.Blobs[p] = sha
		b.blobs[sha] = content
	}
	return next, nil
}

func (b *StateBranch) createBlob(ctx context.Context, path string, content []byte) (string, error) {
	// POST /repos/{owner}/{repo}/git/blobs
	blob, resp, err := b.GH.gh.Git.CreateBlob(rl(ctx), b.GH.owner, b.GH.repo, &github.Blob{
		Content: github.String(encodeBase64(content)), Encoding: github.String("base64")})
	if err != nil {
		return "", b.writeErr("upload "+path, resp, err)
	}
	b.blobs[blob.GetSHA()] = content
	return blob.GetSHA(), nil
}

// writeErr sorts a failed write into a lost race (retry), a branch that
// will never move for this token (say how to fix it), or anything else.
func (b *StateBranch) writeErr(what string, resp *github.Response, err error) error {
	text := strings.ToLower(err.Error())
	switch s := status(resp); {
	case s == http.StatusUnprocessableEntity && strings.Contains(text, "protected branch"),
		s == http.StatusConflict && strings.Contains(text, "protected"),
		// A ruleset answers 409 or 422 "Repository rule violations found"
		// ("Cannot update this protected ref", "Changes must be made
		// through a pull request"): as final as classic protection.
		(s == http.StatusConflict || s == http.StatusUnprocessableEntity) && strings.Contains(text, "repository rule violations"):
		return fmt.Errorf("%s: %w: %s is a protected branch; exempt it from branch protection (or from the ruleset) for github-actions, or set [github] state_branch to an unprotected branch",
			what, ErrProtected, b.Branch)
	case s == http.StatusForbidden && (strings.Contains(text, "not accessible") || strings.Contains(text, "permission")):
		perr := permissionError(resp, err)
		if perr == nil || len(perr.Accepted) == 0 {
			perr = &PermissionError{Message: "Resource not accessible by integration", Accepted: [][]string{{"contents=write"}}}
		}
		return fmt.Errorf("%s: %w: %w: the token may not write to %s; give the workflow `permissions: contents: write` (a pull request from a fork gets a read-only token)",
			what, ErrProtected, perr, b.Branch)
	case s == http.StatusUnprocessableEntity && (strings.Contains(text, "fast forward") || strings.Contains(text, "already exists")):
		return fmt.Errorf("%s: %w", what, ErrConflict)
	}
	return wrap(what, resp, err)
}

// StateChange computes a run's changes from the state as read: it may read
// files through read, and returns path -> new content (nil deletes).
// Returning errNoChange or an empty map writes nothing.
type StateChange func(ctx context.Context, snap *StateSnapshot, read func(path string) ([]byte, error)) (map[string][]byte, error)

// Update reads the branch, lets change compute its changes from exactly
// what it read, and commits them; when another run moved the branch in
// between, it starts again from the fresh state, so the operation is
// re-applied, never a stale file replayed. It returns the attempts made
// and the branch as it stands after the commit (as read when nothing
// changed).
func (b *StateBranch) Update(ctx context.Context, message string, change StateChange) (int, *StateSnapshot, error) {
	return b.UpdateFrom(ctx, nil, message, change)
}

// UpdateFrom is Update starting from snap, the branch as this run already
// read it (nil: read it first), which saves the first attempt's reads.
func (b *StateBranch) UpdateFrom(ctx context.Context, snap *StateSnapshot, message string, change StateChange) (int, *StateSnapshot, error) {
	for attempt := 1; attempt <= commitAttempts; attempt++ {
		if snap == nil || attempt > 1 {
			var err error
			if snap, err = b.Read(ctx); err != nil {
				return attempt, nil, err
			}
		}
		read := func(path string) ([]byte, error) { return b.ReadFile(ctx, snap, path) }
		changes, err := change(ctx, snap, read)
		if errors.Is(err, errNoChange) || (err == nil && len(changes) == 0) {
			return attempt, snap, nil
		}
		if err != nil {
			return attempt, snap, err
		}
		next, err := b.Commit(ctx, snap, changes, message)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return attempt, snap, err
		}
		return attempt, next, nil
	}
	return commitAttempts, nil, fmt.Errorf("update %s: still conflicting after %d attempts", b.Branch, commitAttempts)
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// decodeBase64Lines decodes GitHub's base64, which arrives wrapped in
// lines.
func decodeBase64Lines(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(s))
}
