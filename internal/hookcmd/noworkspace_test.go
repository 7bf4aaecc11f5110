package hookcmd

import (
	"bytes"
	"context"
	"time"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// TestNoCommandButInitCreatesAWorkspace: issue 26 item 4. With a root that
// holds no .agentx/ — a directory outside any git work tree, `--root /`,
// `--root /etc`, AGENTX_ROOT=/etc — every command but init (and setup,
// which edits host files) fails with a clear "no workspace" error, and no
// .agentx/ appears; hooks do nothing and say so.
func TestNoCommandButInitCreatesAWorkspace(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	cmds := [][]string{
		{"memory", "add", "--agent", "engineer", "--issue", "1", "a fact"},
		{"clarify", "request", "--issue", "1", "--from", "engineer", "--to", "architect", "--topic", "t", "--question", "q"},
		{"clarify"}, {"clarify", "--issue", "1"},
		{"checkpoint", "create", "-m", "x"},
		{"state"}, {"events"}, {"monitor"}, {"digest"}, {"verify"}, {"audit"}, {"memory", "search", "x"},
	}
	type rootCase struct {
		name, flag string
		env        map[string]string
		dir        string
	}
	cases := []rootCase{
		{"a directory outside git", outside, nil, outside},
		{"AGENTX_ROOT outside git", "", map[string]string{"AGENTX_ROOT": outside}, outside},
	}
	for _, sys := range []string{"/", "/etc"} {
		if _, err := os.Stat(filepath.Join(sys, ".agentx")); err == nil {
			continue // made by an older agentx: not this test's to judge
		}
		cases = append(cases, rootCase{"--root " + sys, sys, nil, sys}, rootCase{"AGENTX_ROOT=" + sys, "", map[string]string{"AGENTX_ROOT": sys}, sys})
	}
	for _, c := range cases {
		for _, args := range cmds {
			out, e, code := runAt(t, outside, c.flag, c.env, args...)
			if code == 0 || !strings.Contains(e, "no workspace") {
				t.Errorf("%s: %v: exit %d, want a no-workspace error\n%s%s", c.name, args, code, out, e)
			}
			if _, err := os.Stat(filepath.Join(c.dir, ".agentx")); err == nil {
				t.Fatalf("%s: %v created %s/.agentx", c.name, args, c.dir)
			}
		}
		out, e, code := runAt(t, outside, c.flag, c.env, "hook", "finish", "--agent", "engineer", "--issue", "1")
		if code != 0 || !strings.Contains(e+out, "no .agentx/") {
			t.Errorf("%s: hook finish: exit %d\n%s%s", c.name, code, out, e)
		}
		if _, err := os.Stat(filepath.Join(c.dir, ".agentx")); err == nil {
			t.Fatalf("%s: hook finish created %s/.agentx", c.name, c.dir)
		}
	}
	// init, asked explicitly, creates it; then the commands work.
	if _, e, code := runAt(t, outside, outside, nil, "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if _, e, code := runAt(t, outside, outside, nil, "memory", "add", "--agent", "engineer", "--issue", "1", "a fact"); code != 0 {
		t.Fatalf("memory add after init: %s", e)
	}
}

// runAt is runApp with the root flag and the working directory apart.
func runAt(t *testing.T, cwd, rootFlag string, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	if rootFlag != "" {
		args = append([]string{"--root", rootFlag}, args...)
	}
	return runAppIn(t, cwd, env, args...)
}

func runAppIn(t *testing.T, cwd string, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: cwd,
		Clock:  clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
		Getenv: func(k string) string { return env[k] }}
	code := a.Run(context.Background(), args)
	return out.String(), errb.String(), code
}

// A subcommand a group does not have is a usage error listing the group's
// subcommands, outside a workspace too: a typo is a typo (it said "no
// workspace", issue 37).
func TestUnknownSubcommandOutsideAWorkspace(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	for _, args := range [][]string{{"checkpoint", "nosuch"}, {"memory", "nosuch"}, {"clarify", "list"}, {"artifact", "nosuch", "--json"}} {
		out, e, code := runAt(t, outside, outside, nil, args...)
		if code != 2 || !strings.Contains(e, "unknown "+args[0]+" subcommand \""+args[1]+"\"") || strings.Contains(e, "no workspace") {
			t.Errorf("%v: exit %d, want 2 and the usage error\n%s%s", args, code, out, e)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, ".agentx")); err == nil {
		t.Fatal("a usage error created .agentx/")
	}
}
