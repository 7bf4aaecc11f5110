package statesync

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
)

func TestRecoverLines(t *testing.T) {
	rec := &statebranch.RecoverResult{Sources: []string{"a", "b"}, Commits: 5, Versions: 9, Unparsable: 1, DryRun: true,
		Recovered: []statebranch.Recovered{{Path: ".agentx/state/clarifications/issue-3.json", IDs: []string{"CLR-3-001", "CLR-3-002"},
			From: []string{"0123456789abcdef", "fedcba"}}},
		Skipped: []string{".agentx/memory/issue-4.json"}}
	lines, warnings := RecoverLines(rec)
	want := []string{
		"would recover 2 in .agentx/state/clarifications/issue-3.json: CLR-3-001, CLR-3-002 (from 0123456789 and 1 more)",
		"recover: read 5 commits (9 file versions, 1 unparsable) from 2 refs and reflogs; would recover 2 records and observations in 1 files",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("lines =\n%q\nwant\n%q", lines, want)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], ".agentx/memory/issue-4.json does not parse") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestWithLimit(t *testing.T) {
	ctx, cancel, check := WithLimit(context.Background(), time.Millisecond, "origin", true)
	defer cancel()
	other := errors.New("other")
	<-ctx.Done()
	err := check(errors.New("git fetch: killed\nmore"))
	if !errcode.Is(err, errcode.AgentError) || !strings.Contains(err.Error(), "sync did not finish within 1ms") || strings.Contains(err.Error(), "more") {
		t.Errorf("past the limit: %v", err)
	}
	if check(nil) != nil {
		t.Error("nil stays nil")
	}
	_, cancel2, check2 := WithLimit(context.Background(), time.Hour, "origin", false)
	defer cancel2()
	if err := check2(other); !errors.Is(err, other) {
		t.Errorf("within the limit: %v", err)
	}
}
