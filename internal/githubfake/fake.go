// Package githubfake is an in-process fake of the GitHub REST API on
// net/http/httptest, faithful where GitHub Mode depends on it: issues and
// their labels, issue comments (paginated lists with Link headers, create,
// edit, delete, reactions), repository labels, the contents API with sha
// checks and 409/422 conflicts, rate-limit responses with their headers, 5xx
// faults injected at chosen calls, and comments by other users. It counts
// calls by method and route so tests can assert API-call figures.
// The demo program (cmd/agentx-action-demo) uses it too, which is why it is
// not a _test package; agentx-action itself must never link it.
package githubfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BotLogin is the identity of the workflow token (GITHUB_TOKEN).
const BotLogin = "github-actions[bot]"

// Comment is one issue comment as the fake stores it.
type Comment struct {
	ID          int64
	Issue       int
	User        string
	Association string
	Body        string
	Created     time.Time
	Updated     time.Time
	Reactions   []string
}

// Label is a repository label.
type Label struct {
	Name        string
	Color       string
	Description string
}

// Call is one request as the fault hook sees it.
type Call struct {
	Method string
	// Route is the pattern, e.g. "POST /repos/{owner}/{repo}/issues/{number}/comments".
	Route string
	// Seq counts every call from 1; WriteSeq counts writes (non-GET) from 1,
	// zero for reads.
	Seq, WriteSeq int
	// Path is the request's path and query, e.g. "/repos/o/r/issues/comments?since=...".
	Path string
}

// Response is an injected answer.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Server is the fake. Zero configuration: New, then seed with the helpers.
type Server struct {
	mu       sync.Mutex
	ts       *httptest.Server
	issues   map[int]map[string]bool // issue -> label set
	comments map[int64]*Comment
	nextID   int64
	labels   map[string]*Label
	files    map[string][]byte
	texts    map[int]*IssueText // issues opened through the API (issues.go)
	tick     time.Time
	calls    map[string]int
	seq      int
	writes   int
	reads    int
	gitdata  *gitData
	extra    *extraData    // reactions, permissions, the call log (extra.go)
	pulls    map[int]*Pull // pull requests and their reviews (pulls.go)

	// Tokens maps a bearer token to a login; an unknown token acts as BotLogin.
	Tokens map[string]string
	// Fault, when set, may answer a call instead of the fake (a 502, a rate
	// limit). Injected answers are counted like any call and change nothing.
	Fault func(Call) *Response
	// AfterWrite runs after each successful write with the write count,
	// outside the fake's lock (a test cancels a run there).
	AfterWrite func(n int)
	// BeforeContentsPut runs before a contents PUT is checked, outside the
	// lock (a test interleaves two writers there).
	BeforeContentsPut func(path string)
	// FaultAfter, when set, may replace the answer to a call the fake has
	// already carried out (a 502 after the comment was in fact created).
	FaultAfter FaultFunc
}

// New starts a fake. Close it with Close.
func New() *Server {
	s := &Server{
		issues: map[int]map[string]bool{}, comments: map[int64]*Comment{}, nextID: 1000,
		labels: map[string]*Label{}, files: map[string][]byte{}, calls: map[string]int{},
		tick: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Tokens: map[string]string{},
	}
	s.ts = httptest.NewServer(s.routes())
	return s
}

// URL is the API root (what GITHUB_API_URL would be).
func (s *Server) URL() string { return s.ts.URL }

// Client is an HTTP client for the fake.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close stops the server.
func (s *Server) Close() { s.ts.Close() }

// AddIssue creates issue n (idempotent).
func (s *Server) AddIssue(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issues[n] == nil {
		s.issues[n] = map[string]bool{}
	}
}

// AddComment posts a comment as user with the given author association.
func (s *Server) AddComment(issue int, user, association, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issues[issue] == nil {
		s.issues[issue] = map[string]bool{}
	}
	return *s.addComment(issue, user, association, body)
}

func (s *Server) addComment(issue int, user, association, body string) *Comment {
	s.nextID++
	s.tick = s.tick.Add(time.Second)
	c := &Comment{ID: s.nextID, Issue: issue, User: user, Association: association, Body: body, Created: s.tick, Updated: s.tick}
	s.comments[c.ID] = c
	return c
}

// Comments returns the comments of issue, oldest first.
func (s *Server) Comments(issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.sortedComments(issue) {
		out = append(out, *c)
	}
	return out
}

// Comment returns one comment by id.
func (s *Server) Comment(id int64) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.comments[id]
	if !ok {
		return Comment{}, false
	}
	return *c, true
}

// CommentCount is the number of comments on all issues.
func (s *Server) CommentCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.comments)
}

// IssueLabels returns the label names on issue, sorted.
func (s *Server) IssueLabels(issue int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for l := range s.issues[issue] {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// RepoLabel returns a repository label.
func (s *Server) RepoLabel(name string) (Label, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.labels[strings.ToLower(name)]
	if !ok {
		return Label{}, false
	}
	return *l, true
}

// SetFile stores a file in the repository.
func (s *Server) SetFile(path string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = append([]byte(nil), content...)
}

// File returns a file's content.
func (s *Server) File(path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.files[path]
	return append([]byte(nil), b...), ok
}

// Calls returns the call counts by "METHOD route".
func (s *Server) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// Writes and Reads count calls since the last ResetCounts (injected
// answers included: they cost the caller a request all the same).
func (s *Server) Writes() int { s.mu.Lock(); defer s.mu.Unlock(); return s.writes }

// Reads counts GET calls.
func (s *Server) Reads() int { s.mu.Lock(); defer s.mu.Unlock(); return s.reads }

// ResetCounts zeroes the call counters.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.writes, s.reads = map[string]int{}, 0, 0
	s.ext().log = nil
}

// Snapshot is a copy of the fake's data (not its counters or hooks).
type Snapshot struct {
	issues   map[int]map[string]bool
	comments map[int64]Comment
	labels   map[string]Label
	files    map[string][]byte
	nextID   int64
	tick     time.Time
}

// Snapshot copies the data, so a test can replay a scenario from a point.
func (s *Server) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

// snapshotLocked is Snapshot under s.mu.
func (s *Server) snapshotLocked() Snapshot {
	snap := Snapshot{issues: map[int]map[string]bool{}, comments: map[int64]Comment{}, labels: map[string]Label{},
		files: map[string][]byte{}, nextID: s.nextID, tick: s.tick}
	for n, set := range s.issues {
		snap.issues[n] = map[string]bool{}
		for l := range set {
			snap.issues[n][l] = true
		}
	}
	for id, c := range s.comments {
		c2 := *c
		c2.Reactions = append([]string(nil), c.Reactions...)
		snap.comments[id] = c2
	}
	for k, l := range s.labels {
		snap.labels[k] = *l
	}
	for k, f := range s.files {
		snap.files[k] = append([]byte(nil), f...)
	}
	return snap
}

// Restore puts a snapshot's data back.
func (s *Server) Restore(snap Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restoreLocked(snap)
}

// restoreLocked is Restore under s.mu.
func (s *Server) restoreLocked(snap Snapshot) {
	s.issues, s.comments, s.labels, s.files = map[int]map[string]bool{}, map[int64]*Comment{}, map[string]*Label{}, map[string][]byte{}
	for n, set := range snap.issues {
		s.issues[n] = map[string]bool{}
		for l := range set {
			s.issues[n][l] = true
		}
	}
	for id, c := range snap.comments {
		c2 := c
		c2.Reactions = append([]string(nil), c.Reactions...)
		s.comments[id] = &c2
	}
	for k, l := range snap.labels {
		l2 := l
		s.labels[k] = &l2
	}
	for k, f := range snap.files {
		s.files[k] = append([]byte(nil), f...)
	}
	s.nextID, s.tick = snap.nextID, snap.tick
}

// BlobSHA is git's blob id of content, which is what the contents API
// calls a file's sha.
func BlobSHA(content []byte) string { return gitHash("blob", content) }

func (s *Server) sortedComments(issue int) []*Comment {
	var out []*Comment
	for _, c := range s.comments {
		if c.Issue == issue {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// handler is one route's implementation, run under the lock.
type handler func(w http.ResponseWriter, r *http.Request, login string) (status int, body any)

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	add := func(pattern string, h handler) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, pattern, h) })
	}
	add("GET /user", func(_ http.ResponseWriter, _ *http.Request, login string) (int, any) {
		// The workflow token may not read its own user: GitHub answers 403.
		// A token mapped in Tokens (a personal access token) reads it.
		if login == BotLogin {
			return 403, msg("Resource not accessible by integration")
		}
		return 200, map[string]any{"login": login, "type": "User"}
	})
	add("GET /repos/{owner}/{repo}/issues/{number}", s.getIssue)
	add("GET /repos/{owner}/{repo}/issues/{number}/comments", s.listComments)
	add("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	add("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	add("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.deleteComment)
	add("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", s.react)
	add("GET /repos/{owner}/{repo}/labels/{name}", s.getLabel)
	add("POST /repos/{owner}/{repo}/labels", s.createLabel)
	add("POST /repos/{owner}/{repo}/issues/{number}/labels", s.addLabels)
	add("DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}", s.removeLabel)
	add("GET /repos/{owner}/{repo}/contents/{path...}", s.getContents)
	add("PUT /repos/{owner}/{repo}/contents/{path...}", s.putContents)
	s.issueRoutes(add)
	s.addGitRoutes(add)
	s.addExtraRoutes(add)
	s.addPullRoutes(add)         // pulls.go
	s.addArchiveRoutes(add, mux) // archive.go
	return mux
}

func msg(m string) map[string]string { return map[string]string{"message": m} }

func (s *Server) serve(w http.ResponseWriter, r *http.Request, pattern string, h handler) {
	login := BotLogin
	if tok := strings.TrimPrefix(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "token "); tok != "" {
		if l, ok := s.Tokens[tok]; ok {
			login = l
		}
	}
	s.mu.Lock()
	s.seq++
	s.calls[pattern]++
	call := Call{Method: r.Method, Route: pattern, Seq: s.seq, Path: r.URL.RequestURI()}
	s.ext().log = append(s.ext().log, call)
	if r.Method == http.MethodGet {
		s.reads++
	} else {
		s.writes++
		call.WriteSeq = s.writes
	}
	fault := s.Fault
	s.mu.Unlock()

	if fault != nil {
		if resp := fault(call); resp != nil {
			for k, vs := range resp.Header {
				for _, v := range vs {
					w.Header().Add(k, v)
				}
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(resp.Status)
			_, _ = io.WriteString(w, resp.Body) // a test client that went away
			return
		}
	}
	if pattern == "PUT /repos/{owner}/{repo}/contents/{path...}" && s.BeforeContentsPut != nil {
		s.BeforeContentsPut(r.PathValue("path"))
	}
	s.mu.Lock()
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "4999")
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(s.tick.Add(time.Hour).Unix(), 10))
	status, body := h(w, r, login)
	after := s.AfterWrite
	n := s.writes
	faultAfter := s.FaultAfter
	s.mu.Unlock()
	if lost := faultAfter.answer(call, status); lost != nil { // extra.go
		if lost.Status == statusDropped {
			dropConnection(w)
			return
		}
		status, body = lost.Status, json.RawMessage(lost.Body)
	}

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
	if r.Method != http.MethodGet && status < 300 && after != nil {
		after(n)
	}
}

func issueNumber(r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("number"))
	return n, err == nil && n > 0
}

func commentJSON(c *Comment, base string) map[string]any {
	typ := "User"
	if strings.HasSuffix(c.User, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{
		"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.User, "type": typ},
		"author_association": c.Association,
		"created_at":         c.Created.Format(time.RFC3339), "updated_at": c.Updated.Format(time.RFC3339),
		"html_url":  fmt.Sprintf("https://github.com/o/r/issues/%d#issuecomment-%d", c.Issue, c.ID),
		"issue_url": fmt.Sprintf("%s/repos/o/r/issues/%d", base, c.Issue),
	}
}

func labelsJSON(set map[string]bool, all map[string]*Label) []map[string]any {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []map[string]any{}
	for _, n := range names {
		l := all[strings.ToLower(n)]
		out = append(out, map[string]any{"name": l.Name, "color": l.Color, "description": l.Description})
	}
	return out
}
