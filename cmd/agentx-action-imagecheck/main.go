// Command agentx-action-imagecheck runs the Action's Docker image the way
// GitHub's runner runs a Docker action, against the in-repo fake GitHub,
// for sync, ingest, monitor and digest (package actionimage), then reports
// the image's size and start time. scripts/ci/action.sh builds the image
// and runs this. It links the fake, so it is its own program.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentx-dev/agentx/internal/actionimage"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("agentx-action-imagecheck", flag.ContinueOnError)
	docker := fs.String("docker", "docker", "the docker client")
	image := fs.String("image", "", "the image to check (required), built from the project's Dockerfile")
	repo := fs.String("repo", ".", "the repository root (its action.yml gives the inputs and their defaults)")
	starts := fs.Int("starts", 5, "container starts timed for the start-time median")
	asJSON := fs.Bool("json", false, "print the figures as one JSON object on the last line")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: agentx-action-imagecheck --image NAME [--docker PATH] [--repo DIR] [--starts N] [--json]")
		fmt.Fprintln(fs.Output(), "Runs the image as GitHub's runner runs a Docker action (uid 1001 mounts when run as root),")
		fmt.Fprintln(fs.Output(), "against a fake GitHub on 127.0.0.1, for sync, ingest, monitor and digest; exits 1 on any failure.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *image == "" || fs.NArg() > 0 || *starts < 1 {
		fmt.Fprintln(os.Stderr, "error: usage: --image is required, --starts at least 1, and no arguments")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := actionimage.Docker{Client: *docker, Image: *image}
	start := time.Now()
	err := actionimage.Check(ctx, actionimage.Options{Engine: d, RepoRoot: *repo, Out: os.Stdout, Chown: os.Geteuid() == 0})
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		fmt.Println("0 passed, 1 failed")
		return 1
	}
	checked := time.Since(start)
	size, err := exec.CommandContext(ctx, *docker, "image", "inspect", "-f", "{{.Size}}", *image).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: docker image inspect %s: %v\n", *image, err)
		return 1
	}
	bytes, _ := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64)
	median, err := d.StartTime(ctx, *starts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		return 1
	}
	fmt.Printf("image %s: %.1f MB; start (docker run --rm, --version) median of %d: %d ms; 4 steps in %.1f s\n",
		*image, float64(bytes)/1e6, *starts, median.Milliseconds(), checked.Seconds())
	if *asJSON {
		out, _ := json.Marshal(map[string]any{"image": *image, "size_bytes": bytes, "start_ms": median.Milliseconds(), "steps_s": checked.Seconds()})
		fmt.Println(string(out))
	}
	fmt.Println("4 passed, 0 failed")
	return 0
}
