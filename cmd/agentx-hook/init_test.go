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

// ourInit is one of our packages' initialisers as GODEBUG=inittrace=1
// reports it.
type ourInit struct {
	pkg           string
	bytes, allocs int
}

// ourInits runs this binary's initialisers (the same packages as
// agentx-hook's, without their tests) under GODEBUG=inittrace=1 and
// returns ours.
func ourInits(t *testing.T) []ourInit {
	t.Helper()
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
	var inits []ourInit
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		b, _ := strconv.Atoi(m[3])
		a, _ := strconv.Atoi(m[4])
		inits = append(inits, ourInit{pkg: m[1], bytes: b, allocs: a})
	}
	if len(inits) == 0 {
		t.Fatalf("no initialiser of ours in the trace:\n%s", stderr.Bytes())
	}
	return inits
}

// TestStartAllocatesLittle holds each of our initialisers to
// maxInitAllocs.
func TestStartAllocatesLittle(t *testing.T) {
	t.Parallel()
	for _, in := range ourInits(t) {
		if in.allocs > maxInitAllocs {
			t.Errorf("%s allocates %d times (%d bytes) at start, more than %d: build its tables on first use",
				in.pkg, in.allocs, in.bytes, maxInitAllocs)
		}
	}
}

// withInitialiser are the packages of ours that may still have an
// initialiser. Any other pays for one at every start for nothing: besides
// what it computes, an initialiser's first call faults in a page of its
// code, a few microseconds each (issue 35: `version` 1.40x -> 1.35x a
// hello-world when eight went). memory's and memindex's are the search
// engine's CRC-32C table, built on first use (sync.OnceValue).
var withInitialiser = map[string]bool{
	"github.com/agentx-dev/agentx/cmd/agentx-hook":        true, // this test binary's own
	"github.com/agentx-dev/agentx/internal/core/memory":   true,
	"github.com/agentx-dev/agentx/internal/core/memindex": true,
}

// TestFewInitialisers holds our packages to static data: a package-level
// regexp, map literal or sync.OnceValue is work (and allocations) in the
// package's initialiser at every start; lazy.Value and a switch are laid
// out by the compiler.
func TestFewInitialisers(t *testing.T) {
	t.Parallel()
	for _, in := range ourInits(t) {
		if !withInitialiser[in.pkg] {
			t.Errorf("%s has an initialiser (%d allocations): declare its package-level values as static data (lazy.Value, a switch for a map literal)",
				in.pkg, in.allocs)
		}
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
		case dep == "html":
			// Its initialiser builds a replacer at every start; the
			// digest escapes with its own (escapeHTML).
			t.Errorf("agentx-hook links %s", dep)
		}
	}
}
