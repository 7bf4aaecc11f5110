package hookcmd

import (
	"strings"
	"testing"
)

// gh's habits (issue 37): `--json FIELDS --jq EXPR` together (the fields
// picked, then the filter run on them), and `--json FIELDS` with a space,
// which here is a switch and a stray argument: the usage error then says
// how to write it.
func TestJSONFieldsAsGhUsersWriteThem(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if _, e, code := runApp(t, root, nil, "", "clarify", "request", "--issue", "4", "--from", "engineer", "--to", "architect",
		"--topic", "api", "--question", "REST or gRPC?", "--non-blocking"); code != 0 {
		t.Fatalf("request: %s", e)
	}
	out, e, code := runApp(t, root, nil, "", "clarify", "--issue", "4", "--json=clarifications", "--jq", ".clarifications | length")
	if code != 0 || out != "1\n" {
		t.Errorf("--json=clarifications --jq: exit %d\n%s%s", code, out, e)
	}
	out, e, code = runApp(t, root, nil, "", "clarify", "--issue", "4", "--json=issueNumber", "--jq", "keys")
	if code != 0 || strings.Contains(out, "clarifications") || !strings.Contains(out, "issueNumber") {
		t.Errorf("--jq sees only the fields --json picked: exit %d\n%s%s", code, out, e)
	}
	out, e, code = runApp(t, root, nil, "", "ready", "--json", "issues")
	if code != 2 || !strings.Contains(e, "--json=issues") {
		t.Errorf("ready --json issues: exit %d, want 2 and a usage error naming --json=issues:\n%s", code, e)
	}
	if !strings.Contains(out, `"code": "USAGE"`) || !strings.Contains(out, "--json=issues") {
		t.Errorf("ready --json issues: the error document on stdout is missing or lacks the hint:\n%s", out)
	}
}
