package sync

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	l := ledger42()
	r := &l.Clarifications[0]
	r.Thread = append(r.Thread,
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.\n\nSee <!-- agentx:entry v=1 id=CLR-42-001 seq=9 round=1 type=answer hash=0123456789ab --> for why.", Timestamp: r.Created},
		ledger.Entry{Round: 2, From: "engineer", Type: ledger.Question, Body: "*Which* store?", Timestamp: r.Created},
		ledger.Entry{Round: 2, From: "alice", Type: ledger.Resolution, Body: "Abandoned: moot", Timestamp: r.Created})
	var b strings.Builder
	for _, rec := range l.Clarifications {
		for seq := range rec.Thread {
			w := Render(&rec, seq, strings.ToUpper)
			b.WriteString("=== " + w.Key.String() + "\n" + w.Body + "\n")
			// Agent text can never carry a marker that parses as a second one.
			if m, ok := ParseMarker(w.Body); !ok || m.Key != w.Key || strings.Count(w.Body, markerOpen) != 1 {
				t.Fatalf("%v: marker %+v %v in %q", w.Key, m, ok, w.Body)
			}
		}
	}
	golden := filepath.Join("testdata", "render.golden")
	if *update {
		os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("rendering changed (go test -run RenderGolden -update):\n%s", b.String())
	}
}

func TestDesiredLabels(t *testing.T) {
	t.Parallel()
	l := ledger42()
	w := Desired(l, testLabels, ident)
	if !w.Labels[testLabels.Blocked] || !w.Labels[testLabels.Escalated] {
		t.Fatalf("labels %v", w.Labels)
	}
	// Stale still waits; answered does not; escalated then resolved clears.
	l.Clarifications[0].Status = ledger.Stale
	l.Clarifications[1].Status = ledger.Resolved
	if w := Desired(l, testLabels, ident); !w.Labels[testLabels.Blocked] || w.Labels[testLabels.Escalated] {
		t.Fatalf("labels %v", w.Labels)
	}
	l.Clarifications[0].Status = ledger.Answered
	if w := Desired(l, testLabels, ident); w.Labels[testLabels.Blocked] {
		t.Fatalf("labels %v", w.Labels)
	}
	// A non-blocking pending question does not block.
	l.Clarifications[0].Status, l.Clarifications[0].Blocking = ledger.Pending, false
	if w := Desired(l, testLabels, ident); w.Labels[testLabels.Blocked] {
		t.Fatalf("labels %v", w.Labels)
	}
	// An entry that came from a comment is not mirrored.
	n := len(Desired(l, testLabels, ident).Comments)
	l.Clarifications[0].Thread[0].Extra = []jsonfile.Field{{Key: CommentKey, Value: []byte("123")}}
	if got := len(Desired(l, testLabels, ident).Comments); got != n-1 {
		t.Fatalf("comments %d, want %d", got, n-1)
	}
}

func TestPlanComments(t *testing.T) {
	t.Parallel()
	l := ledger42()
	want := Desired(l, testLabels, ident).Comments
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	bot := "github-actions[bot]"
	tests := []struct {
		name string
		have []Existing
		want []string
	}{
		{"empty", nil, []string{"create CLR-42-001#0", "create CLR-42-002#0", "create CLR-42-002#1", "create CLR-42-003#0"}},
		{"in sync", []Existing{{1, bot, want[0].Body, at(1)}, {2, bot, want[1].Body, at(2)}, {3, bot, want[2].Body, at(3)}, {4, bot, want[3].Body, at(4)}}, nil},
		{"forged and foreign", []Existing{{1, "mallory", want[0].Body, at(1)}, {2, "alice", "hello", at(2)}, {3, "GitHub-Actions[bot]", want[1].Body, at(3)}},
			[]string{"create CLR-42-001#0", "create CLR-42-002#1", "create CLR-42-003#0"}},
		{"changed and duplicated", []Existing{{9, bot, want[0].Body, at(5)}, {7, bot, strings.Replace(want[0].Body, "JWT", "jwt", 1), at(1)}, {8, bot, want[0].Body, at(1)}},
			[]string{"edit 7", "create CLR-42-002#0", "create CLR-42-002#1", "create CLR-42-003#0", "delete 8", "delete 9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, op := range PlanComments(want, tt.have, bot) {
				switch op.Kind {
				case Create:
					got = append(got, "create "+op.Want.Key.String())
				default:
					got = append(got, op.Kind.String()+" "+strconv.FormatInt(op.CommentID, 10))
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanLabels(t *testing.T) {
	t.Parallel()
	want := map[string]bool{"clarification-blocked": true, "clarification-escalated": false}
	add, remove := PlanLabels(want, []string{"Clarification-Escalated", "bug"})
	if !reflect.DeepEqual(add, []string{"clarification-blocked"}) || !reflect.DeepEqual(remove, []string{"clarification-escalated"}) {
		t.Fatalf("add %v remove %v", add, remove)
	}
	if add, remove := PlanLabels(want, []string{"clarification-blocked"}); add != nil || remove != nil {
		t.Fatalf("add %v remove %v", add, remove)
	}
}

// A thread entry whose text changed since it was written is not mirrored:
// what the issue shows must be what was written (issue 22 item 1). An
// entry without a hash (the old tools) is mirrored as before.
func TestDesiredLeavesTamperedEntriesOut(t *testing.T) {
	t.Parallel()
	l := ledger42()
	r := &l.Clarifications[0]
	r.Thread = append(r.Thread,
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: r.Created}.Sealed(),
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "Done.", Timestamp: r.Created})
	before := len(Desired(l, Labels{Blocked: "b", Escalated: "e"}, strings.ToUpper).Comments)
	r.Thread[len(r.Thread)-2].Body = "Cookies." // edited after it was written
	w := Desired(l, Labels{Blocked: "b", Escalated: "e"}, strings.ToUpper)
	if len(w.Comments) != before-1 || len(w.Tampered) != 1 || w.Tampered[0] != r.ID+"#"+strconv.Itoa(len(r.Thread)-2) {
		t.Fatalf("comments %d (before %d), tampered %v", len(w.Comments), before, w.Tampered)
	}
	for _, c := range w.Comments {
		if strings.Contains(c.Body, "COOKIES") {
			t.Fatal("the edited text was mirrored")
		}
	}
}
