package githubfake

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func do(t *testing.T, s *Server, method, path, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestFakeBehavesLikeTheRESTAPI(t *testing.T) {
	t.Parallel()
	s := New()
	defer s.Close()
	s.AddIssue(1)
	for i := 0; i < 5; i++ {
		s.AddComment(1, "alice", "OWNER", "hi")
	}
	// Pagination with Link headers.
	resp, body := do(t, s, "GET", "/repos/o/r/issues/1/comments?per_page=2&page=2", "")
	var page []map[string]any
	json.Unmarshal([]byte(body), &page)
	link := resp.Header.Get("Link")
	if len(page) != 2 || !strings.Contains(link, `page=3&per_page=2>; rel="next"`) || !strings.Contains(link, `rel="prev"`) {
		t.Fatalf("page 2: %d items, Link %q", len(page), link)
	}
	if resp, _ := do(t, s, "GET", "/repos/o/r/issues/1/comments?per_page=2&page=3", ""); strings.Contains(resp.Header.Get("Link"), "next") {
		t.Fatal("last page has a next link")
	}
	// Labels: removing an absent one is a 404.
	if resp, _ := do(t, s, "DELETE", "/repos/o/r/issues/1/labels/nope", ""); resp.StatusCode != 404 {
		t.Fatalf("remove absent label: %d", resp.StatusCode)
	}
	do(t, s, "POST", "/repos/o/r/issues/1/labels", `{"labels":["x"]}`)
	if resp, _ := do(t, s, "DELETE", "/repos/o/r/issues/1/labels/X", ""); resp.StatusCode != 200 {
		t.Fatalf("remove label: %d", resp.StatusCode)
	}
	// Contents: create, then sha checks.
	put := func(content, sha string) int {
		b, _ := json.Marshal(map[string]string{"message": "m", "content": base64.StdEncoding.EncodeToString([]byte(content)), "sha": sha})
		resp, _ := do(t, s, "PUT", "/repos/o/r/contents/a/b.json", string(b))
		return resp.StatusCode
	}
	if c := put("one", ""); c != 201 {
		t.Fatalf("create: %d", c)
	}
	if c := put("two", ""); c != 422 {
		t.Fatalf("update without sha: %d", c)
	}
	if c := put("two", BlobSHA([]byte("stale"))); c != 409 {
		t.Fatalf("update with a stale sha: %d", c)
	}
	if c := put("two", BlobSHA([]byte("one"))); c != 200 {
		t.Fatalf("update: %d", c)
	}
	// The workflow token may not read /user; editing someone else's comment is refused.
	if resp, _ := do(t, s, "GET", "/user", ""); resp.StatusCode != 403 {
		t.Fatalf("GET /user: %d", resp.StatusCode)
	}
	if resp, _ := do(t, s, "PATCH", "/repos/o/r/issues/comments/1001", `{"body":"x"}`); resp.StatusCode != 403 {
		t.Fatalf("edit foreign comment: %d", resp.StatusCode)
	}
	if got := s.Calls()["GET /repos/{owner}/{repo}/issues/{number}/comments"]; got != 2 {
		t.Fatalf("calls counted %d", got)
	}
}

func TestBlobSHAIsGits(t *testing.T) {
	t.Parallel()
	// git hash-object of "hello\n"
	if got := BlobSHA([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Fatal(got)
	}
}
