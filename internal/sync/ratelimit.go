package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GitHub's rate limits as the Transport meets them: the primary quota,
// the secondary limits and Retry-After, and the error that stops a run
// when waiting would pass max-wait.

// noteQuota records an exhausted primary quota (remaining 0 with a reset)
// and hides it from go-github, which would otherwise sleep until the reset
// on its own clock, without bound, or refuse every later call: waiting is
// this Transport's, within MaxWait.
func (t *Transport) noteQuota(resp *http.Response) {
	if resp.Header.Get("X-RateLimit-Remaining") != "0" {
		return
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return
	}
	t.quotaMu.Lock()
	t.exhausted = time.Unix(reset, 0).Add(time.Second)
	t.quotaMu.Unlock()
	resp.Header.Del("X-RateLimit-Remaining")
	resp.Header.Del("X-RateLimit-Reset")
}

// waitQuota holds a request until the primary quota's reset when the last
// response said none was left.
func (t *Transport) waitQuota(ctx context.Context, req *http.Request) error {
	t.quotaMu.Lock()
	until := t.exhausted
	t.quotaMu.Unlock()
	d := until.Sub(t.now())
	if until.IsZero() || d <= 0 {
		return nil
	}
	err := t.wait(ctx, d, "the primary rate limit's reset at "+until.UTC().Format(time.RFC3339), req)
	if errors.Is(err, ErrRateLimited) {
		return &RateLimitedError{Kind: "primary rate limit (no requests left)", Wait: d, Until: until, Left: t.left()}
	}
	if err == nil {
		t.quotaMu.Lock()
		t.exhausted = time.Time{}
		t.quotaMu.Unlock()
	}
	return err
}

// limitKind names the limit a 403/429 reports.
func limitKind(resp *http.Response) string {
	switch {
	case resp.Header.Get("X-RateLimit-Remaining") == "0":
		return "primary rate limit (no requests left)"
	case resp.StatusCode == http.StatusTooManyRequests:
		return "rate limit (429)"
	}
	return "secondary rate limit"
}

func (t *Transport) limited(req *http.Request, kind string, wait time.Duration, why string) error {
	e := &RateLimitedError{Kind: kind, Wait: wait, Left: t.left(), Why: why}
	if wait > 0 {
		e.Until = t.now().Add(wait)
	}
	t.debug("api: %s %s: giving up: %v", req.Method, req.URL.Path, e)
	return e
}

// ErrRateLimited is a run stopped by GitHub's rate limits: waiting for
// them would pass max-wait. Nothing is wrong; the next run goes on.
var ErrRateLimited = errors.New("rate limited by GitHub")

// RateLimitedError says which limit stopped the run and for how long
// GitHub asked to wait.
type RateLimitedError struct {
	Kind  string
	Wait  time.Duration
	Until time.Time
	Left  time.Duration
	Why   string
}

func (e *RateLimitedError) Error() string {
	msg := fmt.Sprintf("%s: %s", ErrRateLimited, e.Kind)
	if e.Wait > 0 {
		msg += fmt.Sprintf(", GitHub asks to wait %s", e.Wait.Round(time.Second))
		if !e.Until.IsZero() {
			msg += " (until " + e.Until.UTC().Format(time.RFC3339) + ")"
		}
	}
	if e.Why != "" {
		return msg + ", " + e.Why
	}
	return msg + fmt.Sprintf(", more than the %s left of max-wait", e.Left.Round(time.Second))
}

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *RateLimitedError) Is(target error) bool { return target == ErrRateLimited }

// backoff is 1 s, 2 s, 4 s ... capped at 60 s.
func backoff(attempt int) time.Duration {
	d := time.Second << (attempt - 1)
	if d > time.Minute || d <= 0 {
		d = time.Minute
	}
	return d
}

// retryAfter decides whether resp is worth another try and after how long.
func (t *Transport) retryAfter(resp *http.Response, attempt int) (time.Duration, bool) {
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests || code == http.StatusForbidden:
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.now()); ok {
			return d, true
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				d := time.Unix(reset, 0).Sub(t.now()) + time.Second
				if d < time.Second {
					d = time.Second
				}
				return d, true
			}
		}
		if code == http.StatusTooManyRequests {
			return time.Minute, true
		}
		// A 403 is a secondary limit only if GitHub says so; otherwise it is
		// a permission problem no retry will fix.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close() // read whole: nothing left to lose
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(strings.ToLower(string(body)), "secondary rate limit") {
			// GitHub's advice without Retry-After: wait at least a minute.
			return time.Minute, true
		}
		return 0, false
	case code == 500 || code == 502 || code == 503 || code == 504:
		return backoff(attempt), true
	}
	return 0, false
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && secs >= 0 {
		// Past a day it only matters that it is longer than MaxWait; capping
		// keeps a huge value from overflowing into a negative wait.
		if secs > 86400 {
			secs = 86400
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
