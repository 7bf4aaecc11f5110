package hookcmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheFourBypassingEgressesAreSanitised: the four egresses issue 26
// found around the sanitiser — the unknown keys of a `memory add --file`
// record, `--as NAME` (the entry's `from` and the audit actor),
// `checkpoint create -m` (the git commit and the audit detail) — keep no
// secret on disk or in git. (Capture's cut before redaction is
// capture.TestFailedCommandRedactedBeforeCut.)
func TestTheFourBypassingEgressesAreSanitised(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	const (
		inKey   = "ghp_Q7lM2nP4rS6tU8vW0xY3zB5cD7eF9gH1jK3L"  // an unknown key's value
		inName  = "ghp_X9kQ2mW7pL4tY8zB3nR5vC6dF1gH0jK2mL4N"  // --as
		inMsg   = "ghp_R3sT6uV9wX2yZ5aB8cD1eF4gH7iJ0kL3mN6oP" // checkpoint create -m
		nested  = "DB_PASS=letmein"
		secrets = 3
	)
	must := func(args ...string) string {
		t.Helper()
		out, e, code := runApp(t, root, nil, "", args...)
		if code != 0 {
			t.Fatalf("%v: %d\n%s%s", args, code, out, e)
		}
		return out
	}
	file := filepath.Join(t.TempDir(), "obs.json")
	writeTo(t, file, `[{"id":"obs-engineer-7-1","agent":"engineer","issueNumber":7,"category":"key-fact",`+
		`"content":"Deploys go through the staging gate.","timestamp":"2026-03-01T12:00:00.000Z","tokens":8,`+
		`"note":"token `+inKey+`","meta":{"env":["`+nested+`"]}}]`)
	must("memory", "add", "--file", file)
	must("clarify", "request", "--issue", "7", "--from", "engineer", "--to", "product-manager", "--topic", "gate",
		"--question", "Which gate?", "--non-blocking")
	// A person's explicit override (issue 32: an agent name that is not
	// the target is refused); the name after human: is stored sanitised.
	must("clarify", "answer", "CLR-7-001", "--as", "human:"+inName, "--body", "The staging gate.")
	must("checkpoint", "create", "-m", "before "+inMsg)

	check := func(where, data string) {
		for _, s := range []string{inKey, inName, inMsg, "letmein"} {
			if strings.Contains(data, s) {
				t.Errorf("%s keeps %q", where, s)
			}
		}
	}
	marks := 0
	walkAgentx(t, root, func(rel, data string) {
		check(rel, data)
		marks += strings.Count(data, "[REDACTED:")
	})
	log, err := exec.Command("git", "-C", root, "log", "--format=%B", "refs/agentx/checkpoints").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, log)
	}
	check("the checkpoint's commit message", string(log))
	if !strings.Contains(string(log), "[REDACTED:") {
		t.Errorf("the checkpoint's message lost its mark: %s", log)
	}
	if marks < secrets {
		t.Errorf("%d marks under .agentx: some egress stored nothing", marks)
	}
}
