package hookcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Issue 32: `verify` beside writer processes that remove and compact
// observations reports no error. Remove and compact appended their trail
// lines after their pending markers went, and a verify reading between the
// two found an observation gone from its file, no marker and no line:
// OBSERVATION_DELETED on a workspace nobody tampered with. The test is
// bounded by iterations: verify runs a fixed number of times, each writer
// at most a fixed number of rounds, and the verifies start once every
// writer has finished a round (so writers are at work throughout).
func TestVerifyBesideRemoveAndCompactWriters(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	env := append(os.Environ(), "AGENTX_LOCK_WAIT_MS=60000")
	hook := func(args ...string) (string, error) {
		cmd := exec.Command("agentx-hook", append([]string{"--root", root}, args...)...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return string(out), err
	}
	const (
		writers   = 2
		maxRounds = 60 // a writer's bound, should the verifies be slow
		verifies  = 8
	)
	var done atomic.Bool
	var started, wg sync.WaitGroup
	started.Add(writers)
	errs := make(chan string, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			issue := strconv.Itoa(10 + w)
			first := true
			defer func() {
				if first {
					started.Done()
				}
			}()
			for r := 0; r < maxRounds && !done.Load(); r++ {
				// Related decisions for compact to merge, and a fact that
				// is removed again.
				for i := range 3 {
					if _, err := hook("memory", "add", "--agent", "engineer", "--issue", issue, "--category", "decision",
						fmt.Sprintf("chose the cache layer design variant %d of round %d for speed", i, r)); err != nil {
						errs <- fmt.Sprintf("writer %d add: %v", w, err)
						return
					}
				}
				out, err := hook("memory", "add", "--agent", "engineer", "--issue", issue, "--category", "key-fact",
					fmt.Sprintf("writer %d fact %d to be removed", w, r))
				if err != nil {
					errs <- fmt.Sprintf("writer %d add: %v", w, err)
					return
				}
				if _, err := hook("memory", "remove", strings.TrimSpace(out)); err != nil {
					errs <- fmt.Sprintf("writer %d remove: %v", w, err)
					return
				}
				if _, err := hook("memory", "compact", "--issue", issue); err != nil {
					errs <- fmt.Sprintf("writer %d compact: %v", w, err)
					return
				}
				if first {
					first = false
					started.Done()
				}
			}
		}()
	}
	started.Wait()
	var failures []string
	for i := range verifies {
		out, _ := hook("verify", "--json") // exit 1 on errors: the report says which
		var rep struct {
			Errors   int `json:"errors"`
			Problems []struct {
				Code, Severity, Path, ID, Message string
			} `json:"problems"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			failures = append(failures, fmt.Sprintf("verify %d: %v\n%s", i, err, out))
			continue
		}
		for _, p := range rep.Problems {
			if p.Severity == "error" {
				failures = append(failures, fmt.Sprintf("verify %d: %s %s %s: %s", i, p.Code, p.Path, p.ID, p.Message))
			}
		}
		if rep.Errors > 0 && len(failures) == 0 {
			failures = append(failures, fmt.Sprintf("verify %d: %d errors\n%s", i, rep.Errors, out))
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if len(failures) > 0 {
		t.Fatalf("verify beside remove and compact writers:\n%s", strings.Join(failures, "\n"))
	}
	// Once the writers are done, the workspace verifies clean.
	if out, err := hook("verify"); err != nil {
		t.Fatalf("verify after the writers: %v\n%s", err, out)
	}
}
