package sync

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/protocol"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       Command
		found      bool
		err        string
	}{
		{"none", "just a remark", Command{}, false, ""},
		{"answer", "/clarify answer CLR-42-001 Use JWT.", Command{"answer", "CLR-42-001", "Use JWT."}, true, ""},
		{"multiline", "Thanks!\n/clarify resolve clr-42-001 Ship it.\nWith refresh tokens.", Command{"resolve", "CLR-42-001", "Ship it.\nWith refresh tokens."}, true, ""},
		{"resolve without text", "/clarify resolve CLR-42-001", Command{"resolve", "CLR-42-001", ""}, true, ""},
		{"crlf", "/clarify abandon CLR-7-002 no longer needed\r\n", Command{"abandon", "CLR-7-002", "no longer needed"}, true, ""},
		{"fenced example", "```\n/clarify answer CLR-1-001 x\n```", Command{}, false, ""},
		{"quoted", "> /clarify answer CLR-1-001 x", Command{}, false, ""},
		// A plain line right after a quoted one continues the quote
		// (CommonMark's lazy continuation): GitHub shows it quoted.
		{"lazy continuation of a quote", "> Earlier someone wrote\n/clarify answer CLR-1-001 x", Command{}, false, ""},
		{"after a quote and a blank line", "> Earlier someone wrote\n\n/clarify answer CLR-1-001 x", Command{"answer", "CLR-1-001", "x"}, true, ""},
		{"prefix word", "/clarifying answer CLR-1-001 x", Command{}, false, ""},
		{"no verb", "/clarify", Command{}, true, "missing verb"},
		{"bad verb", "/clarify approve CLR-1-001", Command{}, true, "unknown verb"},
		{"no id", "/clarify answer", Command{}, true, "missing clarification id"},
		{"bad id", "/clarify answer 42 yes", Command{}, true, "not a clarification id"},
		{"answer needs text", "/clarify answer CLR-1-001", Command{}, true, "needs a text"},
		// Only what a reader sees as text is a command (issue 15).
		{"indented code", "Example:\n\n    /clarify answer CLR-1-001 x", Command{}, false, ""},
		{"tab-indented code", "\t/clarify answer CLR-1-001 x", Command{}, false, ""},
		{"tilde fence", "~~~\n/clarify answer CLR-1-001 x\n~~~", Command{}, false, ""},
		{"tilde inside backtick fence", "```\n~~~\n/clarify answer CLR-1-001 x\n```", Command{}, false, ""},
		{"backticks inside tilde fence", "~~~~\n```\n/clarify answer CLR-1-001 x\n~~~~", Command{}, false, ""},
		{"short closing fence", "````\n```\n/clarify answer CLR-1-001 x\n", Command{}, false, ""},
		{"unclosed fence", "```go\n/clarify answer CLR-1-001 x", Command{}, false, ""},
		{"after a closed fence", "```\ncode\n```\n/clarify answer CLR-1-001 x", Command{"answer", "CLR-1-001", "x"}, true, ""},
		{"html comment", "<!-- /clarify answer CLR-1-001 x -->", Command{}, false, ""},
		{"multi-line html comment", "hi\n<!--\n/clarify answer CLR-1-001 x\n-->", Command{}, false, ""},
		{"unclosed html comment", "<!--\n/clarify answer CLR-1-001 x", Command{}, false, ""},
		{"visible after a comment", "<!-- note -->/clarify answer CLR-1-001 x", Command{"answer", "CLR-1-001", "x"}, true, ""},
		{"hidden text dropped", "/clarify answer CLR-1-001 yes <!-- secret -->\nmore<!--\nhidden\n-->", Command{"answer", "CLR-1-001", "yes\nmore"}, true, ""},
		{"fence text kept in the answer", "/clarify answer CLR-1-001 use:\n```\nx := 1\n```", Command{"answer", "CLR-1-001", "use:\n```\nx := 1\n```"}, true, ""},
		{"fence in an html comment", "<!--\n```\n-->\n/clarify answer CLR-1-001 x", Command{"answer", "CLR-1-001", "x"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := ParseCommand(tt.body)
			if found != tt.found {
				t.Fatalf("found = %v", found)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/clarify answer CLR-42-001 yes", "/clarify resolve CLR-1-001", "```\n/clarify x\n", "/clarify ask CLR-9-123 why?\nmore"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, found, err := ParseCommand(body)
		if !found || err != nil {
			return
		}
		v, ok := protocol.Lookup(string(cmd.Verb))
		if !ok || cmd.ID == "" {
			t.Fatalf("accepted %+v", cmd)
		}
		if v.NeedsText && cmd.Text == "" {
			t.Fatalf("%s without text", cmd.Verb)
		}
		// Hidden, the same body is no command: inside a fence longer than
		// any backtick run in it, and inside an HTML comment.
		fence := "```" + strings.Repeat("`", longestRun(body, '`'))
		if _, found, _ := ParseCommand(fence + "\n" + body + "\n" + fence); found {
			t.Fatalf("command found inside a fence: %q", body)
		}
		if !strings.Contains(body, "-->") {
			if _, found, _ := ParseCommand("<!--\n" + body + "\n-->"); found {
				t.Fatalf("command found inside an HTML comment: %q", body)
			}
		}
	})
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func TestIsReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want bool
	}{
		{"**Not applied:** x\n\n<!-- agentx:reply comment=12 -->", true},
		{"**Not applied:** x\n\n<!-- agentx:reply comment=12 -->\n", true},
		{"/clarify answer CLR-1-001 yes\n<!-- agentx:reply ", false},
		{"see <!-- agentx:reply comment=1 --> above\n/clarify answer CLR-1-001 yes", false},
		{"/clarify answer CLR-1-001 yes", false},
	}
	for _, tt := range tests {
		if got := isReply(tt.body); got != tt.want {
			t.Errorf("isReply(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func FuzzParseMarker(f *testing.F) {
	f.Add(Marker{Key: Key{ID: "CLR-42-001", Seq: 2}, Round: 1, Type: "answer", Hash: "0123456789ab"}.String())
	f.Add("<!-- agentx:entry v=1 id=CLR-1-001 seq=0 round=1 type=question hash=zz -->")
	f.Add("text <!-- agentx:entry --> more")
	f.Fuzz(func(t *testing.T, body string) {
		m, ok := ParseMarker(body)
		if !ok {
			return
		}
		again, ok := ParseMarker(m.String())
		if !ok || again != m {
			t.Fatalf("marker does not round-trip: %+v -> %q", m, m.String())
		}
	})
}
