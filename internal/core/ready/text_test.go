package ready

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/render"
)

func TestReportText(t *testing.T) {
	one := &Issue{}
	for _, tc := range []struct {
		name   string
		issues []*Issue
		want   string
	}{
		{"none", nil, "No issues known locally.\n"},
		{"one", []*Issue{one}, one.Line(render.Style{}) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (&Report{Issues: tc.issues}).Text(render.Style{}); got != tc.want {
				t.Errorf("Text = %q, want %q", got, tc.want)
			}
		})
	}
}
