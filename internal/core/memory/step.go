package memory

import "context"

// FilterStep keeps the rows whose observation was captured in step (its
// FieldStep), in their order, at most limit (negative: all). The step is
// not in the manifest or the index, so each issue's file is read once.
func (s *Store) FilterStep(ctx context.Context, rows []Row, step string, limit int) ([]Row, error) {
	steps := map[string]string{}
	read := map[int]bool{}
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		if limit >= 0 && len(out) >= limit {
			break
		}
		if !read[r.IssueNumber] {
			read[r.IssueNumber] = true
			obs, err := s.GetByIssue(ctx, r.IssueNumber)
			if err != nil {
				return nil, err
			}
			for i := range obs {
				steps[obs[i].ID] = obs[i].Step()
			}
		}
		if steps[r.ID] == step {
			out = append(out, r)
		}
	}
	return out, nil
}
