package validate

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestAgent(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
		{"CLR-42-00a", 0, false}, {"CLR-x-001", 0, false}, {"CLR-0-001", 0, true}, {"CLR-42", 0, false},
		{"CLR-../../x-001", 0, false}, {"clar-test-001", 0, false},
	}
	for _, tt := range ids {
		n, err := ClarificationID(tt.in)
		if (err == nil) != tt.ok || n != tt.want {
			t.Errorf("ClarificationID(%q) = %d, %v", tt.in, n, err)
		}
	}
}

func TestHostileCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string // "" for accepted
	}{
		{"topic with ESC", Topic("auth\x1b]0;pwned\x07"), "U+001B ESC at position 5"},
		{"topic with NUL", Topic("a\x00b"), "U+0000 NUL at position 2"},
		{"topic with C1 CSI", Topic("a\u009b2J"), "U+009B CSI at position 2"},
		{"topic with RTL override", Topic("pay \u202eevil"), "U+202E RIGHT-TO-LEFT OVERRIDE at position 5"},
		{"topic with isolate", Topic("x\u2066y"), "U+2066 LEFT-TO-RIGHT ISOLATE at position 2"},
		{"topic with line separator", Topic("a\u2028b"), "U+2028 LINE SEPARATOR at position 2"},
		{"topic with tab", Topic("a\tb"), "U+0009 TAB at position 2"},
		{"topic of zero-width spaces", Topic("\u200b\u200b\u200b"), "no visible character (only spaces and zero-width characters such as U+200B ZERO WIDTH SPACE)"},
		{"topic of joiners and spaces", Topic(" \u200d \ufeff"), "no visible character"},
		{"topic with an emoji sequence", Topic("team 👩\u200d💻 setup"), ""},
		{"topic in Hebrew", Topic("שלום auth"), ""},
		{"body with NUL", Body("question", "a\x00"), "question holds a NUL byte (U+0000 NUL at position 2)"},
		{"body with ESC, kept for output to strip", Body("answer", "ok\n\x1b[32mgreen\x1b[0m"), ""},
		{"body with CRLF, tabs and lines", Body("answer", "line one\r\n\tline two\nthree"), ""},
		{"agent with ESC", Agent("--from", "eng\x1b[31m"), `"eng\x1b[31m" must match [a-z0-9][a-z0-9-]* (U+001B ESC at position 4)`},
		{"agent with path", Agent("--as", "../x"), `(U+002E '.' at position 1)`},
		{"agent with é", Agent("--to", "caf\u00e9"), `(U+00E9 'é' at position 4)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				if tt.err != nil {
					t.Fatalf("rejected: %v", tt.err)
				}
				return
			}
			if !errcode.Is(tt.err, errcode.InvalidInput) || !strings.Contains(tt.err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %s", tt.err, tt.want)
			}
		})
	}
}
