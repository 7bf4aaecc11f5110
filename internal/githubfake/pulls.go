package githubfake

import (
	"net/http"
	"sort"
	"strconv"
	"time"
)

// Pull requests, as far as the digest reads them (issue 22 item 4): the
// repository's pull requests listed by state, most recently updated first,
// and each one's reviews.

// Pull is a pull request as the fake stores it.
type Pull struct {
	Number int
	Title  string
	Body   string
	// State is "open" or "closed"; Merged marks a closed one as merged.
	State    string
	Merged   bool
	ClosedAt time.Time
	Updated  time.Time
	// Reviews are the review states in order: APPROVED, CHANGES_REQUESTED,
	// COMMENTED, DISMISSED.
	Reviews []string
}

// AddPull stores p (replacing one with its number); Updated defaults to
// ClosedAt.
func (s *Server) AddPull(p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Updated.IsZero() {
		p.Updated = p.ClosedAt
	}
	if s.pulls == nil {
		s.pulls = map[int]*Pull{}
	}
	s.pulls[p.Number] = &p
}

func (s *Server) addPullRoutes(add func(string, handler)) {
	add("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	add("GET /repos/{owner}/{repo}/pulls/{number}/reviews", s.listReviews)
}

// listPulls answers state (open, closed, all; default open), sorted by
// updated, newest first (the only order the digest asks for), paginated.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	var all []*Pull
	for _, p := range s.pulls {
		if state == "all" || p.State == state {
			all = append(all, p)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].Updated.Equal(all[j].Updated) {
			return all[i].Updated.After(all[j].Updated)
		}
		return all[i].Number > all[j].Number
	})
	from, to := page(w, r, len(all))
	out := []map[string]any{}
	for _, p := range all[from:to] {
		m := map[string]any{"number": p.Number, "title": p.Title, "body": p.Body, "state": p.State,
			"updated_at": p.Updated.Format(time.RFC3339)}
		if !p.ClosedAt.IsZero() {
			m["closed_at"] = p.ClosedAt.Format(time.RFC3339)
			if p.Merged {
				m["merged_at"] = p.ClosedAt.Format(time.RFC3339)
			}
		}
		out = append(out, m)
	}
	return 200, out
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, err := strconv.Atoi(r.PathValue("number"))
	p := s.pulls[n]
	if err != nil || p == nil {
		return 404, msg("Not Found")
	}
	from, to := page(w, r, len(p.Reviews))
	out := []map[string]any{}
	for i, st := range p.Reviews[from:to] {
		out = append(out, map[string]any{"id": 9000 + from + i, "state": st, "user": map[string]any{"login": "reviewer"}})
	}
	return 200, out
}
