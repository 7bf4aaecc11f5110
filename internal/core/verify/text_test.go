package verify

import (
	"strings"
	"testing"
)

func TestProblemText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    Problem
		want string
	}{
		{Problem{Code: "X", Severity: Error, Path: "a.json", Offset: -1, Message: "m"}, "error X a.json: m"},
		{Problem{Code: "X", Severity: Info, Path: "a.json", Line: 3, Offset: 10, ID: "CLR-1-001", Message: "m", Repair: "rebuild"},
			"info  X a.json:3 @10 CLR-1-001: m [repairable: rebuild]"},
	} {
		if got := tt.p.Text(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}

// The failure's hint points at --repair only while an error has a repair
// and --repair was not asked for.
func TestFailure(t *testing.T) {
	t.Parallel()
	repairable := &Report{Problems: []Problem{{Severity: Error, Repair: "rebuild"}}}
	manual := &Report{Problems: []Problem{{Severity: Error}, {Severity: Info, Repair: "rebuild"}}}
	if f := (&Report{}).Failure(".agentx", false); f != nil {
		t.Errorf("no problems: %v", f)
	}
	for _, tt := range []struct {
		rep    *Report
		repair bool
		want   string
	}{
		{repairable, false, "verify --repair"},
		{repairable, true, "need a person"},
		{manual, false, "need a person"},
	} {
		f := tt.rep.Failure(".agentx", tt.repair)
		if f == nil || !strings.Contains(f.Hint, tt.want) || !strings.Contains(f.Message, "1 problem under .agentx") {
			t.Errorf("repair %v: %+v, want a hint with %q", tt.repair, f, tt.want)
		}
	}
	if f := manual.BranchFailure("refs/x", "0123456789abcdef"); f == nil || !strings.Contains(f.Message, "refs/x (commit 0123456789ab)") {
		t.Errorf("branch failure %+v", f)
	}
}

func TestRepairEntry(t *testing.T) {
	t.Parallel()
	if _, ok := RepairEntry(nil); ok {
		t.Error("no repairs: want no line")
	}
	e, ok := RepairEntry([]Done{{Path: "a"}, {Path: "b", Err: "x"}})
	if !ok || len(e.IDs) != 1 || e.IDs[0] != "a" || e.Detail != "1 repairs (1 failed)" {
		t.Errorf("entry %+v", e)
	}
}
