// The end-to-end tests' build of agentx-action (TestMain, shared with a
// second copy of the suite, with coverage when AGENTX_E2E_COVER asks) and
// the test of that build's size. The simulated runner is in
// e2e_runner_test.go; the runs are in the files that use it
// (statebranch_e2e_test.go, guards_e2e_test.go, e2e_ops_test.go, ...).

package actioncmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// binary is the agentx-action built by cmd/agentx-action/build.sh, the
// same command the Dockerfile runs (and .ci/run's build step, whose cached
// packages it shares): the size test and every end-to-end run use this one
// build. It is instrumented for coverage only when AGENTX_E2E_COVER names
// a directory: then GOFLAGS adds -cover (the main package must be among
// -coverpkg, or the binary writes nothing), every run writes its counters
// to coverDir, TestMain prints the percentage the end-to-end runs reach
// and copies the counters there. By default it is not: a coverage build
// compiles every package of the module a second time, which took this
// package from seconds to minutes on a fresh machine (issue 37).
var binary, coverDir string

func TestMain(m *testing.M) {
	ramTmp := testenv.UseRAMTempDir()
	dir, err := os.MkdirTemp("", "agentx-action-e2e-")
	if err != nil {
		panic(err)
	}
	coverDir = filepath.Join(dir, "cover")
	if err := os.Mkdir(coverDir, 0o755); err != nil {
		panic(err)
	}
	keep := os.Getenv("AGENTX_E2E_COVER")
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "cmd", "agentx-action", "build.sh")
	build := func(out string) error {
		cmd := exec.Command("sh", script, out, "e2e")
		if keep != "" {
			cmd.Env = append(os.Environ(), "GOFLAGS=-cover -coverpkg=github.com/agentx-dev/agentx/...")
		}
		cmd.Stderr = os.Stderr
		return cmd.Run()
	}
	// Built once per content of the module (the script is part of it),
	// shared with later runs and a second copy of the suite (issue 37).
	how := "build.sh e2e"
	if keep != "" {
		how += " with coverage"
	}
	if binary, err = testenv.SharedBinary("agentx-action", how, build); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Most tests here wait on the agentx-action processes they start (and
	// on the client's real retry backoff).
	testenv.RaiseParallel(4)
	code := m.Run()
	if keep != "" {
		// go tool covdata percent -i DIR: the statements the e2e runs
		// reached, per package (merge with a unit-test profile through
		// go tool covdata textfmt -i DIR -o e2e.out).
		if out, err := exec.Command("go", "tool", "covdata", "percent", "-i", coverDir).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "covdata: %v\n%s", err, out)
		} else {
			fmt.Fprintf(os.Stderr, "coverage of the agentx-action end-to-end runs (go tool covdata percent):\n%s", e2eCoverage(out))
		}
		_ = exec.Command("cp", "-r", coverDir+"/.", keep).Run()
	}
	os.RemoveAll(dir)
	ramTmp()
	os.Exit(code)
}

// e2eCoverage keeps the lines of the packages the action links.
func e2eCoverage(out []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "internal/sync") || strings.Contains(line, "internal/actioncmd") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func TestBuiltBinaryIsSmallAndStatic(t *testing.T) {
	t.Parallel()
	fi, err := os.Stat(binary)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("agentx-action: %d bytes (%.1f MB)", fi.Size(), float64(fi.Size())/(1<<20))
	// The image's build (a coverage build, with AGENTX_E2E_COVER, is larger).
	if fi.Size() >= 20<<20 {
		t.Fatalf("agentx-action is %d bytes, the budget is 20 MB", fi.Size())
	}
	out, err := exec.Command(binary, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "agentx-action e2e" {
		t.Fatalf("--version: %q %v", out, err)
	}
}
