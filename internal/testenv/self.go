package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// RunSelf starts this test binary again once per env (the process's
// environment plus env), each running the tests run matches, all at once
// (the concurrency tests' writers in real processes), and waits for every
// one: a child that fails fails t, with what it printed.
func RunSelf(t testing.TB, run string, envs ...[]string) {
	t.Helper()
	type child struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	children := make([]*child, len(envs))
	for i, env := range envs {
		c := &child{cmd: exec.CommandContext(t.Context(), os.Args[0], "-test.run="+run)}
		c.cmd.Env = append(os.Environ(), env...)
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	for i, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child %d (%v): %v\n%s", i, envs[i], err, c.out.Bytes())
		}
	}
}
