//go:build realhost

package realhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The pinned host versions (scripts/ci/hostsuite.sh installs these).
const (
	claudeVersion  = "2.1.328"
	codexVersion   = "0.169.0"
	copilotVersion = "1.0.102"
)

// issue is the issue the workspace's branch names (57-login-lockout).
const issue = "57"

// bins holds agentx-hook and agentx-mcp, built from the tree once.
var bins string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agentx-realhost-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bins = dir
	for _, c := range []string{"agentx-hook", "agentx-mcp"} {
		build := exec.CommandContext(context.Background(), "go", "build", "-o", filepath.Join(dir, c), "github.com/agentx-dev/agentx/cmd/"+c)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", c+":", err)
			return 1
		}
	}
	code := m.Run()
	if path := os.Getenv("AGENTX_REALHOST_SUMMARY"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		writeSummary(f)
		_ = f.Close()
	}
	return code
}

// hostsDir is where the hosts are installed: $AGENTX_HOSTS_DIR, else
// ~/.cache/agentx-hosts (scripts/ci/hostsuite.sh's default).
func hostsDir(t testing.TB) string {
	if d := os.Getenv("AGENTX_HOSTS_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, ".cache", "agentx-hosts")
}

// hostBin finds an installed host's command, failing (never skipping)
// when it is not there.
func hostBin(t testing.TB, pkgDir, version, bin string) string {
	path := filepath.Join(hostsDir(t), pkgDir+"-"+version, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("host %s %s is not installed at %s (run scripts/ci/hostsuite.sh, which installs it): %v", bin, version, path, err)
	}
	return path
}

// repeat is how many first sessions each host runs (AGENTX_HOST_REPEAT,
// default 5): a capture race that loses one in five fails the suite.
func repeat(t testing.TB) int {
	if s := os.Getenv("AGENTX_HOST_REPEAT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("AGENTX_HOST_REPEAT=%q: want a positive number", s)
		}
		return n
	}
	return 5
}

// workspace is a throwaway HOME with a fresh git repository in it.
type workspace struct {
	t     *testing.T
	home  string
	repo  string
	path  string // PATH of the host's environment
	env   []string
	model *fakeModel
}

func newWorkspace(t *testing.T, model *fakeModel, hostBinDir string) *workspace {
	home := t.TempDir()
	// Codex and Copilot resolve symlinks in the paths they report.
	home, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	w := &workspace{t: t, home: home, repo: filepath.Join(home, "repo"), model: model}
	// agentx-hook where `go install` and a login profile put it: the
	// login shell Codex runs (bash -lc) rebuilds PATH from the profile.
	local := filepath.Join(home, ".local", "bin")
	must(t, os.MkdirAll(local, 0o755))
	for _, c := range []string{"agentx-hook", "agentx-mcp"} {
		must(t, os.Symlink(filepath.Join(bins, c), filepath.Join(local, c)))
	}
	must(t, os.WriteFile(filepath.Join(home, ".profile"),
		[]byte("# what a user adds after go install\nexport PATH=\"$HOME/.local/bin:$PATH\"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[user]\n\tname = Realhost Test\n\temail = realhost@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644))
	w.path = strings.Join([]string{local, hostBinDir, filepath.Dir(nodePath(t)), "/usr/local/bin", "/usr/bin", "/bin"}, ":")
	w.env = []string{
		"HOME=" + home,
		"PATH=" + w.path,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TMPDIR=" + os.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
	}
	must(t, os.MkdirAll(w.repo, 0o755))
	w.run("git", "init", "-q")
	must(t, os.WriteFile(filepath.Join(w.repo, "README.md"), []byte("# login service\n"), 0o644))
	w.run("git", "add", "README.md")
	w.run("git", "commit", "-q", "-m", "first commit")
	w.run("git", "checkout", "-q", "-b", issue+"-login-lockout")
	w.run("agentx-hook", "init")
	return w
}

func nodePath(t testing.TB) string {
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: the hosts need it: %v", err)
	}
	return p
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// command is a process in the repository with the workspace's
// environment and extra variables.
func (w *workspace) command(extra []string, name string, args ...string) *exec.Cmd {
	path := name
	if !strings.Contains(name, "/") {
		for _, dir := range filepath.SplitList(w.path) {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				path = filepath.Join(dir, name)
				break
			}
		}
	}
	cmd := exec.CommandContext(context.Background(), path, args...)
	cmd.Dir = w.repo
	cmd.Env = append(append([]string(nil), w.env...), extra...)
	return cmd
}

// run runs a command that must succeed and returns its stdout.
func (w *workspace) run(name string, args ...string) string {
	w.t.Helper()
	cmd := w.command(nil, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// hostRun is one finished host session.
type hostRun struct {
	Out, Err string
	Took     time.Duration
	CPU      time.Duration
}

// session runs a host to the end (its exit is the event waited for); the
// bound is generous and only stops a hung host.
func (w *workspace) session(extra []string, name string, args ...string) hostRun {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := w.command(extra, name, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Dir = w.repo
	cmd.Env = append(append([]string(nil), w.env...), extra...)
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := hostRun{Out: out.String(), Err: errb.String(), Took: time.Since(start)}
	if cmd.ProcessState != nil {
		r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		w.t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, err, r.Out, r.Err)
	}
	return r
}

// memoryHolds reports whether a stored observation holds the text.
func (w *workspace) memoryHolds(text string) bool {
	found := false
	_ = filepath.WalkDir(filepath.Join(w.repo, ".agentx", "memory"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found || strings.Contains(p, string(filepath.Separator)+"spool") {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), text) {
			found = true
		}
		return nil
	})
	return found
}

// ledger is the clarification ledger of the workspace's issue.
func (w *workspace) ledger() string {
	b, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", "state", "clarifications", "issue-"+issue+".json"))
	return string(b)
}

// hookLog is the hook log's lines.
func (w *workspace) hookLog() []map[string]any {
	b, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", "hook-log.jsonl"))
	var out []map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// doctorReport is `doctor --json`.
type doctorReport struct {
	OK       bool
	Fails    int
	Warns    int
	Findings []struct {
		Check, Status, Message, Fix string
	}
}

func (w *workspace) doctor() (doctorReport, string) {
	cmd := w.command(nil, "agentx-hook", "doctor", "--json")
	out, _ := cmd.Output() // exit 1 on a failing finding: the report says which
	var r doctorReport
	if err := json.Unmarshal(out, &r); err != nil {
		w.t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	return r, string(out)
}

// hostOK reports whether doctor has findings for the host (host/NAME,
// and its gates, NAME-...: codex-trust, copilot-trust) and all are ok.
func (r doctorReport) hostOK(host string) bool {
	seen := false
	for _, f := range r.Findings {
		if f.Check == "host/"+host || strings.HasPrefix(f.Check, "host/"+host+"/") || strings.HasPrefix(f.Check, host+"-") {
			seen = true
			if f.Status != "ok" {
				return false
			}
		}
	}
	return seen
}

func (w *workspace) hookLogText() string {
	b, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", "hook-log.jsonl"))
	return string(b)
}

// agentStatus is the engineer's status in agent-status.json.
func (w *workspace) agentStatus() string {
	b, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", "state", "agent-status.json"))
	var m map[string]struct{ Status string }
	_ = json.Unmarshal(b, &m)
	return m["engineer"].Status
}

// mentions reports whether a finding that is not ok speaks of the word.
func (r doctorReport) mentions(word string) bool {
	for _, f := range r.Findings {
		if f.Status != "ok" && strings.Contains(strings.ToLower(f.Message+" "+f.Fix), word) {
			return true
		}
	}
	return false
}
