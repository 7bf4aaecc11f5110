package sync

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scripted answers each request with the next canned response.
type scripted struct {
	resps  []*http.Response
	bodies []string
	n      int
}

func (s *scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		s.bodies = append(s.bodies, string(b))
	}
	r := s.resps[s.n]
	s.n++
	return r, nil
}

func resp(code int, hdr map[string]string, body string) *http.Response {
	h := http.Header{}
	for k, v := range hdr {
		h.Set(k, v)
	}
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

func TestTransportRetries(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	reset := strconv.FormatInt(now.Add(90*time.Second).Unix(), 10)
	tests := []struct {
		name   string
		resps  []*http.Response
		status int
		waits  []time.Duration
	}{
		{"ok", []*http.Response{resp(200, nil, "")}, 200, nil},
		{"429 retry-after", []*http.Response{resp(429, map[string]string{"Retry-After": "7"}, ""), resp(201, nil, "")}, 201, []time.Duration{7 * time.Second}},
		{"429 reset header", []*http.Response{resp(429, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, ""), resp(201, nil, "")}, 201, []time.Duration{91 * time.Second}},
		{"403 secondary with retry-after", []*http.Response{resp(403, map[string]string{"Retry-After": "60"}, `{"message":"secondary rate limit"}`), resp(201, nil, "")}, 201, []time.Duration{time.Minute}},
		{"403 secondary without header", []*http.Response{resp(403, nil, `{"message":"You have exceeded a secondary rate limit."}`), resp(201, nil, "")}, 201, []time.Duration{time.Minute}},
		{"403 primary exhausted", []*http.Response{resp(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, `{"message":"API rate limit exceeded"}`), resp(201, nil, "")}, 201, []time.Duration{91 * time.Second}},
		{"403 permission is final", []*http.Response{resp(403, nil, `{"message":"Resource not accessible by integration"}`)}, 403, nil},
		{"5xx backoff", []*http.Response{resp(502, nil, ""), resp(503, nil, ""), resp(500, nil, ""), resp(201, nil, "")}, 201, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		// Past max-wait the request ends with ErrRateLimited (status 0 here).
		{"wait too long is final", []*http.Response{resp(429, map[string]string{"Retry-After": "3600"}, "")}, 0, nil},
		{"404 is final", []*http.Response{resp(404, nil, "")}, 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &scripted{resps: tt.resps}
			var sl sleeps
			tr := &Transport{Base: base, Sleep: sl.sleep, Now: func() time.Time { return now }}
			req, _ := http.NewRequest("POST", "http://x/repos/o/r/issues/1/comments", strings.NewReader(`{"body":"hi"}`))
			r, err := tr.RoundTrip(req)
			if tt.status == 0 {
				if !errors.Is(err, ErrRateLimited) {
					t.Fatalf("err %v, want ErrRateLimited", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", r.StatusCode, tt.status)
			}
			if len(sl.got) != len(tt.waits) {
				t.Fatalf("waits %v, want %v", sl.got, tt.waits)
			}
			for i := range tt.waits {
				if sl.got[i] != tt.waits[i] {
					t.Fatalf("waits %v, want %v", sl.got, tt.waits)
				}
			}
			for _, b := range base.bodies {
				if b != `{"body":"hi"}` {
					t.Fatalf("retried with body %q", b)
				}
			}
			if b, _ := io.ReadAll(r.Body); tt.status == 403 && !strings.Contains(string(b), "not accessible") {
				t.Fatalf("final 403 body lost: %q", b)
			}
		})
	}
}

func TestTransportPacesWritesNotReads(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	base := &scripted{resps: []*http.Response{resp(201, nil, ""), resp(200, nil, ""), resp(201, nil, ""), resp(201, nil, "")}}
	var sl sleeps
	tr := &Transport{Base: base, WriteInterval: DefaultWriteInterval, Now: func() time.Time { return now },
		Sleep: func(ctx context.Context, d time.Duration) error { now = now.Add(d); return sl.sleep(ctx, d) }}
	do := func(method string) {
		req, _ := http.NewRequest(method, "http://x/y", nil)
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	do("POST")
	do("GET")
	do("POST")
	now = now.Add(time.Second) // a slow caller needs no wait
	do("PATCH")
	if len(sl.got) != 1 || sl.got[0] != DefaultWriteInterval {
		t.Fatalf("waits %v, want one of %v", sl.got, DefaultWriteInterval)
	}
	if 60*time.Second/DefaultWriteInterval > 80 {
		t.Fatalf("interval %v allows more than 80 writes a minute", DefaultWriteInterval)
	}
}
