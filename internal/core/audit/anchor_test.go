package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// A cut of the trail's last lines leaves an intact chain; an earlier
// copy of the trail (the last checkpoint's) is what reveals it.
func TestAnchorDetectsCutTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// anchorLines: how many of the 6 lines the copy holds; keep: how
		// many the trail keeps; other: the copy is another trail's.
		anchorLines, keep int
		other             bool
		gone              bool // the trail's files removed
		want              string
		wantMsg           string
	}{
		{name: "trail grew since the copy", anchorLines: 4, keep: 6},
		{name: "trail as the copy", anchorLines: 6, keep: 6},
		{name: "cut back to the copy", anchorLines: 4, keep: 4},
		{name: "last line cut", anchorLines: 6, keep: 5, want: "AUDIT_CUT", wantMsg: "1 line that checkpoint abc (audit.jsonl) holds is gone"},
		{name: "three lines cut", anchorLines: 5, keep: 2, want: "AUDIT_CUT", wantMsg: "3 lines that checkpoint abc (audit.jsonl) holds are gone from the end of the trail (the first: clarify.request at 2026-03-30T12:00:02.000Z)"},
		{name: "trail deleted", anchorLines: 3, keep: 6, gone: true, want: "AUDIT_CUT", wantMsg: "the trail is gone: checkpoint abc (audit.jsonl) holds 3 lines"},
		{name: "another clone's trail", anchorLines: 3, keep: 6, other: true, want: "AUDIT_ANCHOR_FOREIGN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			tr := trail(t, clk)
			for range 6 {
				appendN(t, tr, 1)
				clk.Advance(time.Second)
			}
			data, err := os.ReadFile(tr.Path())
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			anchor := bytes.Join(lines[:tt.anchorLines], nil)
			if tt.other {
				o := trail(t, clock.NewFake(t0.Add(time.Hour)))
				appendN(t, o, tt.anchorLines)
				if anchor, err = os.ReadFile(o.Path()); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(tr.Path(), bytes.Join(lines[:tt.keep], nil), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.gone {
				if err := os.Remove(tr.Path()); err != nil {
					t.Fatal(err)
				}
			}
			got, _, err := Check(tr.Dir, Anchor{Source: "checkpoint abc (audit.jsonl)", Data: anchor})
			if err != nil {
				t.Fatal(err)
			}
			if codes := codesOf(got); fmt.Sprint(codes) != fmt.Sprint(strings.Fields(tt.want)) {
				t.Fatalf("findings %v, want %v: %+v", codes, tt.want, got)
			}
			if tt.wantMsg != "" && !strings.Contains(got[0].Msg, tt.wantMsg) {
				t.Errorf("message %q lacks %q", got[0].Msg, tt.wantMsg)
			}
			if tt.want == "AUDIT_ANCHOR_FOREIGN" && !got[0].Info {
				t.Error("another trail's copy is an error, want information")
			}
		})
	}
}

// Lines the copy holds that rotation moved to a month's file are still
// in the trail; a torn last line of the copy is not one of its lines.
func TestAnchorAcrossRotationAndTornCopy(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	tr := trail(t, clk)
	appendN(t, tr, 3)
	copyData, err := os.ReadFile(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	torn := append(append([]byte{}, copyData...), []byte(`{"time":"2026-03-30T12:00:09.000Z","op":"memo`)...)
	clk.Advance(3 * 24 * time.Hour) // into April: the next append rotates March's file
	appendN(t, tr, 1)
	if _, err := os.Stat(filepath.Join(tr.Dir, RotatedName("2026-03"))); err != nil {
		t.Fatalf("no rotation: %v", err)
	}
	got, _, err := Check(tr.Dir, Anchor{Source: "checkpoint abc", Data: torn})
	if err != nil || len(got) != 0 {
		t.Fatalf("findings %+v, %v", got, err)
	}
}

// Issue 26 item 7: a trail rewritten as a whole new chain verifies on its
// own and shares no line with the checkpoint's copy, which alone says
// "foreign" (information). The head the checkpoint recorded makes it an
// error; a trail that grew, or a cut, reads as before.
func TestAnchorHeadCatchesWholeChainRewrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		grow, cut       int
		rewrite, nohead bool
		want            string
	}{
		{name: "grew", grow: 2},
		{name: "rewritten as a new chain", rewrite: true, want: "AUDIT_HEAD_MISSING"},
		{name: "rewritten, a checkpoint without a head", rewrite: true, nohead: true, want: "AUDIT_ANCHOR_FOREIGN"},
		{name: "last line cut", cut: 1, want: "AUDIT_CUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake(t0)
			tr := trail(t, clk)
			appendN(t, tr, 4)
			copyData, err := os.ReadFile(tr.Path())
			if err != nil {
				t.Fatal(err)
			}
			head, err := Head(tr.Dir)
			if err != nil || head == "" {
				t.Fatalf("head %q, %v", head, err)
			}
			appendN(t, tr, tt.grow)
			if tt.cut > 0 {
				lines := bytes.SplitAfter(copyData, []byte("\n"))
				if err := os.WriteFile(tr.Path(), bytes.Join(lines[:len(lines)-1-tt.cut], nil), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.rewrite {
				o := trail(t, clock.NewFake(t0.Add(time.Minute)))
				appendN(t, o, 4)
				data, err := os.ReadFile(o.Path())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(tr.Path(), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a := Anchor{Source: "checkpoint abc (audit.jsonl)", Data: copyData, Head: head}
			if tt.nohead {
				a.Head = ""
			}
			got, _, err := Check(tr.Dir, a)
			if err != nil {
				t.Fatal(err)
			}
			if codes := codesOf(got); fmt.Sprint(codes) != fmt.Sprint(strings.Fields(tt.want)) {
				t.Fatalf("findings %v, want %v: %+v", codes, tt.want, got)
			}
			if tt.want == "AUDIT_HEAD_MISSING" && got[0].Info {
				t.Error("a rewritten trail is information, want an error")
			}
		})
	}
}

// codesOf lists the findings' codes.
func codesOf(got []Finding) []string {
	var codes []string
	for _, f := range got {
		codes = append(codes, f.Code)
	}
	return codes
}
