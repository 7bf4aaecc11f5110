package memory

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// Census calls fn with the index row of every stored observation (issue,
// time, agent, category, tokens) without reading the manifest's rows: the
// weekly digest counts tens of thousands of observations per run and needs
// only their times.
func (s *Store) Census(ctx context.Context, fn func(memindex.Doc)) error {
	v, err := s.open(ctx)
	if err != nil {
		return err
	}
	defer v.close()
	v.eachDoc(fn)
	return nil
}
