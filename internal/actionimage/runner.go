// Package actionimage checks the Action's Docker image end to end: it
// starts the in-repo fake GitHub on 127.0.0.1, makes a checkout cloned from
// a bare remote, and runs the image the way GitHub's runner runs a Docker
// action (the workspace and the runner's file-command, workflow and home
// directories mounted under /github, owned by the runner's uid 1001; every
// input as INPUT_<NAME> with action.yml's defaults; GITHUB_* variables;
// --workdir /github/workspace), for the commands sync, ingest, monitor and
// digest, checking what each did on the fake. cmd/agentx-action-imagecheck
// is its program (scripts/ci/action.sh runs it); like the demo it links the
// fake, so it is not part of agentx-action.
package actionimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Mount is a bind mount: a host directory seen at Container inside.
type Mount struct{ Host, Container string }

// Container is one container start as the runner makes it.
type Container struct {
	Env     map[string]string // as the process inside sees them
	Mounts  []Mount
	Workdir string
	Args    []string
}

// Result is what a container start gave.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Engine starts a container and waits for it.
type Engine interface {
	Run(ctx context.Context, c Container) (Result, error)
}

// Docker runs the image with a docker client, with the flags GitHub's
// runner uses for a Docker action (--rm, --workdir, -v per mount, -e NAME
// with the value in the client's environment, so no value shows in a
// process listing) plus --network host: the fake listens on the host's
// loopback, where the runner's container reaches api.github.com through
// its own network.
type Docker struct {
	Client string // the docker binary
	Image  string
}

// Args is the docker command line for c (without the client).
func (d Docker) Args(c Container) []string {
	args := []string{"run", "--rm", "--network", "host", "--workdir", c.Workdir}
	for _, m := range c.Mounts {
		args = append(args, "-v", m.Host+":"+m.Container)
	}
	for _, k := range sortedKeys(c.Env) {
		args = append(args, "-e", k)
	}
	args = append(args, d.Image)
	return append(args, c.Args...)
}

// Run implements Engine.
func (d Docker) Run(ctx context.Context, c Container) (Result, error) {
	cmd := exec.CommandContext(ctx, d.Client, d.Args(c)...)
	cmd.Env = os.Environ()
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
		// docker run's own failures (125: the daemon refused, 126/127:
		// the entrypoint would not start) are not the action's exit codes.
		if res.Code >= 125 {
			return res, fmt.Errorf("docker run %s: exit %d: %s", d.Image, res.Code, strings.TrimSpace(res.Stderr))
		}
	case err != nil:
		return res, fmt.Errorf("docker run %s: %w", d.Image, err)
	}
	return res, nil
}

// StartTime is the median wall time of n starts of the image running
// `--version` (container created, started, waited for and removed): what
// a step pays before the action's first line.
func (d Docker) StartTime(ctx context.Context, n int) (time.Duration, error) {
	var times []time.Duration
	for range n {
		start := time.Now()
		out, err := exec.CommandContext(ctx, d.Client, "run", "--rm", "--network", "none", d.Image, "--version").CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("docker run %s --version: %w: %s", d.Image, err, out)
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2], nil
}

// mapPath turns a path inside the container into the host's, through
// the mounts (for reading what the action wrote, and for the in-process
// engine of the tests).
func mapPath(mounts []Mount, p string) (string, bool) {
	for _, m := range mounts {
		if p == m.Container {
			return m.Host, true
		}
		if rest, ok := strings.CutPrefix(p, m.Container+"/"); ok {
			return filepath.Join(m.Host, filepath.FromSlash(rest)), true
		}
	}
	return "", false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
