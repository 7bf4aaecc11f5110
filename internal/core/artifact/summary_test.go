package artifact

import (
	"reflect"
	"strings"
	"testing"
)

// Every summary reads back from the index as it was, in the compact
// form or, when a name cannot stand in it, as JSON.
func TestIndexLineRoundTrip(t *testing.T) {
	t.Parallel()
	fd := Finding{Issue: 42, Artifact: "SPEC-42", Agent: "architect", Path: "docs/specs/SPEC-42.md", Upstream: "PRD-42",
		OldBlob: "1111111111111111", NewBlob: "2222222222222222", Commit: "c0ffee", Diff: diffCommand("1111111111111111", "2222222222222222")}
	noCommit := fd
	noCommit.Commit = ""
	spaced := fd
	spaced.Path = "docs/specs/SPEC 42.md"
	for name, c := range map[string]struct {
		sum     Summary
		compact bool
	}{
		"plain":            {Summary{Workflows: []string{"feature"}, Marks: []Mark{{ID: "PRD-42"}, {ID: "SPEC-42", Flags: MarkStale | MarkRejected}}}, true},
		"stale":            {Summary{Workflows: []string{"feature"}, Marks: []Mark{{ID: "SPEC-42", Flags: MarkStale}}, Findings: []Finding{fd, noCommit}, Unnotified: true}, true},
		"a spaced path":    {Summary{Workflows: []string{"feature"}, Marks: []Mark{{ID: "SPEC-42", Flags: MarkStale}}, Findings: []Finding{spaced}}, false},
		"two workflows":    {Summary{Workflows: []string{"feature", "bug"}, Marks: []Mark{{ID: "PRD-42"}}}, false},
		"a non-ASCII id":   {Summary{Workflows: []string{"feature"}, Marks: []Mark{{ID: "PRD-42é"}}}, false},
		"a colon in an id": {Summary{Workflows: []string{"feature"}, Marks: []Mark{{ID: "a:b"}}}, false},
		"a finding of !":   {Summary{Workflows: []string{"feature"}, Marks: []Mark{{ID: "X-42"}}, Findings: []Finding{{Issue: 42, Artifact: "!", Agent: "a", Path: "p", Upstream: "u", OldBlob: "1", NewBlob: "2", Diff: diffCommand("1", "2")}}}, false},
	} {
		c.sum.Issue = 42
		raw, err := encodeSummary(&c.sum)
		if err != nil {
			t.Fatal(err)
		}
		if compact := raw[0] == '='; compact != c.compact {
			t.Errorf("%s: compact %v: %s", name, compact, raw)
		}
		got, err := indexEntry{summary: raw}.decode(42)
		if err != nil || !reflect.DeepEqual(got, c.sum) {
			t.Errorf("%s: %s read back as %+v, %v; want %+v", name, raw, got, err, c.sum)
		}
	}
}

// templateID is IDFor of the filled template, wherever the placeholder
// stands.
func TestTemplateID(t *testing.T) {
	t.Parallel()
	for _, tmpl := range []string{"docs/prd/PRD-{{issue_number}}.md", "docs/specs/SPEC-{{issue_number}}", "docs/{{issue_number}}/adr.md",
		"x.{{issue_number}}", ".{{issue_number}}", "a.b/{{issue_number}}-notes.tar.gz", "{{issue_number}}"} {
		want := IDFor(strings.Replace(tmpl, "{{issue_number}}", "42", 1))
		pre, post, has := strings.Cut(templateID(tmpl), "{{issue_number}}")
		got := pre + post
		if has {
			got = pre + "42" + post
		}
		if got != want {
			t.Errorf("%s: %q, IDFor says %q", tmpl, got, want)
		}
	}
}
