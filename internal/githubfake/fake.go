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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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

func (s *Server) getIssue(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	set, exists := s.issues[n]
	if !ok || !exists {
		return 404, msg("Not Found")
	}
	return 200, map[string]any{"number": n, "state": "open", "title": fmt.Sprintf("Issue %d", n), "labels": labelsJSON(set, s.labels)}
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	if _, exists := s.issues[n]; !ok || !exists {
		return 404, msg("Not Found")
	}
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	page, _ := strconv.Atoi(q.Get("page"))
	if page <= 0 {
		page = 1
	}
	all := s.sortedComments(n)
	last := (len(all) + per - 1) / per
	if last == 0 {
		last = 1
	}
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		v := url.Values{}
		v.Set("per_page", strconv.Itoa(per))
		v.Set("page", strconv.Itoa(p))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := []map[string]any{}
	for i := (page - 1) * per; i < len(all) && i < page*per; i++ {
		out = append(out, commentJSON(all[i], "http://"+r.Host))
	}
	return 200, out
}

func decode(r *http.Request, v any) bool { return json.NewDecoder(r.Body).Decode(v) == nil }

func (s *Server) createComment(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	n, ok := issueNumber(r)
	if _, exists := s.issues[n]; !ok || !exists {
		return 404, msg("Not Found")
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(r, &in) || in.Body == nil || *in.Body == "" {
		return 422, msg("Validation Failed")
	}
	if len(*in.Body) > 65536 {
		return 422, msg("Validation Failed: body is too long (maximum is 65536 characters)")
	}
	c := s.addComment(n, login, "NONE", *in.Body)
	return 201, commentJSON(c, "http://"+r.Host)
}

func (s *Server) commentByID(r *http.Request) *Comment {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil
	}
	return s.comments[id]
}

func (s *Server) editComment(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	if c.User != login {
		return 403, msg("Must have admin rights to Repository.")
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(r, &in) || in.Body == nil || *in.Body == "" {
		return 422, msg("Validation Failed")
	}
	s.tick = s.tick.Add(time.Second)
	c.Body, c.Updated = *in.Body, s.tick
	return 200, commentJSON(c, "http://"+r.Host)
}

func (s *Server) deleteComment(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	delete(s.comments, c.ID)
	return 204, nil
}

func (s *Server) react(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	var in struct {
		Content string `json:"content"`
	}
	valid := map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true}
	if !decode(r, &in) || !valid[in.Content] {
		return 422, msg("Validation Failed")
	}
	return s.addReaction(c, login, in.Content, "http://"+r.Host) // extra.go
}

func (s *Server) getLabel(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	l, ok := s.labels[strings.ToLower(r.PathValue("name"))]
	if !ok {
		return 404, msg("Not Found")
	}
	return 200, map[string]any{"name": l.Name, "color": l.Color, "description": l.Description}
}

func (s *Server) createLabel(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in Label
	var raw struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !decode(r, &raw) || raw.Name == "" {
		return 422, msg("Validation Failed")
	}
	in = Label{Name: raw.Name, Color: raw.Color, Description: raw.Description}
	if _, ok := s.labels[strings.ToLower(in.Name)]; ok {
		return 422, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "Label", "code": "already_exists", "field": "name"}}}
	}
	s.labels[strings.ToLower(in.Name)] = &in
	return 201, map[string]any{"name": in.Name, "color": in.Color, "description": in.Description}
}

func (s *Server) addLabels(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	set, exists := s.issues[n]
	if !ok || !exists {
		return 404, msg("Not Found")
	}
	var names []string
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &names) != nil {
		var in struct {
			Labels []string `json:"labels"`
		}
		if json.Unmarshal(body, &in) != nil {
			return 422, msg("Validation Failed")
		}
		names = in.Labels
	}
	s.labelSet(set, names)
	return 200, labelsJSON(set, s.labels)
}

func (s *Server) removeLabel(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	set, exists := s.issues[n]
	if !ok || !exists {
		return 404, msg("Not Found")
	}
	name := r.PathValue("name")
	for have := range set {
		if strings.EqualFold(have, name) {
			delete(set, have)
			return 200, labelsJSON(set, s.labels)
		}
	}
	return 404, msg("Label does not exist")
}

func (s *Server) getContents(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	p := r.PathValue("path")
	data, ok := s.files[p]
	if !ok {
		return 404, msg("Not Found")
	}
	enc := base64.StdEncoding.EncodeToString(data)
	// GitHub wraps the base64 at 60 characters.
	var wrapped strings.Builder
	for len(enc) > 60 {
		wrapped.WriteString(enc[:60] + "\n")
		enc = enc[60:]
	}
	wrapped.WriteString(enc)
	name := p[strings.LastIndex(p, "/")+1:]
	return 200, map[string]any{"type": "file", "encoding": "base64", "size": len(data), "name": name, "path": p,
		"content": wrapped.String(), "sha": BlobSHA(data)}
}

func (s *Server) putContents(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	p := r.PathValue("path")
	var in struct {
		Message string `json:"message"`
		Content string `json:"content"`
		SHA     string `json:"sha"`
		Branch  string `json:"branch"`
	}
	if !decode(r, &in) || in.Message == "" {
		return 422, msg("Invalid request.\n\n\"message\" wasn't supplied.")
	}
	data, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil {
		return 422, msg("content is not valid Base64")
	}
	cur, exists := s.files[p]
	switch {
	case exists && in.SHA == "":
		return 422, msg("Invalid request.\n\n\"sha\" wasn't supplied.")
	case exists && in.SHA != BlobSHA(cur):
		return 409, msg(fmt.Sprintf("%s does not match %s", p, in.SHA))
	case !exists && in.SHA != "":
		return 409, msg(fmt.Sprintf("%s does not match %s", p, in.SHA))
	}
	s.files[p] = data
	status := 200
	if !exists {
		status = 201
	}
	sha := BlobSHA(data)
	return status, map[string]any{
		"content": map[string]any{"name": p[strings.LastIndex(p, "/")+1:], "path": p, "sha": sha},
		"commit":  map[string]any{"sha": BlobSHA([]byte(in.Message + sha)), "message": in.Message},
	}
}

// HoldContentsPuts makes the first n contents PUTs wait until all n have
// arrived (or timeout passed), so n writers are sure to have read the same
// sha before any of them writes: a deterministic optimistic-concurrency race.
func (s *Server) HoldContentsPuts(n int, timeout time.Duration) {
	hold := holdUntil(n, timeout)
	s.BeforeContentsPut = func(string) { hold() }
}

// holdUntil returns a function whose first n calls each wait until all n
// have been made (or timeout passed: a broken writer must not hang a
// test); later calls pass.
func holdUntil(n int, timeout time.Duration) func() {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func() {
		mu.Lock()
		arrived++
		k := arrived
		mu.Unlock()
		if k == n {
			close(all)
		}
		if k <= n {
			select {
			case <-all:
			case <-time.After(timeout):
			}
		}
	}
}

// SecondaryLimit is the 403 GitHub sends past its secondary rate limits.
func SecondaryLimit(retryAfter int) *Response {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(retryAfter))
	return &Response{Status: 403, Header: h, Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
}

// TooManyRequests is a 429 with Retry-After.
func TooManyRequests(retryAfter int) *Response {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(retryAfter))
	return &Response{Status: 429, Header: h, Body: `{"message":"Too Many Requests"}`}
}

// PrimaryLimit is the 403 of an exhausted primary quota: remaining 0 and
// the reset time in epoch seconds.
func PrimaryLimit(reset time.Time) *Response {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	return &Response{Status: 403, Header: h, Body: `{"message":"API rate limit exceeded for installation."}`}
}

// Dropped, as a FaultAfter answer, closes the connection once the call
// was carried out, before any answer: the client sees a network error
// (EOF) and cannot tell whether its write landed.
func Dropped() *Response { return &Response{Status: statusDropped} }

const statusDropped = -1

func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("githubfake: the server's ResponseWriter cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close() // closing is the fault; nothing to report
	}
}

// BadGateway is a 502.
func BadGateway() *Response {
	return &Response{Status: 502, Body: `{"message":"Server Error"}`}
}
