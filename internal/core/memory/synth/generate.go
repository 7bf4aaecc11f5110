package synth

import (
	"context"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// Generated is what Generate added.
type Generated struct {
	Observations, Issues int
	Seed                 uint64
	// StoreTotal is how many observations the store holds after it.
	StoreTotal int
	Took       time.Duration
}

// Generate adds n synthetic observations over issues 1..issues (seeded:
// same seed, same corpus; timestamps over the year before end) to st.
// No events are logged: synthetic data is nobody's history.
func Generate(ctx context.Context, st *memory.Store, n, issues int, seed uint64, end time.Time) (Generated, error) {
	start := time.Now()
	st.Events = nil
	rep, err := st.Import(ctx, Observations(n, issues, seed, end))
	if err != nil {
		return Generated{}, err // the store's errors name the file already
	}
	return Generated{Observations: n, Issues: issues, Seed: seed, StoreTotal: rep.Entries, Took: time.Since(start)}, nil
}

// Line is the generation for people; into names the memory directory
// written when it is not the workspace's own ("" when it is).
func (g Generated) Line(into string) string {
	took := g.Took.Round(time.Millisecond)
	if into == "" {
		return fmt.Sprintf("Generated %d observations over %d issues in %s (store now holds %d).", g.Observations, g.Issues, took, g.StoreTotal)
	}
	return fmt.Sprintf("Generated %d observations over %d issues into %s in %s (store now holds %d).", g.Observations, g.Issues, into, took, g.StoreTotal)
}

// Doc is `memory generate --json`.
type Doc struct {
	DurationMs int64 `json:"durationMs"`
	Generated  int   `json:"generated"`
	Issues     int   `json:"issues"`
	// MemoryDir is the store written to.
	MemoryDir string `json:"memoryDir"`
	jsonfile.Versioned
	Seed       uint64 `json:"seed"`
	StoreTotal int    `json:"storeTotal"`
}

// Doc is what Generate added to the store in dir, as `memory generate
// --json` prints it.
func (g Generated) Doc(dir string) *Doc {
	return &Doc{Generated: g.Observations, Issues: g.Issues, MemoryDir: dir,
		Seed: g.Seed, StoreTotal: g.StoreTotal, DurationMs: g.Took.Milliseconds()}
}
