package githooks

import (
	"strings"
	"testing"
)

func TestNotes(t *testing.T) {
	conflict := []Step{{Hook: "pre-push", Kind: Conflict}}
	for _, tc := range []struct {
		name        string
		install     bool
		loc         Location
		steps       []Step
		noWS, noBin bool
		want        []string
	}{
		{"install, all well", true, Location{}, nil, false, false, nil},
		{"install conflict", true, Location{}, conflict, false, false, []string{"pre-push: left alone"}},
		{"uninstall says nothing of a conflict", false, Location{}, conflict, true, true, nil},
		{"hooksPath", true, Location{HooksPath: ".husky"}, nil, false, false, []string{"core.hooksPath is .husky"}},
		{"no workspace, no binary", true, Location{}, nil, true, true, []string{"no .agentx/ here yet", "agentx-hook is not on PATH"}},
	} {
		got := Notes(tc.install, tc.loc, tc.steps, tc.noWS, tc.noBin)
		if len(got) != len(tc.want) {
			t.Errorf("%s: Notes = %q, want %d notes", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: note %d = %q, want it to start %q", tc.name, i, got[i], w)
			}
		}
	}
}

func TestMergeDriverSummary(t *testing.T) {
	all := MergeAttributes()
	for _, tc := range []struct {
		st   MergeDriverStatus
		want string
	}{
		{MergeDriverStatus{Installed: true}, "installed"},
		{MergeDriverStatus{Missing: all}, "not installed (hooks install --merge-driver)"},
		{MergeDriverStatus{Driver: "other", Missing: all}, `other command configured ("other")`},
		{MergeDriverStatus{Driver: MergeDriverCommand, Missing: all[:1]}, "incomplete: driver"},
		{MergeDriverStatus{Installed: true, Changes: []string{"a", "b"}}, "a; b"},
	} {
		if got := tc.st.Summary(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%+v.Summary() = %q, want it to start %q", tc.st, got, tc.want)
		}
	}
}

func TestHookStatusSummary(t *testing.T) {
	for _, tc := range []struct {
		h    HookStatus
		want string
	}{
		{HookStatus{Hook: "pre-push", State: "missing"}, "missing"},
		{HookStatus{Hook: "pre-push", State: "installed", Chained: true, Manager: "husky", Tracked: true, Backups: []string{"a", "b"}},
			"installed, runs pre-push" + ChainedSuffix + " first (husky), tracked by the repository; backups: a, b"},
	} {
		if got := tc.h.Summary(); got != tc.want {
			t.Errorf("%+v.Summary() = %q, want %q", tc.h, got, tc.want)
		}
	}
	if got := (Step{Kind: Conflict, Detail: "why"}).Summary(); got != "conflict: why" {
		t.Errorf("Step.Summary() = %q", got)
	}
}
