package config

import (
	"strings"
	"testing"
)

func TestStepOutputsParseAndMatch(t *testing.T) {
	t.Parallel()
	w, err := ParseWorkflow("feature.toml", DefaultFiles()["workflows/feature.toml"])
	if err != nil {
		t.Fatal(err)
	}
	arch, ok := w.Step("architecture")
	if !ok || len(arch.Output) != 2 || arch.Output[1] != "docs/specs/SPEC-{{issue_number}}.md" {
		t.Fatalf("architecture outputs = %+v", arch)
	}
	set := &Set{Workflows: []Workflow{w}}
	so, issue, ok := set.MatchPath("docs/specs/SPEC-42.md")
	if !ok || issue != 42 || so.Step.ID != "architecture" || so.Step.Agent != "architect" {
		t.Fatalf("MatchPath = %+v %d %v", so, issue, ok)
	}
	for _, miss := range []string{"docs/specs/SPEC-.md", "docs/specs/SPEC-042.md", "docs/specs/SPEC-4x.md", "docs/specs/SPEC-42.txt", "src/main.go"} {
		if _, _, ok := set.MatchPath(miss); ok {
			t.Errorf("MatchPath(%q) matched", miss)
		}
	}
	if got := OutputPath("docs/prd/PRD-{{issue_number}}.md", 7); got != "docs/prd/PRD-7.md" {
		t.Errorf("OutputPath = %q", got)
	}
}

func TestStepKeepsTemplateAndStatuses(t *testing.T) {
	t.Parallel()
	w, err := ParseWorkflow("w.toml", []byte(`[[steps]]
id = "prd"
agent = "product-manager"
output = "docs/prd/PRD-{{issue_number}}.md"
template = ".github/templates/PRD-TEMPLATE.md"
status_on_start = "In Progress"
status_on_complete = "Ready"
`))
	if err != nil {
		t.Fatal(err)
	}
	st := w.Steps[0]
	if st.Template != ".github/templates/PRD-TEMPLATE.md" || st.StatusOnStart != "In Progress" || st.StatusOnComplete != "Ready" {
		t.Fatalf("step = %+v", st)
	}
}

func TestBadOutputTemplatesAreRefused(t *testing.T) {
	t.Parallel()
	for _, out := range []string{`"/etc/PRD-{{issue_number}}.md"`, `"../PRD-{{issue_number}}.md"`, `"docs/PRD.md"`, `"docs/{{issue}}-{{issue_number}}.md"`, `7`} {
		_, err := ParseWorkflow("w.toml", []byte("[[steps]]\nid = \"prd\"\nagent = \"pm\"\noutput = "+out+"\n"))
		if err == nil || !strings.Contains(err.Error(), "output") {
			t.Errorf("output = %s: err = %v", out, err)
		}
	}
}
