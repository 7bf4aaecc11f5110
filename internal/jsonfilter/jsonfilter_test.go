package jsonfilter

import (
	"errors"
	"strings"
	"testing"
)

const doc = `{"clarifications": [{"id": "CLR-1-001", "round": 2}, {"id": "CLR-1-002", "round": 1}], "schemaVersion": 2}`

func TestApply(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ jq, tmpl, want string }{
		{jq: ".clarifications[].id", want: "CLR-1-001\nCLR-1-002\n"},                                             // strings raw
		{jq: ".clarifications[0]", want: `{"id":"CLR-1-001","round":2}` + "\n"},                                  // compact JSON
		{jq: "[.clarifications[].round] | add", want: "3\n"},                                                     // numbers
		{jq: ".missing", want: "null\n"},                                                                         // jq's null
		{tmpl: `{{range .clarifications}}{{.id}} {{.round}}{{"\n"}}{{end}}`, want: "CLR-1-001 2\nCLR-1-002 1\n"}, // template
		{tmpl: `{{json .schemaVersion}}`, want: "2"},
	} {
		var b strings.Builder
		if err := Apply([]byte(doc), tt.jq, tt.tmpl, &b); err != nil {
			t.Fatalf("%q%q: %v", tt.jq, tt.tmpl, err)
		}
		if b.String() != tt.want {
			t.Errorf("%q%q: got %q, want %q", tt.jq, tt.tmpl, b.String(), tt.want)
		}
	}
}

func TestBadExpressions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ jq, tmpl string }{{jq: ".["}, {jq: "nosuchfunc"}, {tmpl: "{{.a"}, {tmpl: "{{nosuch .a}}"}} {
		if err := Check(tt.jq, tt.tmpl); !errors.Is(err, ErrExpression) {
			t.Errorf("Check(%q, %q) = %v, want ErrExpression", tt.jq, tt.tmpl, err)
		}
		if err := Apply([]byte(doc), tt.jq, tt.tmpl, &strings.Builder{}); !errors.Is(err, ErrExpression) {
			t.Errorf("Apply(%q, %q) = %v, want ErrExpression", tt.jq, tt.tmpl, err)
		}
	}
	if err := Check(".clarifications[].id", ""); err != nil {
		t.Errorf("a good expression: %v", err)
	}
	// A run-time error is the expression's too, with what jq said.
	if err := Apply([]byte(doc), ".clarifications.id", "", &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "expected an object but got: array") {
		t.Errorf("run-time error: %v", err)
	}
}
