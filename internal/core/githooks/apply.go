package githooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
)

// Location is where git looks for hooks.
type Location struct {
	// Dir is the hooks directory, absolute.
	Dir string `json:"hooksDir"`
	// HooksPath is core.hooksPath as configured ("" when unset): lefthook,
	// husky and pre-commit setups often point it at their own directory,
	// and we write there, because that is the only place git looks.
	HooksPath string `json:"hooksPath"`
}

// Locate asks git where hooks live; relative answers are taken from base
// (the directory the runner runs in).
func Locate(ctx context.Context, r gitcmd.Runner, base string) (Location, error) {
	// git rev-parse --git-path hooks: honours core.hooksPath and a linked
	// worktree's common directory; relative to where it runs (base).
	// (--path-format=absolute would need git 2.31.)
	out, err := r.Git(ctx, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return Location{}, err
	}
	dir := strings.TrimSpace(out)
	if dir == "" {
		return Location{}, errors.New("git rev-parse --git-path hooks printed nothing")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	// git config core.hooksPath: exit status 1 means unset.
	hp, err := r.Git(ctx, "config", "core.hooksPath")
	if err != nil {
		hp = ""
	}
	return Location{Dir: filepath.Clean(dir), HooksPath: strings.TrimSpace(hp)}, nil
}

// Read takes a snapshot of the hooks directory: the files whose names
// start with one of Names. A missing directory is an empty snapshot.
func Read(dir string) (*Snapshot, error) {
	s := &Snapshot{Dir: dir, Files: map[string][]byte{}}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read hooks directory: %w", err)
	}
	for _, e := range ents {
		if !relevant(e.Name()) || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			// A dangling symlink is still a hook someone put there: plan
			// with it as a foreign file (renames move links as they are).
			data = nil
		}
		s.Files[e.Name()] = data
	}
	return s, nil
}

// MarkTracked fills s.Tracked: which of its files the repository tracks.
// Only a core.hooksPath can point inside the worktree, so without one git
// is not asked at all (the common case costs nothing).
func MarkTracked(ctx context.Context, r gitcmd.Runner, base string, s *Snapshot) {
	s.Tracked = map[string]bool{}
	if s.HooksPath == "" {
		return
	}
	// git ls-files -- DIR (paths relative to base, where the runner runs)
	out, err := r.Git(ctx, "ls-files", "--", s.Dir)
	if err != nil {
		return // outside the worktree: nothing there is tracked
	}
	for _, line := range gitcmd.Lines(out) {
		p := filepath.Join(base, filepath.FromSlash(line))
		if filepath.Dir(p) == filepath.Clean(s.Dir) {
			if _, ok := s.Files[filepath.Base(p)]; ok {
				s.Tracked[filepath.Base(p)] = true
			}
		}
	}
}

func relevant(name string) bool {
	for _, n := range Names() {
		if name == n || strings.HasPrefix(name, n+ChainedSuffix) {
			return true
		}
	}
	return false
}

// Apply carries out steps in dir. Renames move files (and symlinks) as
// they are, so an uninstall restores a chained hook byte for byte with its
// mode. A shim is written to a temporary file and renamed into place, so a
// concurrent git never runs half a hook. When a write fails after its
// foreign hook was moved aside, the move is undone.
func Apply(dir string, steps []Step) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create hooks directory: %w", err)
	}
	for _, st := range steps {
		var done []Op
		for _, op := range st.Ops {
			if err := applyOp(dir, st.Hook, op); err != nil {
				undo(dir, done)
				return fmt.Errorf("%s: %w", st.Hook, err)
			}
			done = append(done, op)
		}
	}
	return nil
}

func applyOp(dir, hook string, op Op) error {
	switch op.Op {
	case "rename":
		to := filepath.Join(dir, op.To)
		if _, err := os.Lstat(to); err == nil {
			return fmt.Errorf("rename %s: %s already exists", op.From, op.To)
		}
		return os.Rename(filepath.Join(dir, op.From), to)
	case "remove":
		return os.Remove(filepath.Join(dir, op.To))
	case "write":
		return writeShim(filepath.Join(dir, op.To), Shim(hook))
	}
	return fmt.Errorf("unknown operation %q", op.Op)
}

// undo reverses the renames of a step that failed half way.
func undo(dir string, done []Op) {
	for i := len(done) - 1; i >= 0; i-- {
		if op := done[i]; op.Op == "rename" {
			_ = os.Rename(filepath.Join(dir, op.To), filepath.Join(dir, op.From))
		}
	}
}

// writeShim writes through atomicfile.Write (temporary file, fsync,
// rename): the helper is about atomic files, not JSON.
func writeShim(path, text string) error {
	return atomicfile.Write(path, []byte(text), atomicfile.Options{Perm: 0o755, ClearDead: true})
}

// Open asks git where the hooks of the repository at root go and reads
// what is there, tracked files marked: what install, uninstall, status,
// setup and doctor all start from.
func Open(ctx context.Context, root string) (Location, *Snapshot, error) {
	git := gitcmd.Exec{Dir: root}
	loc, err := Locate(ctx, git, root)
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			// git's own words add only its plumbing (rev-parse, exit 128).
			return loc, nil, errcode.New(errcode.NotFound, "%s is not in a git repository", root)
		}
		return loc, nil, errcode.Wrap(errcode.NotFound, err, "%s is not in a git repository", root)
	}
	snap, err := Read(loc.Dir)
	if err != nil {
		return loc, nil, err
	}
	snap.HooksPath = loc.HooksPath
	MarkTracked(ctx, git, root, snap)
	return loc, snap, nil
}

// Notes is the advice an install (install) or uninstall leaves the user
// after steps at loc; noWorkspace and noBinary say whether .agentx/ and
// the agentx-hook the shims run are missing.
func Notes(install bool, loc Location, steps []Step, noWorkspace, noBinary bool) []string {
	var notes []string
	for _, st := range steps {
		if st.Kind == Conflict && install {
			notes = append(notes, st.Hook+": left alone; `agentx-hook hooks install --force` keeps both hooks and chains the current one")
		}
	}
	if !install {
		return notes
	}
	if loc.HooksPath != "" {
		m := Manager(loc.HooksPath, nil)
		if m == "" {
			m = "a hooks manager"
		}
		notes = append(notes, fmt.Sprintf("core.hooksPath is %s (%s): reinstalling it may rewrite these files; https://github.com/agentx-dev/agentx/blob/main/hooks/README.md shows how to call agentx-hook from its own configuration instead", loc.HooksPath, m))
	}
	if noWorkspace {
		notes = append(notes, "no .agentx/ here yet: the hooks do nothing until `agentx-hook init`")
	}
	if noBinary {
		notes = append(notes, "agentx-hook is not on PATH: the hooks will skip until it is, or set AGENTX_HOOK_BIN")
	}
	return notes
}

// Change installs (install; force as PlanInstall takes it) or uninstalls
// agentx's hooks in the repository at root: the plan, applied unless
// planOnly. The steps are returned with an Apply error too.
func Change(ctx context.Context, root string, install, force, planOnly bool) (Location, []Step, error) {
	loc, snap, err := Open(ctx, root)
	if err != nil {
		return loc, nil, err
	}
	name, steps := "uninstall", []Step(nil)
	if install {
		name, steps = "install", PlanInstall(snap, force)
	} else {
		steps = PlanUninstall(snap)
	}
	if planOnly {
		return loc, steps, nil
	}
	if err := Apply(loc.Dir, steps); err != nil {
		return loc, steps, fmt.Errorf("hooks %s in %s: %w", name, loc.Dir, err)
	}
	return loc, steps, nil
}
