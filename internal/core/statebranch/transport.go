package statebranch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/process"
)

// Transport moves the state branch between this repository and its remote.
// It is the only part of a sync that talks to another machine; everything
// else is gitstore on local objects and refs.
type Transport interface {
	// Fetch updates the remote-tracking ref of branch from remote and
	// reports whether the remote has the branch at all.
	Fetch(ctx context.Context, remote, branch, tracking string) (exists bool, err error)
	// Push sends commit to remote's branch as a fast-forward. A push
	// refused because the remote moved returns ErrNonFastForward.
	Push(ctx context.Context, remote, branch, commit string) error
}

// ErrNonFastForward is a push that lost a race: the remote branch has
// commits we have not merged yet.
var ErrNonFastForward = errors.New("the remote state branch moved (non-fast-forward)")

// ErrTransport is a fetch or push that failed for another reason (the
// network, the remote, credentials, a protected branch).
var ErrTransport = errors.New("git transfer failed")

// GitCLI runs the user's git for fetch and push alone, so the credentials
// git already has (credential helpers, the SSH agent, insteadOf rewrites)
// serve the state branch too. It never writes FETCH_HEAD, runs no hooks
// and never prompts: a prompt in a hook would hang an agent's session.
type GitCLI struct {
	// Dir is the repository's work tree (git -C DIR).
	Dir string
	// Git is the program (default "git").
	Git string
}

func (g GitCLI) run(ctx context.Context, args ...string) (stdout, stderr []byte, err error) {
	prog := g.Git
	if prog == "" {
		prog = "git"
	}
	cmd := exec.CommandContext(ctx, prog, append([]string{"-C", g.Dir}, args...)...)
	// No terminal prompt: credential helpers and askpass programs the user
	// set up still answer, but nothing waits on a keyboard.
	cmd.Env = process.Env(ctx)
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0")
	// At the deadline the whole process group goes, with SIGKILL: a git
	// (or a wrapper of it) that ignores SIGTERM, and the ssh or credential
	// helper it started, would otherwise run on, and a hook must stay
	// within its sync budget.
	process.KillGroupOnCancel(cmd)
	// git writes into files, not pipes: what it said is all there the
	// moment it exits, however loaded the machine, and a child outside
	// its group (one that called setsid) holding them delays nothing.
	// Through pipes, Wait gave up on a copy still running after a
	// WaitDelay, and on a loaded machine that lost git's stderr: a fetch
	// of a branch the remote lacks ("couldn't find remote ref") read as a
	// failed transfer, so a fresh repository's first sync failed (issue 37).
	outF, err := scratchFile()
	if err != nil {
		return nil, nil, err
	}
	defer outF.discard()
	errF, err := scratchFile()
	if err != nil {
		return nil, nil, err
	}
	defer errF.discard()
	cmd.Stdout, cmd.Stderr = outF.f, errF.f
	err = cmd.Run()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w: %w", ErrTransport, ctx.Err())
	}
	stdout, rerr := outF.contents()
	stderr, rerr2 := errF.contents()
	if err == nil {
		err = errors.Join(rerr, rerr2)
	}
	return stdout, stderr, err
}

// scratch is a temporary file git's output goes to.
type scratch struct{ f *os.File }

// scratchOutputLimit bounds what is read back of git's output: fetch and
// push print a few lines (quiet, porcelain).
const scratchOutputLimit = 1 << 20

func scratchFile() (scratch, error) {
	f, err := os.CreateTemp("", "agentx-git-*")
	if err != nil {
		return scratch{}, fmt.Errorf("%w: a file for git's output: %w", ErrTransport, err)
	}
	return scratch{f}, nil
}

func (s scratch) contents() ([]byte, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read git's output: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(s.f, scratchOutputLimit))
	if err != nil {
		return nil, fmt.Errorf("read git's output: %w", err)
	}
	return data, nil
}

func (s scratch) discard() {
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
}

// Fetch runs
// git fetch --no-tags --no-write-fetch-head REMOTE +refs/heads/B:TRACKING.
func (g GitCLI) Fetch(ctx context.Context, remote, branch, tracking string) (bool, error) {
	// --no-filter: in a partial or treeless clone the remote's filter
	// would leave out the blobs and trees the merge reads; the state
	// branch is small, so it comes whole.
	_, stderr, err := g.run(ctx, "-c", "gc.auto=0", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-auto-maintenance", "--no-filter", remote, "+refs/heads/"+branch+":"+tracking)
	if err == nil {
		return true, nil
	}
	msg := strings.TrimSpace(string(stderr))
	if strings.Contains(msg, "couldn't find remote ref") {
		return false, nil
	}
	return false, transportErr("fetch", remote, branch, msg, err)
}

// Refetch fetches the branch's whole history again, without the clone's
// filter (git fetch --refetch --no-filter, git 2.36 or later): what a
// partial or treeless clone received before Fetch asked for everything
// lacks blobs or trees, which git does not send again by itself since
// it has the commits.
func (g GitCLI) Refetch(ctx context.Context, remote, branch, tracking string) error {
	_, stderr, err := g.run(ctx, "-c", "gc.auto=0", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-auto-maintenance", "--refetch", "--no-filter", remote, "+refs/heads/"+branch+":"+tracking)
	if err != nil {
		return transportErr("fetch --refetch", remote, branch, strings.TrimSpace(string(stderr)), err)
	}
	return nil
}

// Refetcher is a Transport that can fetch a branch's objects again
// (GitCLI): a sync reading an object its clone's filter left out asks it
// once.
type Refetcher interface {
	Refetch(ctx context.Context, remote, branch, tracking string) error
}

// Push runs git push --porcelain --no-verify REMOTE COMMIT:refs/heads/B,
// without force: git itself refuses to replace commits it has not seen.
func (g GitCLI) Push(ctx context.Context, remote, branch, commit string) error {
	stdout, stderr, err := g.run(ctx, "push", "--porcelain", "--quiet", "--no-verify", "--no-signed",
		remote, commit+":refs/heads/"+branch)
	if err == nil {
		return nil
	}
	out := string(stdout) + "\n" + string(stderr)
	if lostRace(out) {
		if lock := remoteLock(out); lock != "" {
			// A push landing at this instant holds it, or one killed on
			// the remote's side left it: only the give-up can tell.
			return &lockedError{lock: lock}
		}
		return ErrNonFastForward
	}
	msg := strings.TrimSpace(string(stderr) + "\n" + out)
	return transportErr("push", remote, branch, msg, err)
}

// remoteLock finds the ref lock git's receive-pack could not create
// ("cannot lock ref '...': Unable to create '/srv/r.git/./refs/heads/B.lock':
// File exists."), "" when out names none. (No regexp: a package-level one
// is an initialiser every agentx-hook start pays for.)
func remoteLock(out string) string {
	const before, after = "Unable to create '", ".lock': File exists"
	_, rest, ok := strings.Cut(out, before)
	if !ok {
		return ""
	}
	path, _, ok := strings.Cut(rest, after)
	if !ok || strings.ContainsAny(path, "'\n") {
		return ""
	}
	return path + ".lock"
}

// lockedError is a push rejected because the branch's ref lock exists on
// the remote: a lost race (ErrNonFastForward) that names the lock.
type lockedError struct{ lock string }

func (e *lockedError) Error() string {
	return fmt.Sprintf("%v: the remote's %s exists", ErrNonFastForward, e.lock)
}

func (e *lockedError) Unwrap() error { return ErrNonFastForward }

// lostRace reads git push --porcelain: "!<TAB>src:dst<TAB>[rejected]
// (fetch first)" when the remote has commits we lack, "(non-fast-forward)"
// when our tracking ref knew them, and "[remote rejected] (cannot lock
// ref ...)" when another push to the branch was landing at that instant
// (on GitHub: "incorrect old value provided"); the reason of a remote
// rejection may be only on stderr, so out is both streams.
func lostRace(out string) bool {
	if strings.Contains(out, "[rejected]") {
		return strings.Contains(out, "fetch first") || strings.Contains(out, "non-fast-forward")
	}
	if strings.Contains(out, "[remote rejected]") {
		for _, s := range []string{"cannot lock ref", "reference already exists", "but expected", "incorrect old value"} {
			if strings.Contains(out, s) {
				return true
			}
		}
	}
	return false
}

func transportErr(op, remote, branch, msg string, err error) error {
	if msg == "" {
		msg = err.Error()
	}
	e := errcode.Wrap(errcode.AgentError, fmt.Errorf("%w: %s", ErrTransport, firstLines(msg, 4)), "git %s %s %s", op, remote, branch)
	switch {
	case strings.Contains(msg, "No such remote") || strings.Contains(msg, "does not appear to be a git repository"):
		e.Hint = fmt.Sprintf("add the remote (`git remote add %s URL`) or set [github] remote in .agentx/agentx.toml", remote)
	case refused(msg):
		e.Hint = fmt.Sprintf("the state branch %s must be writable: allow pushes to it (no branch protection) and use credentials with contents: write", branch)
	default:
		e.Hint = "the next sync catches up; check the network and that `git fetch " + remote + "` works"
	}
	return e
}

// refused reports a push or fetch the server refused for who we are or
// what the branch allows, whatever the case GitHub prints it in: "GH006:
// Protected branch update failed", "GH013: Repository rule violations",
// "(protected branch hook declined)", "Permission ... denied", a 403.
func refused(msg string) bool {
	low := strings.ToLower(msg)
	for _, s := range []string{"protected branch", "gh006", "gh013", "rule violation", "permission", "denied", "403"} {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "; ")
}
