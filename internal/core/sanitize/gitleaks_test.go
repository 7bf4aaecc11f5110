package sanitize

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// gitleaksExamples are gitleaks' own true and false positives per rule
// (testdata/gitleaks_examples.json, written by go generate from the rule
// sources of the pinned release).
func gitleaksExamples(t *testing.T) map[string]struct{ TPs, FPs []string } {
	t.Helper()
	data, err := os.ReadFile("testdata/gitleaks_examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]struct{ TPs, FPs []string }
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestGitleaksExamples: every true positive of every rule is redacted by
// Secrets (by that rule or another), and no false positive is redacted
// by its own rule.
func TestGitleaksExamples(t *testing.T) {
	t.Parallel()
	ex := gitleaksExamples(t)
	index := map[string]int{}
	for i, r := range gitleaksRules {
		index[r.ID] = i
	}
	compiled := glCompiledRules()
	tps, fps := 0, 0
	for id, e := range ex {
		i, ok := index[id]
		if !ok {
			t.Errorf("examples of %s, a rule the table lacks", id)
			continue
		}
		for _, tp := range e.TPs {
			tps++
			got := Secrets(tp)
			if !strings.Contains(got, redactedPrefix) {
				t.Errorf("%s: true positive kept:\n%s", id, tp)
			}
			if again := Secrets(got); again != got {
				t.Errorf("%s: not idempotent: %q -> %q", id, got, again)
			}
		}
		for _, fp := range e.FPs {
			fps++
			if got := glApply(fp, i, &compiled[i]); got != fp {
				t.Errorf("%s: false positive redacted:\n%s\n%s", id, fp, got)
			}
		}
	}
	t.Logf("%d rules, %d true positives, %d false positives", len(ex), tps, fps)
}

// FuzzGenericPrefilter holds genericMayMatch to be a necessary condition:
// wherever gitleaks' generic regexp matches a line, it says the line may
// match.
func FuzzGenericPrefilter(f *testing.F) {
	for _, s := range []string{"password = hunter2hunter2", `"api_key": "abcdef0123456789"`, "TOKEN:::=abc123def456ghi",
		"auth\t'  || 'q7Lm2Np4Rs6Tu8", "key\n=\n0123456789abc", "secret_name_here_and_more_x = 0123456789"} {
		f.Add(s)
	}
	var generic int
	for i, r := range gitleaksRules {
		if r.ID == genericRule {
			generic = i
		}
	}
	c := &glCompiledRules()[generic]
	c.compile(&gitleaksRules[generic])
	f.Fuzz(func(t *testing.T, line string) {
		if c.re.MatchString(line) && !genericMayMatch(line) {
			t.Fatalf("the generic rule matches %q, the prefilter says it cannot", line)
		}
	})
}
