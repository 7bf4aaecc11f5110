package githubfake

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// IssueText is an issue's title, body and state, for issues opened through
// the API (the digest's weekly issue). Issues seeded with AddIssue have none.
type IssueText struct {
	Number int
	Title  string
	Body   string
	State  string
	Labels []string
}

// issueRoutes adds the issue endpoints the weekly digest uses: open an
// issue, list issues by label (paginated, newest first), edit one.
func (s *Server) issueRoutes(add func(string, handler)) {
	add("POST /repos/{owner}/{repo}/issues", s.createIssue)
	add("GET /repos/{owner}/{repo}/issues", s.listIssues)
	add("PATCH /repos/{owner}/{repo}/issues/{number}", s.editIssue)
}

// Issue returns an issue's text (false for an unknown issue).
func (s *Server) Issue(n int) (IssueText, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.issues[n]
	if !ok {
		return IssueText{}, false
	}
	return s.issueText(n, set), true
}

// IssuesLabelled returns the numbers of the issues carrying label, ascending.
func (s *Server) IssuesLabelled(label string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for n, set := range s.issues {
		if hasLabel(set, label) {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

func hasLabel(set map[string]bool, name string) bool {
	for l := range set {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

func (s *Server) issueText(n int, set map[string]bool) IssueText {
	t := IssueText{Number: n, Title: fmt.Sprintf("Issue %d", n), State: "open"}
	if x := s.texts[n]; x != nil {
		t.Title, t.Body, t.State = x.Title, x.Body, x.State
	}
	for l := range set {
		t.Labels = append(t.Labels, l)
	}
	sort.Strings(t.Labels)
	return t
}

func (s *Server) issueJSON(n int) map[string]any {
	t := s.issueText(n, s.issues[n])
	return map[string]any{"number": n, "title": t.Title, "body": t.Body, "state": t.State,
		"labels": labelsJSON(s.issues[n], s.labels), "html_url": fmt.Sprintf("https://github.com/o/r/issues/%d", n)}
}

func (s *Server) createIssue(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if !decode(r, &in) || in.Title == "" {
		return 422, msg("Validation Failed")
	}
	n := 1
	for have := range s.issues {
		n = max(n, have+1)
	}
	set := map[string]bool{}
	for _, name := range in.Labels {
		l, ok := s.labels[strings.ToLower(name)]
		if !ok {
			l = &Label{Name: name, Color: "ededed"} // GitHub creates an unknown label
			s.labels[strings.ToLower(name)] = l
		}
		set[l.Name] = true
	}
	s.issues[n] = set
	if s.texts == nil {
		s.texts = map[int]*IssueText{}
	}
	s.texts[n] = &IssueText{Title: in.Title, Body: in.Body, State: "open"}
	return 201, s.issueJSON(n)
}

func (s *Server) editIssue(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	if _, exists := s.issues[n]; !ok || !exists {
		return 404, msg("Not Found")
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
	}
	if !decode(r, &in) {
		return 422, msg("Validation Failed")
	}
	if s.texts == nil {
		s.texts = map[int]*IssueText{}
	}
	if s.texts[n] == nil {
		t := s.issueText(n, nil)
		s.texts[n] = &t
	}
	x := s.texts[n]
	if in.Title != nil {
		x.Title = *in.Title
	}
	if in.Body != nil {
		x.Body = *in.Body
	}
	if in.State != nil {
		x.State = *in.State
	}
	return 200, s.issueJSON(n)
}

// listIssues answers GET /repos/{owner}/{repo}/issues with labels (all of
// them), state (open by default, closed, all) and page/per_page, newest
// first, with GitHub's Link header.
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var match []int
	for n, set := range s.issues {
		t := s.issueText(n, set)
		if state != "all" && t.State != state {
			continue
		}
		ok := true
		for _, l := range strings.Split(q.Get("labels"), ",") {
			if l = strings.TrimSpace(l); l != "" && !hasLabel(set, l) {
				ok = false
			}
		}
		if ok {
			match = append(match, n)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(match)))
	from, to := page(w, r, len(match)) // extra.go
	out := []map[string]any{}
	for _, n := range match[from:to] {
		out = append(out, s.issueJSON(n))
	}
	return 200, out
}
