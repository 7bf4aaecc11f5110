package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxInitAllocs bounds what one of our packages may allocate at start.
// Every hook and every git commit starts agentx-hook, and most commands
// need none of a package's tables: a regexp compiled at init costs tens to
// thousands of allocations (the audit id pattern was 1,700), a small map a
// handful.
const maxInitAllocs = 40

// TestStartAllocatesLittle runs this binary's initialisers (the same
// packages as agentx-hook's, without their tests) under
// GODEBUG=inittrace=1 and holds each of ours to maxInitAllocs.
func TestStartAllocatesLittle(t *testing.T) {
	t.Parallel()
	// Compiled here: a package-level regexp would be this package's own
	// initialiser, counted below.
	initLine := regexp.MustCompile(`^init (github\.com/agentx-dev/agentx/\S+) @\S+ ms, ([0-9.]+) ms clock, (\d+) bytes, (\d+) allocs`)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		seen++
		if allocs, _ := strconv.Atoi(m[4]); allocs > maxInitAllocs {
			t.Errorf("%s allocates %d times (%s bytes) at start, more than %d: build its tables on first use",
				m[1], allocs, m[3], maxInitAllocs)
		}
	}
	if seen == 0 {
		t.Fatalf("no initialiser of ours in the trace:\n%s", stderr.Bytes())
	}
}

// TestLinksNoGitConfigParser holds agentx-hook to go-git's object and
// pack formats: its storage/filesystem links go-git's config parser
// (gcfg, and with it encoding/gob) and URL regexps, whose initialisers
// cost every process a quarter of a millisecond at start (issue 35;
// gitstore/odb.go reads packs without them).
func TestLinksNoGitConfigParser(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for dep := range strings.SplitSeq(string(out), "\n") {
		switch {
		case dep == "encoding/gob", strings.HasPrefix(dep, "github.com/go-git/gcfg"),
			dep == "github.com/go-git/go-git/v5/config", strings.HasPrefix(dep, "github.com/go-git/go-git/v5/storage"),
			dep == "github.com/go-git/go-git/v5/internal/url":
			t.Errorf("agentx-hook links %s", dep)
		}
	}
}
