package sync

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

// deadlineSeer records whether each attempt carried a deadline.
type deadlineSeer struct {
	scripted
	deadlines []bool
}

func (d *deadlineSeer) RoundTrip(req *http.Request) (*http.Response, error) {
	_, ok := req.Context().Deadline()
	d.deadlines = append(d.deadlines, ok)
	return d.scripted.RoundTrip(req)
}

// The per-request timeout bounds each attempt, never the wait between
// two: a Retry-After longer than the attempt timeout is waited out.
func TestTransportTimeoutIsPerAttemptNotPerWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	base := &deadlineSeer{scripted: scripted{resps: []*http.Response{
		resp(429, map[string]string{"Retry-After": "300"}, ""), resp(201, nil, "")}}}
	var sleptWithDeadline []bool
	tr := &Transport{Base: base, AttemptTimeout: time.Minute, Now: func() time.Time { return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			_, ok := ctx.Deadline()
			sleptWithDeadline = append(sleptWithDeadline, ok)
			return nil
		}}
	req, _ := http.NewRequest("POST", "http://x/repos/o/r/issues/1/comments", strings.NewReader(`{}`))
	r, err := tr.RoundTrip(req)
	if err != nil || r.StatusCode != 201 {
		t.Fatalf("%v %v", r, err)
	}
	if len(base.deadlines) != 2 || !base.deadlines[0] || !base.deadlines[1] {
		t.Fatalf("attempts carried deadlines %v, want both", base.deadlines)
	}
	if len(sleptWithDeadline) != 1 || sleptWithDeadline[0] {
		t.Fatalf("the 5-minute wait ran under a deadline: %v", sleptWithDeadline)
	}
	c, err := NewClient(ClientConfig{Repository: "o/r"})
	if err != nil {
		t.Fatal(err)
	}
	if hc := c.gh.Client(); hc.Timeout != 0 {
		t.Fatalf("http.Client.Timeout %v would count the waits too", hc.Timeout)
	}
}

// max-wait bounds the run's waits in all: the wait that would pass it is
// refused before any sleep, with a RateLimitedError naming the limit.
func TestTransportMaxWaitIsARunBudget(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	limit := func() *http.Response {
		return resp(403, map[string]string{"Retry-After": "360"}, `{"message":"You have exceeded a secondary rate limit."}`)
	}
	base := &scripted{resps: []*http.Response{limit(), resp(201, nil, ""), limit()}}
	var sl sleeps
	tr := &Transport{Base: base, MaxWait: 10 * time.Minute, Sleep: sl.sleep, Now: func() time.Time { return now }}
	send := func() (*http.Response, error) {
		req, _ := http.NewRequest("POST", "http://x/repos/o/r/issues/1/comments", strings.NewReader(`{}`))
		return tr.RoundTrip(req)
	}
	if r, err := send(); err != nil || r.StatusCode != 201 {
		t.Fatalf("first: %v %v", r, err)
	}
	_, err := send()
	var rl *RateLimitedError
	if !errors.As(err, &rl) || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("second: %v, want a RateLimitedError", err)
	}
	if rl.Kind != "secondary rate limit" || rl.Wait != 6*time.Minute || rl.Left != 4*time.Minute {
		t.Fatalf("%+v", rl)
	}
	if len(sl.got) != 1 {
		t.Fatalf("waits %v, want the first only", sl.got)
	}
	if !strings.Contains(err.Error(), "more than the 4m0s left of max-wait") {
		t.Fatalf("message %q", err)
	}
}

// A response saying no request is left holds the next request until the
// reset (within max-wait), and go-github never sees the exhausted quota
// (it would sleep on its own, unbounded, or refuse every later call).
func TestTransportPrimaryQuotaWaitsWithinMaxWait(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		resetIn time.Duration
		wantErr bool
	}{
		{"reset within max-wait", 2 * time.Minute, false},
		{"reset past max-wait", time.Hour, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := githubfake.New()
			defer fake.Close()
			fake.AddIssue(1)
			now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			fake.Fault = func(c githubfake.Call) *githubfake.Response {
				if c.Seq == 1 { // a success that used the last request
					h := http.Header{}
					h.Set("X-RateLimit-Remaining", "0")
					h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(tt.resetIn).Unix(), 10))
					return &githubfake.Response{Status: 200, Header: h, Body: `{"number":1,"labels":[]}`}
				}
				return nil
			}
			var sl sleeps
			var lines, logged []string
			c, err := NewClient(ClientConfig{APIURL: fake.URL(), Token: "t", Repository: "o/r", WriteInterval: -1,
				Sleep: sl.sleep, Now: func() time.Time { return now },
				Debug: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) },
				Log:   func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := c.IssueLabels(ctx, 1); err != nil {
				t.Fatal(err)
			}
			_, err = c.IssueLabels(ctx, 1)
			if tt.wantErr {
				if !errors.Is(err, ErrRateLimited) || fake.Reads() != 1 {
					t.Fatalf("err %v after %d reads, want ErrRateLimited before a second call", err, fake.Reads())
				}
				return
			}
			if err != nil || fake.Reads() != 2 {
				t.Fatalf("err %v, %d reads", err, fake.Reads())
			}
			if len(sl.got) != 1 || sl.got[0] != tt.resetIn+time.Second {
				t.Fatalf("waits %v, want one until the reset", sl.got)
			}
			if len(logged) != 1 || !strings.HasPrefix(logged[0], "waiting 2m1s for the primary rate limit's reset") || !strings.Contains(logged[0], "7m59s left of max-wait") {
				t.Fatalf("log %q: a wait must say what for and what is left", logged)
			}
			joined := strings.Join(lines, "\n")
			for _, want := range []string{"GET /repos/o/r/issues/1 -> 200", "rate limit remaining 0", "waiting 2m1s for the primary rate limit's reset"} {
				if !strings.Contains(joined, want) {
					t.Fatalf("debug lines lack %q:\n%s", want, joined)
				}
			}
		})
	}
}
