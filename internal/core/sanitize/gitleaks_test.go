package sanitize

import (
	"encoding/json"
	"os"
	"reflect"
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
	compiled := glCompiledRules.Get()
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

// FuzzGenericPrefilter holds genericSites to be a necessary condition:
// wherever gitleaks' generic regexp matches a line, it says the line may
// match.
func FuzzGenericPrefilter(f *testing.F) {
	for _, s := range []string{"password = hunter2hunter2", `"api_key": "abcdef0123456789"`, "TOKEN:::=abc123def456ghi",
		"auth\t'  || 'q7Lm2Np4Rs6Tu8", "key\n=\n0123456789abc", "secret_name_here_and_more_x = 0123456789"} {
		f.Add(s)
	}
	_, c := genericCompiled()
	f.Fuzz(func(t *testing.T, line string) {
		if c.re.MatchString(line) && len(genericSites(line)) == 0 {
			t.Fatalf("the generic rule matches %q, the prefilter says it cannot", line)
		}
	})
}

// TestGenericWindowsMatchTheLine holds genericReplace (windows around the
// names) to glReplace over the whole line, on gitleaks' examples, the
// corpus and long lines of many pairs.
func TestGenericWindowsMatchTheLine(t *testing.T) {
	t.Parallel()
	r, c := genericCompiled()
	var lines []string
	for _, e := range gitleaksExamples(t) {
		for _, x := range append(e.TPs, e.FPs...) {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	for _, f := range []string{"testdata/corpus/repo.txt", "testdata/corpus/code.txt"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	lines = append(lines, strings.Repeat(`"apiKey":"q7Lm2Np4Rs6Tu8Vw0", "x": 1, `, 300),
		strings.Repeat("=a1b2c3d4e5f6g7h8 api ", 700), strings.Repeat("k", 60)+"token = "+strings.Repeat("Ab1", 60))
	for _, l := range lines {
		want := l
		if len(genericSites(l)) > 0 {
			want = glReplace(l, l, r, c)
		}
		if got := genericReplace(l, r, c); got != want {
			t.Errorf("windows differ on %.200q\n got  %.200q\n want %.200q", l, got, want)
		}
	}
}

// FuzzGenericWindows is TestGenericWindowsMatchTheLine on any line.
func FuzzGenericWindows(f *testing.F) {
	for _, s := range []string{"password = hunter2hunter2", `"api_key": "abcdef0123456789", "token": "0123456789abcdefAB"`,
		"x_token = " + strings.Repeat("ab1", 80) + "\"", "=a1b2c3d4e5f6g7h8 api =a1b2c3d4e5f6g7h8 api "} {
		f.Add(s)
	}
	r, c := genericCompiled()
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsRune(line, '\n') {
			return
		}
		want := line
		if len(genericSites(line)) > 0 {
			want = glReplace(line, line, r, c)
		}
		if got := genericReplace(line, r, c); got != want {
			t.Fatalf("on %q\n got  %q\n want %q", line, got, want)
		}
	})
}

// genericCompiled is gitleaks' generic rule, compiled.
func genericCompiled() (*glRule, *glCompiled) {
	for i := range gitleaksRules {
		if gitleaksRules[i].ID == genericRule {
			c := &glCompiledRules.Get()[i]
			c.compile(&gitleaksRules[i])
			return &gitleaksRules[i], c
		}
	}
	panic("no generic rule")
}

// BenchmarkGenericMinifiedJSON is the generic rule on one 12 KB line of
// 300 key/value pairs (minified JSON), the shape whose findings all share
// one line.
func BenchmarkGenericMinifiedJSON(b *testing.B) {
	r, c := genericCompiled()
	line := strings.Repeat(`"apiKey":"q7Lm2Np4Rs6Tu8Vw0", "x": 1, `, 300)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		genericReplace(line, r, c)
	}
}

// The generated keyword index is the rules' keywords, lowercased, each
// with every rule that names it, sorted by keyword, with nothing else.
func TestKeywordIndexIsTheRulesKeywords(t *testing.T) {
	t.Parallel()
	want := map[string][]int{}
	for i, r := range gitleaksRules {
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if l := want[k]; len(l) == 0 || l[len(l)-1] != i {
				want[k] = append(want[k], i)
			}
		}
	}
	got := map[string][]int{}
	for i, kw := range glKeywordList() {
		if i > 0 && glKeywordList()[i-1].word >= kw.word {
			t.Fatalf("keyword %q after %q: not sorted", kw.word, glKeywordList()[i-1].word)
		}
		got[kw.word] = kw.rules
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("gitleaksKeywords is not the rules' keywords: run go generate ./internal/core/sanitize")
	}
}
