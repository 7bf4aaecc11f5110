package artifact

// Summary is what `ready` and the monitor need of one ledger: which
// workflows its artifacts name, what each artifact's stage needs to know
// (present, stale, reopened, rejected), its stale findings and whether
// one of them was never announced. It is derived from the ledger
// (File.Summarize) and kept in the scan's index, so a scan of 500
// ledgers decodes a few hundred short lines instead of 2 MB of JSON.
type Summary struct {
	Issue int `json:"-"`
	// Workflows are the workflows the artifacts name, each once, in the
	// ledger's order (WorkflowOf takes the first the config knows).
	Workflows []string `json:"w,omitempty"`
	Marks     []Mark   `json:"m,omitempty"`
	// Findings are the stale dependencies (File.Findings).
	Findings []Finding `json:"f,omitempty"`
	// Unnotified: a finding the monitor has not announced yet, so the
	// ledger must be read whole to announce it.
	Unnotified bool `json:"u,omitempty"`
}

// Mark is one artifact's id and what keeps its step from done.
type Mark struct {
	ID    string    `json:"i"`
	Flags MarkFlags `json:"s,omitempty"`
}

// MarkFlags are the states of an artifact that keep its step open.
type MarkFlags uint8

// The flags, in the order a note names them (stale first).
const (
	MarkStale MarkFlags = 1 << iota
	MarkReopened
	MarkRejected
)

// Summarize derives the ledger's summary.
func (f *File) Summarize() Summary {
	s := Summary{Issue: f.IssueNumber}
	seen := map[string]bool{}
	for i := range f.Artifacts {
		a := &f.Artifacts[i]
		if !seen[a.Workflow] {
			seen[a.Workflow] = true
			s.Workflows = append(s.Workflows, a.Workflow)
		}
		m := Mark{ID: a.ID}
		fds := f.StaleDeps(a)
		if len(fds) > 0 {
			m.Flags |= MarkStale
		}
		if a.Reopened {
			m.Flags |= MarkReopened
		}
		if a.Status == Rejected {
			m.Flags |= MarkRejected
		}
		for _, fd := range fds {
			if !a.NotifiedOf(fd.Upstream, fd.NewBlob) {
				s.Unnotified = true
			}
		}
		s.Marks = append(s.Marks, m)
		s.Findings = append(s.Findings, fds...)
	}
	return s
}

// Empty reports whether the ledger holds no artifact.
func (s *Summary) Empty() bool { return len(s.Marks) == 0 }

// markOf returns the mark whose id is pre+num+post, and the id, without
// building the string to compare.
func (s *Summary) markOf(pre, num, post string) (MarkFlags, string, bool) {
	n := len(pre) + len(num) + len(post)
	for _, m := range s.Marks {
		id := m.ID
		if len(id) == n && id[:len(pre)] == pre && id[len(pre):len(pre)+len(num)] == num && id[len(pre)+len(num):] == post {
			return m.Flags, id, true
		}
	}
	return 0, "", false
}
