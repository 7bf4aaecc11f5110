package completion

import (
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func TestValues(t *testing.T) {
	src := Sources{
		Ledgers:      &ledger.Store{WS: workspace.Workspace{Root: t.TempDir()}},
		MemoryIssues: func() ([]int, error) { return []int{12, 3}, nil },
		Config:       func() (*config.Set, error) { return nil, errors.New("no config") },
	}
	for _, tc := range []struct {
		kind string
		want []string
	}{
		{"issues", []string{"12", "3"}},
		{"agents", nil},
		{"ids", nil},
		{"colours", nil},
	} {
		got := Values(tc.kind, src)
		sort.Strings(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Values(%q) = %v, want %v", tc.kind, got, tc.want)
		}
	}
}
