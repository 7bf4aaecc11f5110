package sync

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/protocol"
)

func TestParseCommand(t *testing.T) {
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
		{"prefix word", "/clarifying answer CLR-1-001 x", Command{}, false, ""},
		{"no verb", "/clarify", Command{}, true, "missing verb"},
		{"bad verb", "/clarify approve CLR-1-001", Command{}, true, "unknown verb"},
		{"no id", "/clarify answer", Command{}, true, "missing clarification id"},
		{"bad id", "/clarify answer 42 yes", Command{}, true, "not a clarification id"},
		{"answer needs text", "/clarify answer CLR-1-001", Command{}, true, "needs a text"},
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
	})
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
