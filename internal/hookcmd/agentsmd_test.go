package hookcmd

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestAgentsMDMatchesOutput holds the repository's AGENTS.md to what the
// commands print: every `"key": value` it shows an agent is a key of a
// real --json document with that value, the error document has the keys
// it names, and the exit codes are the ones it gives. AGENTS.md once said
// "schema_version": 1 where every document says "schemaVersion": 2, and
// an agent that believed it read nothing (issue 37).
func TestAgentsMDMatchesOutput(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	seen := map[string]map[string]bool{} // key -> JSON values printed
	collect := func(what, out string) {
		t.Helper()
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: not one JSON document: %v\n%s", what, err, out)
		}
		walkKeys(v, seen)
	}
	out, e, code := runApp(t, root, nil, "", "state", "--json")
	if code != 0 {
		t.Fatalf("state --json: %d %s", code, e)
	}
	collect("state --json", out)
	// A memory entry changed by hand reads as "tampered".
	out, e, code = runApp(t, root, nil, "", "memory", "add", "--agent", "engineer", "--issue", "1", "--category", "decision", "Chose gRPC streaming for telemetry")
	if code != 0 {
		t.Fatalf("memory add: %s", e)
	}
	id := strings.TrimSpace(out)
	issueFile := filepath.Join(root, ".agentx", "memory", "issue-1.json")
	data, err := os.ReadFile(issueFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(issueFile, bytes.ReplaceAll(data, []byte("gRPC streaming"), []byte("REST polling")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, e, code = runApp(t, root, nil, "", "memory", "get", id, "--json")
	if code != 0 {
		t.Fatalf("memory get: %s", e)
	}
	collect("memory get --json", out)
	// A failure: exit 1, the error document on stdout, error: CODE first
	// on stderr.
	out, e, code = runApp(t, root, nil, "", "clarify", "answer", "CLR-1-009", "--body", "x", "--json")
	if code != 1 || !strings.HasPrefix(e, "error: NOT_FOUND: ") {
		t.Errorf("a failure: exit %d, stderr %q; AGENTS.md says exit 1 and `error: CODE: message` first", code, e)
	}
	collect("a failure's --json", out)
	failure := out
	// A usage mistake: exit 2, code USAGE.
	out, _, code = runApp(t, root, nil, "", "clarify", "--bogus", "--json")
	if code != 2 || !strings.Contains(out, `"code": "USAGE"`) {
		t.Errorf("a usage mistake: exit %d, %s; AGENTS.md says exit 2 and code USAGE", code, out)
	}

	pairs := regexp.MustCompile(`"([A-Za-z_]+)": ("[^"]*"|-?[0-9]+)`).FindAllStringSubmatch(string(doc), -1)
	if len(pairs) == 0 {
		t.Fatal("AGENTS.md shows no JSON key; this test reads them from `\"key\": value`")
	}
	for _, p := range pairs {
		key, value := p[1], p[2]
		switch {
		case seen[key] == nil:
			t.Errorf("AGENTS.md shows %s, and no --json document has the key %q (keys: %s)", p[0], key, sortedKeys(seen))
		case !seen[key][value]:
			t.Errorf("AGENTS.md shows %s; the documents print %q as %s", p[0], key, sortedKeys(seen[key]))
		}
	}
	// The error document's shape: {"error": {"code", "message", "hint"}}.
	shape := regexp.MustCompile(`\{"error": \{([^}]*)\}\}`).FindStringSubmatch(string(doc))
	if shape == nil {
		t.Fatal(`AGENTS.md no longer shows the error document as {"error": {"code", ...}}: update this test`)
	}
	var errDoc struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(failure), &errDoc); err != nil {
		t.Fatal(err)
	}
	for _, k := range regexp.MustCompile(`"([A-Za-z_]+)"`).FindAllStringSubmatch(shape[1], -1) {
		if _, ok := errDoc.Error[k[1]]; !ok {
			t.Errorf("AGENTS.md's error document has %q; the printed one does not: %s", k[1], failure)
		}
	}
}

// walkKeys records every object key in v with the JSON of its values.
func walkKeys(v any, seen map[string]map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			if b, err := json.Marshal(x); err == nil {
				seen[k][string(b)] = true
			}
			walkKeys(x, seen)
		}
	case []any:
		for _, x := range v {
			walkKeys(x, seen)
		}
	}
}

func sortedKeys[V any](m map[string]V) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}
