package sync

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultWriteInterval paces writes under GitHub's secondary limits: its
// guidance is at most 80 content-creating requests a minute, one at a time.
const DefaultWriteInterval = 750 * time.Millisecond

// Sleeper waits for d or until ctx ends. Tests inject one that returns at
// once and records what it was asked for.
type Sleeper func(ctx context.Context, d time.Duration) error

// SleepCtx is the real Sleeper.
func SleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Transport is the RoundTripper under the go-github client. It sends
// writes one at a time with at least WriteInterval between their starts,
// and retries what GitHub asks to retry: 403 secondary limits and 429 after
// Retry-After (go-github v66 does not recognise 429 itself), an exhausted
// primary quota after x-ratelimit-reset, and 5xx with exponential backoff.
type Transport struct {
	Base          http.RoundTripper
	WriteInterval time.Duration
	// MaxAttempts bounds tries per request (default 6).
	MaxAttempts int
	// MaxWait is the longest single wait accepted; a longer one fails the
	// request instead of holding a runner for an hour (default 15 min).
	MaxWait time.Duration
	Sleep   Sleeper
	Now     func() time.Time

	writeMu   sync.Mutex
	lastWrite time.Time

	statsMu sync.Mutex
	retries int
	waited  time.Duration
}

// Stats reports the retries made and the time spent waiting on GitHub.
func (t *Transport) Stats() (retries int, waited time.Duration) {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	return t.retries, t.waited
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	return SleepCtx(ctx, d)
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		// One write at a time, paced: holding the mutex across the request
		// (retries included) is what makes "one at a time" true.
		t.writeMu.Lock()
		defer t.writeMu.Unlock()
		if err := t.pace(ctx); err != nil {
			return nil, err
		}
		defer func() { t.lastWrite = t.now() }()
	}
	attempts, maxWait, base := t.limits()
	// A body that cannot be rewound is sent once.
	once := req.Body != nil && req.GetBody == nil
	for attempt := 1; ; attempt++ {
		r, err := rewind(req, attempt)
		if err != nil {
			return nil, err
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			if ctx.Err() != nil || attempt >= attempts || once {
				return nil, err
			}
			if werr := t.wait(ctx, backoff(attempt)); werr != nil {
				return nil, werr
			}
			continue
		}
		wait, retry := t.retryAfter(resp, attempt)
		if !retry || attempt >= attempts || wait > maxWait || once {
			return resp, nil
		}
		// Drained so the connection is reused; a failure only costs that.
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if werr := t.wait(ctx, wait); werr != nil {
			return nil, werr
		}
	}
}

// pace waits until WriteInterval has passed since the last write.
func (t *Transport) pace(ctx context.Context) error {
	if t.lastWrite.IsZero() || t.WriteInterval <= 0 {
		return nil
	}
	if d := t.lastWrite.Add(t.WriteInterval).Sub(t.now()); d > 0 {
		return t.sleep(ctx, d)
	}
	return nil
}

// limits returns the attempts, the longest wait and the transport, with
// their defaults.
func (t *Transport) limits() (int, time.Duration, http.RoundTripper) {
	attempts := t.MaxAttempts
	if attempts <= 0 {
		attempts = 6
	}
	maxWait := t.MaxWait
	if maxWait <= 0 {
		maxWait = 15 * time.Minute
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return attempts, maxWait, base
}

// rewind returns the request for attempt: req itself first, then a clone
// with a fresh body.
func rewind(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 1 {
		return req, nil
	}
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("rewind request body: %w", err)
		}
		r.Body = body
	}
	return r, nil
}

func (t *Transport) wait(ctx context.Context, d time.Duration) error {
	t.statsMu.Lock()
	t.retries++
	t.waited += d
	t.statsMu.Unlock()
	return t.sleep(ctx, d)
}

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
