package clarifyprocs

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger/ledgertest"
	"github.com/agentx-dev/agentx/internal/testbin"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// hook is the real agentx-hook TestMain found or built.
var hook string

func TestMain(m *testing.M) {
	cleanup := testenv.UseRAMTempDir()
	var err error
	if hook, err = testbin.SharedHook(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		cleanup()
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

func TestProcesses8x50OneIssue(t *testing.T) {
	t.Parallel()
	concurrentRequests(t, 8, 50, []int{42})
}

func TestProcesses8x50FourIssues(t *testing.T) {
	t.Parallel()
	concurrentRequests(t, 8, 50, []int{1, 2, 3, 4})
}

// concurrentRequests starts workers goroutines, each running perWorker
// `clarify request` processes one after the other over issues in turn,
// then checks every ledger holds its share exactly once.
func concurrentRequests(t *testing.T, workers, perWorker int, issues []int) {
	root := t.TempDir()
	if out, err := exec.Command(hook, "--root", root, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	var wg sync.WaitGroup
	errs := make(chan string, workers*perWorker)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				issue := issues[(w+i)%len(issues)]
				cmd := exec.Command(hook, "--root", root, "clarify", "request", "--issue", strconv.Itoa(issue),
					"--from", "engineer", "--to", "architect", "--topic", fmt.Sprintf("w%d-%d", w, i), "--question", "q?", "--non-blocking")
				// What is checked is that no request is lost or applied
				// twice, not the lock's default 5 s wait: on a shared 2-core
				// machine, race-built, a waiter among seven can be passed
				// over for longer than that.
				cmd.Env = append(os.Environ(), "AGENTX_LOCK_WAIT_MS=60000")
				out, err := cmd.CombinedOutput()
				if err != nil {
					errs <- fmt.Sprintf("worker %d request %d: %v: %s", w, i, err, out)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	total := workers * perWorker
	for _, issue := range issues {
		ledgertest.CheckIDs(t, root, issue, total/len(issues))
	}
}
