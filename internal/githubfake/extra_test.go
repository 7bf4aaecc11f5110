package githubfake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// recorder is a TB that keeps what ExpectCalls reports.
type recorder struct{ errs []string }

func (r *recorder) Helper()                        {}
func (r *recorder) Errorf(format string, _ ...any) { r.errs = append(r.errs, format) }

func TestFakeReactionsPermissionsAndRepoComments(t *testing.T) {
	t.Parallel()
	s := New()
	defer s.Close()
	s.Tokens["alice-token"] = "alice"
	a := s.AddComment(1, "alice", "OWNER", "first")
	b := s.AddComment(2, "bob", "NONE", "second")
	s.EditCommentByHand(a.ID, "first, edited")

	// Reactions: one per user and content (a repeat answers 200), listed
	// with their author and time, deleted only by their author.
	if resp, _ := do(t, s, "POST", "/repos/o/r/issues/comments/1001/reactions", `{"content":"eyes"}`); resp.StatusCode != 201 {
		t.Fatalf("react: %d", resp.StatusCode)
	}
	if resp, _ := do(t, s, "POST", "/repos/o/r/issues/comments/1001/reactions", `{"content":"eyes"}`); resp.StatusCode != 200 {
		t.Fatalf("repeat reaction: %d", resp.StatusCode)
	}
	if resp, _ := do(t, s, "POST", "/repos/o/r/issues/comments/1001/reactions", `{"content":"smile"}`); resp.StatusCode != 422 {
		t.Fatalf("invalid reaction: %d", resp.StatusCode)
	}
	_, body := do(t, s, "GET", "/repos/o/r/issues/comments/1001/reactions", "")
	var rs []struct {
		ID      int64  `json:"id"`
		Content string `json:"content"`
		Created string `json:"created_at"`
		User    struct{ Login string }
	}
	if json.Unmarshal([]byte(body), &rs) != nil || len(rs) != 1 || rs[0].User.Login != BotLogin || rs[0].Created == "" {
		t.Fatalf("reactions %s", body)
	}
	req := func(method, path, token string) int {
		t.Helper()
		r, _ := newRequest(s, method, path, token)
		return r
	}
	if code := req("DELETE", "/repos/o/r/issues/comments/1001/reactions/"+itoa(rs[0].ID), "alice-token"); code != 403 {
		t.Fatalf("another user's delete: %d", code)
	}
	if code := req("DELETE", "/repos/o/r/issues/comments/1001/reactions/"+itoa(rs[0].ID), ""); code != 204 || s.ReactionsBy(a.ID, BotLogin) != "" {
		t.Fatalf("delete: %d, left %q", code, s.ReactionsBy(a.ID, BotLogin))
	}

	// The repository's comments: since (by updated_at), sort, pagination.
	since := b.Updated.Format(time.RFC3339)
	_, body = do(t, s, "GET", "/repos/o/r/issues/comments?since="+since+"&sort=updated&direction=asc", "")
	var cs []struct {
		ID       int64  `json:"id"`
		IssueURL string `json:"issue_url"`
	}
	if json.Unmarshal([]byte(body), &cs) != nil || len(cs) != 2 || cs[0].ID != b.ID || cs[1].ID != a.ID || !strings.HasSuffix(cs[0].IssueURL, "/issues/2") {
		t.Fatalf("since %s, by update: %s", since, body)
	}
	resp, body := do(t, s, "GET", "/repos/o/r/issues/comments?per_page=1", "")
	if json.Unmarshal([]byte(body), &cs) != nil || len(cs) != 1 || cs[0].ID != a.ID || !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("page 1 by creation: %s %q", body, resp.Header.Get("Link"))
	}
	if resp, _ := do(t, s, "GET", "/repos/o/r/issues/comments?since=yesterday", ""); resp.StatusCode != 422 {
		t.Fatalf("bad since: %d", resp.StatusCode)
	}

	// Permissions: role_name as set, permission folded as GitHub does.
	s.SetPermission("mia", "maintain")
	for user, want := range map[string]string{"mia": `"permission":"write","role_name":"maintain"`, "zed": `"permission":"read","role_name":"read"`} {
		if _, body := do(t, s, "GET", "/repos/o/r/collaborators/"+user+"/permission", ""); !strings.Contains(body, want) {
			t.Fatalf("%s: %s", user, body)
		}
	}

	// GET /user: refused to the workflow token, answered to a mapped one.
	if code := req("GET", "/user", ""); code != 403 {
		t.Fatalf("workflow token /user: %d", code)
	}
	if code := req("GET", "/user", "alice-token"); code != 200 {
		t.Fatalf("personal token /user: %d", code)
	}

	// The call log: what was expected and did not happen is reported.
	rec := &recorder{}
	s.ExpectCalls(rec, "GET /repos/o/r/collaborators/mia/permission", "GET /repos/{owner}/{repo}/collaborators/{user}/permission")
	if len(rec.errs) != 0 {
		t.Fatalf("expected calls reported missing: %v", rec.errs)
	}
	if m := s.Missing("GET /repos/o/r/collaborators/mia/permission", "GET /repos/o/r/collaborators/mia/permission"); len(m) != 1 {
		t.Fatalf("one call satisfied two expectations: %v", m)
	}
	s.ExpectCalls(rec, "PATCH /repos/o/r/issues/comments/1001")
	if len(rec.errs) != 1 {
		t.Fatal("a missing call was not reported")
	}
	s.ResetCounts()
	if len(s.Log()) != 0 {
		t.Fatal("ResetCounts kept the log")
	}
}

// newRequest sends an empty-bodied request with token (none: the
// workflow token) and returns the status.
func newRequest(s *Server, method, path, token string) (int, error) {
	req, err := http.NewRequest(method, s.URL()+path, nil)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
