package validate

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestAgent(t *testing.T) {
	for _, ok := range []string{"engineer", "product-manager", "a", "agent-2", "0x"} {
		if err := Agent("--from", ok); err != nil {
			t.Errorf("Agent(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", "Engineer", "eng ineer", "../x", "a_b", "é", strings.Repeat("a", 65)} {
		if err := Agent("--from", bad); !errcode.Is(err, errcode.InvalidInput) {
			t.Errorf("Agent(%q) = %v", bad, err)
		}
	}
}

func TestTextLimits(t *testing.T) {
	if err := Topic(strings.Repeat("é", 200)); err != nil {
		t.Errorf("200 characters (400 bytes) rejected: %v", err)
	}
	err := Topic(strings.Repeat("x", 201))
	if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "201 characters, the limit is 200") {
		t.Errorf("201: %v", err)
	}
	if err := Topic("two\nlines"); !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "one line") {
		t.Errorf("multi-line topic: %v", err)
	}
	if err := Body("answer", "  "); !errcode.Is(err, errcode.InvalidInput) {
		t.Errorf("blank: %v", err)
	}
	if err := Body("answer", strings.Repeat("x", 2001)); err == nil {
		t.Error("2001 accepted")
	}
	if err := Body("answer", "bad \xff utf8"); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
}

func TestIssueAndID(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"42", 42, true}, {"#42", 42, true}, {"1000000000", 1000000000, true},
		{"0", 0, false}, {"1000000001", 0, false}, {"-1", 0, false}, {"4a", 0, false},
		{"../1", 0, false}, {"", 0, false}, {"99999999999999999999", 0, false}, {"+5", 0, false},
	}
	for _, tt := range tests {
		n, err := Issue(tt.in)
		if (err == nil) != tt.ok || n != tt.want {
			t.Errorf("Issue(%q) = %d, %v", tt.in, n, err)
		}
	}
	ids := []struct {
		in   string
		want int
		ok   bool
	}{
		{"CLR-42-001", 42, true}, {"CLR-42-1000", 42, true}, {"CLR-1-01", 0, false}, {"clr-42-001", 0, false},
		{"CLR-42-00a", 0, false}, {"CLR-x-001", 0, false}, {"CLR-0-001", 0, false}, {"CLR-42", 0, false},
		{"CLR-../../x-001", 0, false}, {"clar-test-001", 0, false},
	}
	for _, tt := range ids {
		n, err := ClarificationID(tt.in)
		if (err == nil) != tt.ok || n != tt.want {
			t.Errorf("ClarificationID(%q) = %d, %v", tt.in, n, err)
		}
	}
}
