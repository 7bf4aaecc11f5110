package githubfake

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Answers GitHub gives that a workflow token meets in real repositories,
// for Fault hooks, and a check that the calls a test expects happened.

// NotAccessible is the 403 of a token without a permission the call
// needs: GitHub's message, and the X-Accepted-GitHub-Permissions header
// naming what would do (e.g. "issues=write" or
// "issues=write; pull_requests=write"; empty: no header).
func NotAccessible(accepted string) *Response {
	h := http.Header{}
	if accepted != "" {
		h.Set("X-Accepted-GitHub-Permissions", accepted)
	}
	return &Response{Status: 403, Header: h,
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`}
}

// RulesetViolation is a ref update refused by a repository ruleset (as
// opposed to classic branch protection, ProtectBranch's 422): status 409
// or 422 and GitHub's "Repository rule violations found" message.
func RulesetViolation(status int) *Response {
	return &Response{Status: status,
		Body: `{"message":"Repository rule violations found\n\nCannot update this protected ref.\n\n","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"` + fmt.Sprint(status) + `"}`}
}

// MissingCounts returns the routes called fewer times than want says (each as
// "route: got N, want at least M"), sorted: empty when every expected
// call happened.
func (s *Server) MissingCounts(want map[string]int) []string {
	calls := s.Calls()
	var out []string
	for route, n := range want {
		if calls[route] < n {
			out = append(out, fmt.Sprintf("%s: got %d, want at least %d", route, calls[route], n))
		}
	}
	sort.Strings(out)
	return out
}

// SetIssueLabels replaces an issue's labels, as a person editing the
// issue by hand would.
func (s *Server) SetIssueLabels(issue int, names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issues[issue] = map[string]bool{}
	s.labelSet(s.issues[issue], names)
}

// labelSet adds names to set under their repository spelling; GitHub
// creates an unknown label with a default colour.
func (s *Server) labelSet(set map[string]bool, names []string) {
	for _, name := range names {
		l, ok := s.labels[strings.ToLower(name)]
		if !ok {
			l = &Label{Name: name, Color: "ededed"}
			s.labels[strings.ToLower(name)] = l
		}
		set[l.Name] = true
	}
}

// SetFault sets Fault under the fake's lock, for a test that changes it
// while requests may arrive (from another process, with no other
// synchronisation between the two).
func (s *Server) SetFault(f func(Call) *Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Fault = f
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
