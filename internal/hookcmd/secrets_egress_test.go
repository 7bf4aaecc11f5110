package hookcmd

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// TestNoSecretReachesAgentxFiles plants one example of every kind of
// secret the sanitiser knows, and a private region, through every egress
// the core controls: a question, a topic, an answer, a responder's
// answer, memory add (text and file), memory capture, hook finish (spool,
// then memory) and the events the clarifications log. No file under
// .agentx may hold any of them afterwards.
func TestNoSecretReachesAgentxFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	answerFile := filepath.Join(t.TempDir(), "answer.txt")
	cfg := fmt.Sprintf("\n[responders.architect]\ncommand = [\"sh\", \"-c\", \"cat >/dev/null; cat \\\"$0\\\"\", %q]\ntimeout = \"20s\"\n", answerFile)
	appendTo(t, filepath.Join(root, ".agentx", "agentx.toml"), cfg)

	type plant = struct{ kind, in, value string }
	var plants []plant
	for _, k := range sanitize.Kinds() {
		for _, ex := range k.Examples {
			plants = append(plants, plant{k.ID, ex.In, ex.Secret()})
		}
	}
	plants = append(plants, plant{"private", "<PRIVATE >the private part</private>", "the private part"})

	dir := t.TempDir()
	var hookWarnings []string // what the full hook finishes warned, for a failure
	for i, p := range plants {
		issue := fmt.Sprint(100 + i)
		text := "We decided to use " + p.in + " for the deploy because it works."
		must := func(stdin string, args ...string) {
			t.Helper()
			out, e, code := runApp(t, root, nil, stdin, args...)
			if code != 0 {
				t.Fatalf("%s %v: %d\n%s%s", p.kind, args, code, out, e)
			}
			if args[0] == "hook" && e != "" {
				hookWarnings = append(hookWarnings, fmt.Sprintf("%s %v: %s", p.kind, args[:2], e))
			}
		}
		// Ledgers and events: a question, a topic (one-line examples fit
		// a topic), an answer; then a responder's answer.
		topic := "deploy"
		if !strings.Contains(p.in, "\n") && len(p.in) < 150 {
			topic = "deploy " + p.in
		}
		must("", "clarify", "request", "--issue", issue, "--from", "engineer", "--to", "product-manager", "--topic", topic,
			"--question", text, "--non-blocking")
		must("", "clarify", "answer", "CLR-"+issue+"-001", "--body", text)
		if err := os.WriteFile(answerFile, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		must("", "clarify", "request", "--issue", issue, "--from", "engineer", "--to", "architect", "--topic", topic,
			"--question", "Which key?", "--non-blocking")
		// Memory: add, add --file, capture --file; hook finish spools first.
		must("", "memory", "add", "--agent", "engineer", "--issue", issue, "--category", "decision", text)
		obs, _ := json.Marshal([]map[string]any{{"id": "obs-engineer-" + issue + "-1", "agent": "engineer", "issueNumber": 100 + i,
			"category": "key-fact", "content": "File: " + text, "summary": text, "timestamp": "2026-03-01T12:00:00.000Z", "tokens": 20}})
		obsFile := filepath.Join(dir, "obs-"+issue+".json")
		summary := filepath.Join(dir, "summary-"+issue+".md")
		writeTo(t, obsFile, string(obs))
		writeTo(t, summary, "## Decisions\n- "+text+"\n\n## Key Facts\n- The key of "+p.kind+" is "+p.in+" today.\n")
		must("", "memory", "add", "--file", obsFile)
		must("", "memory", "capture", "--agent", "architect", "--issue", issue, "--file", summary)
		// A deadline no load reaches: this hook must store, not spool for
		// later (the default 10 s was passed on a loaded machine, and the
		// count of spooled entries below was one too many).
		finished, e, code := runApp(t, root, nil, "", "hook", "finish", "--agent", "reviewer", "--issue", issue, "--summary-file", summary, "--deadline", "10m")
		if code != 0 {
			t.Fatalf("%s hook finish: %d\n%s%s", p.kind, code, finished, e)
		}
		if e != "" {
			hookWarnings = append(hookWarnings, fmt.Sprintf("%s hook finish: %s", p.kind, e))
		}
		// The full hook stores what it spooled: only the earlier
		// spool-only hooks' entries are left. What it printed says why not.
		if spooled, _ := filepath.Glob(filepath.Join(root, ".agentx", "memory", "spool", "*.spool")); len(spooled) != i {
			t.Fatalf("%s: after the full hook finish, %d entries in the spool, want %d; it printed:\n%s%s", p.kind, len(spooled), i, finished, e)
		}
		// A hook killed right after its spool write leaves the entry on disk.
		appendTo(t, summary, "- Spooled only.\n")
		if out, e, code := runApp(t, root, map[string]string{envSpoolOnly: "1"}, "", "hook", "finish", "--agent", "reviewer",
			"--issue", issue, "--summary-file", summary); code != 0 {
			t.Fatalf("%s spool only: %d\n%s%s", p.kind, code, out, e)
		}
	}
	if spooled, _ := filepath.Glob(filepath.Join(root, ".agentx", "memory", "spool", "*.spool")); len(spooled) != len(plants) {
		t.Fatalf("%d entries left in the spool, want %d; the full hooks warned:\n%s", len(spooled), len(plants), strings.Join(hookWarnings, "\n"))
	}

	stored := 0
	marks := map[string]int{} // by egress
	kept := map[[2]string]bool{}
	walkAgentx(t, root, func(rel, data string) {
		eg := egressOf(rel)
		for _, p := range plants {
			if strings.Contains(data, p.value) {
				t.Errorf("%s keeps the %s example (%q)", rel, p.kind, p.value)
				kept[[2]string{p.kind, eg}] = true
			}
		}
		n := strings.Count(data, "[REDACTED:")
		stored += n
		marks[eg] += n
	})
	if os.Getenv("AGENTX_UPDATE_DOCS") != "" {
		writeSecretTable(t, plantKinds(plants), marks, kept)
	}
	// The paths were taken: the marks are on disk, in ledgers and memory.
	if stored < len(plants)*5 {
		t.Fatalf("only %d marks under .agentx for %d plants: some path stored nothing", stored, len(plants))
	}
}

// egressOf names the egress a file under .agentx belongs to.
func egressOf(rel string) string {
	rel = filepath.ToSlash(rel)
	for _, e := range []struct{ prefix, name string }{
		{".agentx/state/clarifications/", "ledger"},
		{".agentx/state/events", "events"},
		{".agentx/state/audit", "audit trail"},
		{".agentx/state/answers/", "responder answers"},
		{".agentx/memory/spool/", "spool"},
		{".agentx/memory/manifest", "manifest"},
		{".agentx/memory/search.idx", "search index"},
		{".agentx/memory/recall", "recall journal"},
		{".agentx/memory/", "memory"},
	} {
		if strings.HasPrefix(rel, e.prefix) {
			return e.name
		}
	}
	return "other state"
}

func plantKinds(plants []struct{ kind, in, value string }) []string {
	var kinds []string
	for _, p := range plants {
		if len(kinds) == 0 || kinds[len(kinds)-1] != p.kind {
			kinds = append(kinds, p.kind)
		}
	}
	return kinds
}

// writeSecretTable writes docs/secrets.md: every kind the sanitiser's own
// table plants, by egress, as this test found the files.
func writeSecretTable(t *testing.T, kinds []string, marks map[string]int, kept map[[2]string]bool) {
	t.Helper()
	var egs []string
	for e := range marks {
		egs = append(egs, e)
	}
	sort.Strings(egs)
	var b strings.Builder
	b.WriteString("# Secrets by egress\n\nGenerated by `AGENTX_UPDATE_DOCS=1 go test ./internal/hookcmd/ -run TestNoSecretReachesAgentxFiles`:\n" +
		"one example of every kind in the sanitiser's own table (`sanitize.Kinds`), planted through every egress\n" +
		"(question, topic, answer, responder answer, memory add, memory add --file, memory capture, hook finish,\n" +
		"a spooled hook finish), then every file under `.agentx` read back. `redacted`: no file of that egress\n" +
		"holds the secret. gitleaks' " + sanitize.GitleaksVersion + " rules are checked against its own true and false\n" +
		"positives in `internal/core/sanitize` (TestGitleaksExamples), issue 26's 41 shapes in TestIssue26Kinds.\n\n")
	b.WriteString("| kind | " + strings.Join(egs, " | ") + " |\n|---|" + strings.Repeat("---|", len(egs)) + "\n")
	for _, k := range kinds {
		b.WriteString("| " + k + " |")
		for _, e := range egs {
			if kept[[2]string{k, e}] {
				b.WriteString(" **kept** |")
			} else {
				b.WriteString(" redacted |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| *marks found* |")
	for _, e := range egs {
		fmt.Fprintf(&b, " %d |", marks[e])
	}
	b.WriteString("\n")
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "secrets.md"), []byte(b.String()), 0o644); err != nil { //nolint:gosec // a doc
		t.Fatal(err)
	}
}

// walkAgentx calls fn with every file under root's .agentx.
func walkAgentx(t *testing.T, root string, fn func(rel, data string)) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, ".agentx"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(rel, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func writeTo(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
