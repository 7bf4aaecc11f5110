package githubfake

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// What the action's operational edges need besides issues and the state
// branch: reactions by user with their time (list, create, delete),
// collaborator permissions (private organisation members show as
// CONTRIBUTOR or NONE in author_association), the repository-wide comment
// listing with `since`, hand edits a person makes, and a log of every call
// so a test can check that each expected call happened.

// Reaction is one reaction as the fake stores it.
type Reaction struct {
	ID      int64
	User    string
	Content string
	Created time.Time
}

type extraData struct {
	reactions   map[int64][]Reaction // comment id -> reactions, oldest first
	nextReact   int64
	permissions map[string]string // lower-case login -> role name
	log         []Call
}

func (s *Server) ext() *extraData {
	if s.extra == nil {
		s.extra = &extraData{reactions: map[int64][]Reaction{}, nextReact: 5000, permissions: map[string]string{}}
	}
	return s.extra
}

func (s *Server) addExtraRoutes(add func(string, handler)) {
	add("GET /repos/{owner}/{repo}/issues/comments", s.listRepoComments)
	add("GET /repos/{owner}/{repo}/issues/comments/{id}/reactions", s.listReactions)
	add("DELETE /repos/{owner}/{repo}/issues/comments/{id}/reactions/{reaction}", s.deleteReaction)
	add("GET /repos/{owner}/{repo}/collaborators/{user}/permission", s.getPermission)
}

// SetPermission gives login a repository role: admin, maintain, write,
// triage or read (GitHub's role_name). Anyone else reads (a public
// repository).
func (s *Server) SetPermission(login, role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext().permissions[strings.ToLower(login)] = role
}

// Reactions returns the reactions on comment id, oldest first.
func (s *Server) Reactions(id int64) []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Reaction(nil), s.ext().reactions[id]...)
}

// ReactionsBy returns the contents of login's reactions on comment id,
// oldest first, joined by commas ("eyes,+1").
func (s *Server) ReactionsBy(id int64, login string) string {
	var out []string
	for _, r := range s.Reactions(id) {
		if strings.EqualFold(r.User, login) {
			out = append(out, r.Content)
		}
	}
	return strings.Join(out, ",")
}

// EditCommentByHand replaces a comment's body as its author would on the
// web: updated_at moves, and no call is counted.
func (s *Server) EditCommentByHand(id int64, body string) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.comments[id]
	if !ok {
		return Comment{}, false
	}
	s.tick = s.tick.Add(time.Second)
	c.Body, c.Updated = body, s.tick
	return *c, true
}

// DeleteCommentByHand deletes a comment as a person would on the web.
func (s *Server) DeleteCommentByHand(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.comments[id]
	delete(s.comments, id)
	return ok
}

// RemoveLabelByHand takes label off issue as a person would on the web.
func (s *Server) RemoveLabelByHand(issue int, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for have := range s.issues[issue] {
		if strings.EqualFold(have, label) {
			delete(s.issues[issue], have)
		}
	}
}

// Advance moves the fake's clock (comment and reaction times) by d.
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick = s.tick.Add(d)
}

// Now is the fake's clock: the time the next comment or edit is stamped
// with, less one second.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tick
}

// Log returns every call since the last ResetCounts, in order.
func (s *Server) Log() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.ext().log...)
}

// Missing returns the expected calls that did not happen. Each is
// "METHOD route" (the pattern, as in Calls) or "METHOD path-prefix"
// ("POST /repos/o/r/issues/comments/1001/reactions"); each call in the log
// satisfies one expectation at most, so an expectation listed twice needs
// two calls. Expectations take the first unused call that fits, in the
// order given: list a specific path before a route it also fits.
func (s *Server) Missing(want ...string) []string {
	log := s.Log()
	used := make([]bool, len(log))
	var missing []string
	for _, w := range want {
		method, target, _ := strings.Cut(w, " ")
		found := false
		for i, c := range log {
			if used[i] || c.Method != method || (c.Route != w && !strings.HasPrefix(c.Path, target)) {
				continue
			}
			used[i], found = true, true
			break
		}
		if !found {
			missing = append(missing, w)
		}
	}
	return missing
}

// TB is the part of testing.TB ExpectCalls uses (the fake is linked by the
// demo, which must not import testing).
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// ExpectCalls fails t for each expected call that did not happen (see
// Missing), listing the calls that did.
func (s *Server) ExpectCalls(t TB, want ...string) {
	t.Helper()
	if missing := s.Missing(want...); len(missing) > 0 {
		var got []string
		for _, c := range s.Log() {
			got = append(got, c.Method+" "+c.Path)
		}
		t.Errorf("expected calls did not happen: %q\ncalls made:\n  %s", missing, strings.Join(got, "\n  "))
	}
}

// addReaction is POST .../reactions: a reaction a user already made is
// answered 200 with the existing one (GitHub's behaviour), a new one 201.
func (s *Server) addReaction(c *Comment, login, content, _ string) (int, any) {
	x := s.ext()
	for _, r := range x.reactions[c.ID] {
		if r.User == login && r.Content == content {
			return 200, reactionJSON(r)
		}
	}
	x.nextReact++
	s.tick = s.tick.Add(time.Second)
	r := Reaction{ID: x.nextReact, User: login, Content: content, Created: s.tick}
	x.reactions[c.ID] = append(x.reactions[c.ID], r)
	s.syncReactions(c)
	return 201, reactionJSON(r)
}

// syncReactions keeps Comment.Reactions (contents, once each, oldest
// first) in step with the reactions stored by user.
func (s *Server) syncReactions(c *Comment) {
	c.Reactions = nil
	seen := map[string]bool{}
	for _, r := range s.ext().reactions[c.ID] {
		if !seen[r.Content] {
			seen[r.Content] = true
			c.Reactions = append(c.Reactions, r.Content)
		}
	}
}

func reactionJSON(r Reaction) map[string]any {
	typ := "User"
	if strings.HasSuffix(r.User, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{"id": r.ID, "content": r.Content, "user": map[string]any{"login": r.User, "type": typ},
		"created_at": r.Created.Format(time.RFC3339)}
}

// page cuts n items into GitHub's pages (per_page at most 100, default
// 30) and sets the Link header; it returns the index range to answer.
func page(w http.ResponseWriter, r *http.Request, n int) (from, to int) {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	p, _ := strconv.Atoi(q.Get("page"))
	p = max(p, 1)
	if p*per < n {
		link := func(page int) string {
			v := url.Values{}
			for k, vs := range q {
				v[k] = vs
			}
			v.Set("page", strconv.Itoa(page))
			u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: v.Encode()}
			return u.String()
		}
		// GitHub names the last page too.
		w.Header().Set("Link", fmt.Sprintf("<%s>; rel=\"next\", <%s>; rel=\"last\"", link(p+1), link((n+per-1)/per)))
	}
	from = min((p-1)*per, n)
	return from, min(from+per, n)
}

func (s *Server) listReactions(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	all := s.ext().reactions[c.ID]
	from, to := page(w, r, len(all))
	out := []map[string]any{}
	for _, re := range all[from:to] {
		out = append(out, reactionJSON(re))
	}
	return 200, out
}

func (s *Server) deleteReaction(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	c := s.commentByID(r)
	id, err := strconv.ParseInt(r.PathValue("reaction"), 10, 64)
	if c == nil || err != nil {
		return 404, msg("Not Found")
	}
	x := s.ext()
	for i, re := range x.reactions[c.ID] {
		if re.ID != id {
			continue
		}
		if re.User != login {
			return 403, msg("Must have admin rights to Repository.")
		}
		x.reactions[c.ID] = append(x.reactions[c.ID][:i:i], x.reactions[c.ID][i+1:]...)
		s.syncReactions(c)
		return 204, nil
	}
	return 404, msg("Not Found")
}

// listRepoComments is GET /repos/{owner}/{repo}/issues/comments: every
// issue's comments, `since` (updated at or after, ISO 8601), sort created
// (default) or updated, direction asc (default) or desc, paginated.
func (s *Server) listRepoComments(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return 422, msg("Invalid request.\n\nInvalid value for \"since\".")
		}
		since = t
	}
	var all []*Comment
	for _, c := range s.comments {
		if !c.Updated.Before(since) {
			all = append(all, c)
		}
	}
	by := func(c *Comment) time.Time { return c.Created }
	if q.Get("sort") == "updated" {
		by = func(c *Comment) time.Time { return c.Updated }
	}
	desc := q.Get("direction") == "desc"
	sort.Slice(all, func(i, j int) bool {
		a, b := by(all[i]), by(all[j])
		if !a.Equal(b) {
			return a.Before(b) != desc
		}
		return (all[i].ID < all[j].ID) != desc
	})
	from, to := page(w, r, len(all))
	out := []map[string]any{}
	for _, c := range all[from:to] {
		out = append(out, commentJSON(c, "http://"+r.Host))
	}
	return 200, out
}

// getPermission is GET /repos/{owner}/{repo}/collaborators/{user}/permission:
// permission is the classic level (maintain shows as write, triage as
// read), role_name the role itself.
func (s *Server) getPermission(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	login := r.PathValue("user")
	role, ok := s.ext().permissions[strings.ToLower(login)]
	if !ok {
		role = "read"
	}
	perm := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}[role]
	if perm == "" {
		perm = "none"
	}
	return 200, map[string]any{"permission": perm, "role_name": role,
		"user": map[string]any{"login": login, "type": "User"}}
}

// FaultFunc answers a call in place of the fake (nil: the fake's answer).
type FaultFunc func(Call) *Response

// answer is f's answer to a call that succeeded, if any.
func (f FaultFunc) answer(call Call, status int) *Response {
	if f == nil || status >= 300 {
		return nil
	}
	return f(call)
}

// SetFaultAfter sets FaultAfter under the fake's lock, for a test whose
// requests come from another process (the built binary): without the
// lock nothing orders the test's write before the server's read.
func (s *Server) SetFaultAfter(f FaultFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.FaultAfter = f
}
