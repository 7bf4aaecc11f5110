package hookcmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// seededRemoteCmd is the script command `seededremote FILE BARE CLONE...`:
// BARE is a bare repository whose main holds one commit, "first", adding
// README.md with FILE's content, by Ada <ada@example.com>; each CLONE is a
// clone of it, as `git clone -q BARE CLONE` makes one. With FILE "-", BARE
// is empty (`git init -q --bare -b main BARE`, then the clones). It stands
// for the lines the GitHub Mode scripts began with:
//
//	exec git init -q --bare -b main BARE
//	exec git init -q -b main seed
//	cp FILE seed/README.md
//	exec git -C seed add README.md
//	exec git -C seed commit -q -m first
//	exec git -C seed push -q ../BARE main
//	exec git clone -q BARE CLONE
//
// which git runs once per test binary (and content): each script gets a
// copy, its clones' origin pointed at its own BARE. Twenty-odd processes a
// script, the push's and the clones' transport most of them (issue 37).
func seededRemoteCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: seededremote FILE BARE CLONE...")
	}
	var content []byte // nil: an empty remote
	if args[0] != "-" {
		var err error
		content, err = os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
	}
	fx := seededRemoteFixture(content)
	tmpl, err := fx.get()
	ts.Check(err)
	bare := ts.MkAbs(args[1])
	ts.Check(os.CopyFS(bare, os.DirFS(filepath.Join(tmpl, "remote.git"))))
	for _, c := range args[2:] {
		dir := ts.MkAbs(c)
		ts.Check(os.CopyFS(dir, os.DirFS(filepath.Join(tmpl, "clone"))))
		cfg := filepath.Join(dir, ".git", "config")
		data, err := os.ReadFile(cfg)
		ts.Check(err)
		from := []byte("url = " + filepath.Join(tmpl, "remote.git") + "\n")
		if !bytes.Contains(data, from) {
			ts.Fatalf("%s has no %q", cfg, from)
		}
		ts.Check(os.WriteFile(cfg, bytes.Replace(data, from, []byte("url = "+bare+"\n"), 1), 0o644))
	}
}

var seededRemotes struct {
	sync.Mutex
	byContent map[[32]byte]*fixture
}

// seededRemoteFixture is the fixture of seededremote for one README.md
// (nil: none, an empty remote).
func seededRemoteFixture(content []byte) *fixture {
	var sum [32]byte // the empty remote's key
	if content != nil {
		sum = sha256.Sum256(content)
	}
	seededRemotes.Lock()
	defer seededRemotes.Unlock()
	if seededRemotes.byContent == nil {
		seededRemotes.byContent = map[[32]byte]*fixture{}
	}
	if f := seededRemotes.byContent[sum]; f != nil {
		return f
	}
	f := &fixture{name: fmt.Sprintf("remote-%x", sum[:6]), build: func(dir string) error {
		return buildSeededRemote(dir, content)
	}}
	seededRemotes.byContent[sum] = f
	return f
}

// buildSeededRemote runs the lines seededRemoteCmd stands for in dir (only
// the bare repository's and the clone's for nil content), as the scripts
// ran them (their environment: HOME of their own, no system
// configuration, the quiet global one, Ada as author and committer).
func buildSeededRemote(dir string, content []byte) error {
	home := filepath.Join(dir, "home")
	seed := filepath.Join(dir, "seed")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+quietGitConfigFile,
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	steps := []struct {
		dir  string
		args []string
	}{
		{dir, []string{"init", "-q", "--bare", "-b", "main", "remote.git"}},
		{dir, []string{"init", "-q", "-b", "main", "seed"}},
		{seed, []string{"add", "README.md"}},
		{seed, []string{"commit", "-q", "-m", "first"}},
		{seed, []string{"push", "-q", "../remote.git", "main"}},
		{dir, []string{"clone", "-q", "remote.git", "clone"}},
	}
	if content == nil {
		steps = []struct {
			dir  string
			args []string
		}{steps[0], steps[5]}
	}
	for i, s := range steps {
		if i == 2 && content != nil {
			if err := os.WriteFile(filepath.Join(seed, "README.md"), content, 0o644); err != nil {
				return err
			}
		}
		cmd := exec.CommandContext(context.Background(), "git", s.args...)
		cmd.Dir, cmd.Env = s.dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(s.args, " "), err, out)
		}
	}
	return nil
}
